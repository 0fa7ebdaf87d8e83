// The plugin's C codec against losd's C++ codec on the same bytes, for every
// message the plugin reads (DECISIONS, HELLO_OK, ERROR, STARTS): both accept
// and read the same message, or both refuse (docs/protocol.md). And for the
// one it writes, SNAPSHOT: a payload the C++ decoder accepts, rebuilt with
// the plugin's builders and encoded by the C encoder, gives back the same
// bytes. The first input byte picks the message; any disagreement aborts.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "codec.h"
#include "protocol/codec.hpp"
#include "snapshot.h"

namespace {

using Payload = std::span<const std::uint8_t>;

// Runs a C++ decoder: true and the message when it accepts.
template <typename Decode>
bool cpp_decodes(Decode decode, Payload p, decltype(decode(p))& out) {
  try {
    out = decode(p);
    return true;
  } catch (const los::protocol::DecodeError&) {
    return false;
  }
}

std::int64_t wire_time(los::Time t) { return t == los::kTimeInfinity ? LOS_START_UNKNOWN : t; }

struct CDecisions {
  los_decisions d{};
  CDecisions() = default;
  CDecisions(const CDecisions&) = delete;
  CDecisions& operator=(const CDecisions&) = delete;
  ~CDecisions() { los_decisions_free(&d); }
};

bool same(const los_decisions& c, const los::protocol::DecisionsMessage& m) {
  if (c.seq != m.seq || c.wakeup != wire_time(m.wakeup) || c.count != m.decisions.size()) return false;
  for (std::uint32_t i = 0; i < c.count; ++i) {
    const los_decision& x = c.items[i];
    const los::protocol::WireDecision& y = m.decisions[i];
    if (x.kind != static_cast<std::uint8_t>(y.kind) || x.expected != y.expected_state ||
        x.job != static_cast<std::uint64_t>(y.job) || y.partition != x.partition || x.node_count != y.nodes.size()) {
      return false;
    }
    for (std::uint32_t n = 0; n < x.node_count; ++n) {
      if (y.nodes[n] != x.nodes[n]) return false;
    }
  }
  return true;
}

void decisions(Payload p) {
  CDecisions c;
  char err[256] = "";
  const bool c_ok = los_decode_decisions(p.data(), p.size(), &c.d, err, sizeof err) == 0;
  los::protocol::DecisionsMessage m;
  const bool cpp_ok = cpp_decodes(los::protocol::decode_decisions, p, m);
  if (c_ok != cpp_ok || (c_ok && !same(c.d, m))) std::abort();
}

// The plugin reads no field of HELLO_OK but the version, which must be its own.
void hello_ok(Payload p) {
  char err[256] = "";
  const bool c_ok = los_decode_hello_ok(p.data(), p.size(), err, sizeof err) == 0;
  los::protocol::HelloOk m;
  const bool cpp_ok = cpp_decodes(los::protocol::decode_hello_ok, p, m) && m.version == LOS_PROTOCOL_VERSION;
  if (c_ok != cpp_ok) std::abort();
}

// The C decoder puts the message into err, cut to err's size.
void error(Payload p) {
  char err[256] = "";
  const bool c_ok = los_decode_error(p.data(), p.size(), err, sizeof err) == 0;
  los::protocol::ErrorReply m;
  const bool cpp_ok = cpp_decodes(los::protocol::decode_error, p, m);
  if (c_ok != cpp_ok) std::abort();
  if (c_ok) {
    const std::string expected = "losd answered error " + std::to_string(m.code) + ": " + m.message;
    if (expected.compare(0, std::strlen(err), err) != 0) std::abort();
  }
}

struct CPredictions {
  los_predictions p{};
  CPredictions() = default;
  CPredictions(const CPredictions&) = delete;
  CPredictions& operator=(const CPredictions&) = delete;
  ~CPredictions() { los_predictions_free(&p); }
};

// The C decoder keeps the fields the plugin uses (not user, submit).
void starts(Payload p) {
  CPredictions c;
  char err[256] = "";
  const bool c_ok = los_decode_starts(p.data(), p.size(), &c.p, err, sizeof err) == 0;
  std::vector<los::protocol::PredictedStart> m;
  const bool cpp_ok = cpp_decodes(los::protocol::decode_starts, p, m);
  if (c_ok != cpp_ok) std::abort();
  if (!c_ok) return;
  if (c.p.count != m.size()) std::abort();
  for (std::uint32_t i = 0; i < c.p.count; ++i) {
    const los_predicted& x = c.p.items[i];
    const los::protocol::PredictedStart& y = m[i];
    if (y.partition != x.partition || x.job != static_cast<std::uint64_t>(y.job) ||
        x.size != static_cast<std::uint32_t>(y.size) || x.start != wire_time(y.start) ||
        (x.reserved != 0) != y.reserved) {
      std::abort();
    }
  }
}

struct CSnapshot {
  los_snapshot s{};
  CSnapshot() = default;
  CSnapshot(const CSnapshot&) = delete;
  CSnapshot& operator=(const CSnapshot&) = delete;
  ~CSnapshot() { los_snapshot_free(&s); }
};

struct CBuf {
  los_buf b{};
  CBuf() = default;
  CBuf(const CBuf&) = delete;
  CBuf& operator=(const CBuf&) = delete;
  ~CBuf() { los_buf_free(&b); }
};

// The plugin's builders fed from the C++ message, as slurmctld_cycle.c feeds
// them from Slurm's tables.
void build(const los::protocol::SnapshotMessage& m, los_snapshot& s) {
  s.seq = m.seq;
  s.now = m.now;
  s.flags = static_cast<std::uint8_t>((m.resync ? LOS_SNAPSHOT_RESYNC : 0) |
                                      (m.after_fallback ? LOS_SNAPSHOT_FALLBACK : 0) |
                                      (m.private_jobs ? LOS_SNAPSHOT_PRIVATE_JOBS : 0) |
                                      (m.private_users ? LOS_SNAPSHOT_PRIVATE_USERS : 0));
  for (const los::Snapshot& part : m.partitions) {
    los_partition* p = los_snapshot_add_partition(&s, part.partition.c_str());
    if (!p) std::abort();
    p->time_slots = static_cast<std::uint16_t>(part.time_slots);
    for (const los::Node& n : part.nodes) {
      if (los_partition_add_node(p, n.name.c_str(), static_cast<std::uint8_t>(n.state))) std::abort();
    }
    for (const los::RunningJob& r : part.running) {
      los_running* x = los_partition_add_running(p, static_cast<std::uint32_t>(r.nodes.size()));
      if (!x) std::abort();
      x->id = static_cast<std::uint64_t>(r.job.id);
      x->user = static_cast<std::uint32_t>(r.job.user);
      x->submit = r.job.submit;
      x->start = r.start;
      x->limit = r.job.estimate;
      x->size = static_cast<std::uint32_t>(r.job.size);
      x->suspended = r.suspended ? 1 : 0;
      x->migratable = r.job.migratable ? 1 : 0;
      for (std::size_t k = 0; k < r.nodes.size(); ++k) x->nodes[k] = static_cast<std::uint32_t>(r.nodes[k]);
    }
    for (const los::Job& j : part.queue) {
      los_pending* x = los_partition_add_pending(p);
      if (!x) std::abort();
      x->id = static_cast<std::uint64_t>(j.id);
      x->user = static_cast<std::uint32_t>(j.user);
      x->submit = j.submit;
      x->size = static_cast<std::uint32_t>(j.size);
      x->limit = j.estimate;
      x->priority = static_cast<std::uint32_t>(j.priority);
    }
  }
}

void snapshot(Payload p) {
  los::protocol::SnapshotMessage m;
  if (!cpp_decodes(los::protocol::decode_snapshot, p, m)) return;
  CSnapshot s;
  build(m, s.s);
  CBuf out;
  if (los_encode_snapshot(&out.b, 0, &s.s) != 0) std::abort();
  if (out.b.len != LOS_FRAME_HEADER_SIZE + p.size() ||
      std::memcmp(out.b.data + LOS_FRAME_HEADER_SIZE, p.data(), p.size()) != 0) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Payload p(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      decisions(p);
      break;
    case 1:
      hello_ok(p);
      break;
    case 2:
      error(p);
      break;
    case 3:
      starts(p);
      break;
    case 4:
      snapshot(p);
      break;
  }
  return 0;
}
