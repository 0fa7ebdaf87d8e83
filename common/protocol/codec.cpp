#include "protocol/codec.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <unordered_set>

#include "model/job_id_index.hpp"

namespace los::protocol {
namespace {

// Appends little-endian fields to a payload.
class Writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void i64(std::int64_t v) { put(static_cast<std::uint64_t>(v), 8); }
  // Times: kTimeInfinity travels as LOS_START_UNKNOWN (-1).
  // A time that may be unknown (a predicted start, a slot's end, the wake-up):
  // anything past kTimeMax, infinity included, goes as -1, because decoders
  // refuse larger times.
  void time(Time t) { i64(t > kTimeMax ? LOS_START_UNKNOWN : t); }
  void str(const std::string& s) {
    if (s.size() > LOS_MAX_STRING) {
      throw std::length_error("string field of " + std::to_string(s.size()) + " bytes exceeds " +
                              std::to_string(LOS_MAX_STRING));
    }
    u16(static_cast<std::uint16_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void count(std::size_t n) {
    if (n > UINT32_MAX) throw std::length_error("list of " + std::to_string(n) + " items is too long");
    u32(static_cast<std::uint32_t>(n));
  }
  Bytes& bytes() { return out_; }

 private:
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  Bytes out_;
};

// Reads fields from a payload; every failure names the message and offset.
class Reader {
 public:
  Reader(std::span<const std::uint8_t> in, const char* message) : in_(in), message_(message) {}

  // Inlined (as get): a 100,000-job snapshot reads 600,000 fields.
  [[gnu::always_inline]] std::uint8_t u8(const char* what) { return static_cast<std::uint8_t>(get<1>(what)); }
  [[gnu::always_inline]] std::uint16_t u16(const char* what) { return static_cast<std::uint16_t>(get<2>(what)); }
  [[gnu::always_inline]] std::uint32_t u32(const char* what) { return static_cast<std::uint32_t>(get<4>(what)); }
  [[gnu::always_inline]] std::uint64_t u64(const char* what) { return get<8>(what); }
  [[gnu::always_inline]] std::int64_t i64(const char* what) { return static_cast<std::int64_t>(get<8>(what)); }
  // A time that may be unknown: LOS_START_UNKNOWN (read as kTimeInfinity) or
  // in [0, kTimeMax]. The plugin's C decoder applies the same rule.
  Time time(const char* what) {
    const std::int64_t t = i64(what);
    if (t == LOS_START_UNKNOWN) return kTimeInfinity;
    if (t < 0 || t > kTimeMax) fail(std::string(what) + " " + std::to_string(t) + " is neither -1 nor in [0, 2^50 s]");
    return t;
  }
  // A time or duration from a peer, in [lo, kTimeMax]: larger ones would
  // overflow the planner's sums (model/job.hpp).
  Time bounded_time(const char* what, Time lo) {
    return bounded_time(what, lo, [] { return std::string(); });
  }
  // `whose()` names the field's owner in the message; it is called only on
  // failure, so a long queue builds no strings.
  template <class Whose>
  [[gnu::always_inline]] Time bounded_time(const char* what, Time lo, const Whose& whose) {
    const std::int64_t t = i64(what);
    if (t < lo || t > kTimeMax) [[unlikely]] {
      time_out_of_range(whose(), what, t, lo);
    }
    return t;
  }
  // An int field that must lie in [lo, hi].
  [[gnu::always_inline]] int int32(const char* what, std::int64_t lo, std::int64_t hi) {
    const std::uint32_t v = u32(what);
    if (v < lo || v > hi) [[unlikely]] {
      out_of_range(what, v, lo, hi);
    }
    return static_cast<int>(v);
  }
  std::string str(const char* what) {
    const std::uint16_t n = u16(what);
    if (n > LOS_MAX_STRING)
      fail(std::string(what) + " is " + std::to_string(n) + " bytes (max " + std::to_string(LOS_MAX_STRING) + ")");
    need(n, what);
    std::string s(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  // A partition or node name: the plugin holds names as C strings, so a
  // NUL byte would cut one short (the C decoder refuses it too).
  std::string name(const char* what) {
    std::string s = str(what);
    if (s.find('\0') != std::string::npos) fail(std::string(what) + " holds a NUL byte");
    return s;
  }
  // A count of items each at least `min_item_bytes` long: a count the
  // remaining payload cannot hold is rejected before anything is allocated.
  std::size_t count(const char* what, std::size_t min_item_bytes) {
    const std::uint32_t n = u32(what);
    if (static_cast<std::uint64_t>(n) * min_item_bytes > in_.size() - pos_) {
      fail(std::string(what) + " = " + std::to_string(n) + " but only " + std::to_string(in_.size() - pos_) +
           " bytes remain");
    }
    return n;
  }
  // The u64 `ahead` bytes past the current position, not consumed; the
  // caller knows the payload holds it (count() checked the length).
  std::uint64_t peek_u64(std::size_t ahead) const {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(in_[pos_ + ahead + i]) << (8 * i);
    return v;
  }
  void done() {
    if (pos_ != in_.size()) {
      fail(std::to_string(in_.size() - pos_) + " unexpected bytes after the end of the message");
    }
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw DecodeError(std::string(message_) + " at byte " + std::to_string(pos_) + ": " + why);
  }

 private:
  // The checks inline, their messages out of line: a 100,000-job snapshot
  // reads 600,000 fields (losd CPU per 100,000-job step -15 to -23 %,
  // docs/benchmarks.md, "A step's budget").
  void need(std::size_t n, const char* what) const {
    if (in_.size() - pos_ < n) [[unlikely]] {
      truncated(n, what);
    }
  }
  [[noreturn, gnu::noinline, gnu::cold]] void truncated(std::size_t n, const char* what) const {
    fail(std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
         std::to_string(in_.size() - pos_) + " remain");
  }
  [[noreturn, gnu::noinline, gnu::cold]] void time_out_of_range(const std::string& whose, const char* what,
                                                                std::int64_t t, Time lo) const {
    fail(whose + (whose.empty() ? "" : ": ") + what + " " + std::to_string(t) + " outside [" + std::to_string(lo) +
         ", 2^50 s]");
  }
  [[noreturn, gnu::noinline, gnu::cold]] void out_of_range(const char* what, std::uint32_t v, std::int64_t lo,
                                                           std::int64_t hi) const {
    fail(std::string(what) + " = " + std::to_string(v) + " outside [" + std::to_string(lo) + ", " +
         std::to_string(hi) + "]");
  }
  // Inlined into each field's read: one load on a little-endian host.
  template <int N>
  [[gnu::always_inline]] std::uint64_t get(const char* what) {
    need(N, what);
    std::uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, in_.data() + pos_, N);
    } else {
      for (int i = 0; i < N; ++i) v |= static_cast<std::uint64_t>(in_[pos_ + i]) << (8 * i);
    }
    pos_ += N;
    return v;
  }

  std::span<const std::uint8_t> in_;
  const char* message_;
  std::size_t pos_ = 0;
};

Bytes frame(std::uint16_t type, std::uint32_t request_id, Writer& w) { return make_frame(type, request_id, w.bytes()); }

std::uint8_t node_state_code(Node::State s) {
  switch (s) {
    case Node::State::Idle:
      return LOS_NODE_IDLE;
    case Node::State::Allocated:
      return LOS_NODE_ALLOCATED;
    case Node::State::Drained:
      return LOS_NODE_DRAINED;
    case Node::State::Down:
      return LOS_NODE_DOWN;
  }
  return LOS_NODE_DOWN;
}

std::uint8_t decision_code(Decision::Kind k) {
  switch (k) {
    case Decision::Kind::Start:
      return LOS_DECIDE_START;
    case Decision::Kind::Suspend:
      return LOS_DECIDE_SUSPEND;
    case Decision::Kind::Resume:
      return LOS_DECIDE_RESUME;
    case Decision::Kind::Requeue:
      return LOS_DECIDE_REQUEUE;
  }
  return LOS_DECIDE_START;
}

JobId job_id(Reader& r, const char* what) {
  const std::uint64_t id = r.u64(what);
  if (id > LOS_JOB_ID_MAX) r.fail(std::string(what) + " does not fit a signed 64-bit id");
  return static_cast<JobId>(id);
}

constexpr std::int64_t kMaxInt = INT32_MAX;

// The plugin's C decoder bounds times by LOS_TIME_MAX: one bound on both sides.
static_assert(kTimeMax == LOS_TIME_MAX, "kTimeMax (model/job.hpp) and LOS_TIME_MAX (los_protocol.h) differ");

}  // namespace

FrameHeader decode_header(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < LOS_FRAME_HEADER_SIZE) throw DecodeError("frame header: truncated");
  const los_frame_header h = los_get_header(bytes.data());
  return FrameHeader{h.magic, h.version, h.type, h.request_id, h.payload_length};
}

Bytes make_frame(std::uint16_t type, std::uint32_t request_id, const Bytes& payload) {
  if (payload.size() > LOS_MAX_PAYLOAD) {
    throw std::length_error(type_name(type) + " payload of " + std::to_string(payload.size()) +
                            " bytes exceeds the protocol limit of " + std::to_string(LOS_MAX_PAYLOAD));
  }
  Bytes out(LOS_FRAME_HEADER_SIZE + payload.size());
  los_put_header(out.data(), type, request_id, static_cast<std::uint32_t>(payload.size()));
  std::copy(payload.begin(), payload.end(), out.begin() + LOS_FRAME_HEADER_SIZE);
  return out;
}

// ---- handshake ----------------------------------------------------------

Bytes encode(const Hello& m, std::uint32_t request_id) {
  Writer w;
  w.u16(m.version);
  w.str(m.cluster);
  w.str(m.slurm_version);
  w.str(m.client);
  return frame(LOS_MSG_HELLO, request_id, w);
}

Hello decode_hello(std::span<const std::uint8_t> payload) {
  Reader r(payload, "HELLO");
  Hello m;
  m.version = r.u16("protocol version");
  m.cluster = r.str("cluster name");
  m.slurm_version = r.str("Slurm version");
  m.client = r.str("client name");
  r.done();
  return m;
}

Bytes encode(const HelloOk& m, std::uint32_t request_id) {
  Writer w;
  w.u16(m.version);
  w.str(m.daemon_version);
  w.str(m.cluster);
  w.u32(m.max_payload);
  return frame(LOS_MSG_HELLO_OK, request_id, w);
}

HelloOk decode_hello_ok(std::span<const std::uint8_t> payload) {
  Reader r(payload, "HELLO_OK");
  HelloOk m;
  m.version = r.u16("protocol version");
  m.daemon_version = r.str("daemon version");
  m.cluster = r.str("cluster name");
  m.max_payload = r.u32("max payload");
  r.done();
  return m;
}

Bytes encode(const ErrorReply& m, std::uint32_t request_id) {
  Writer w;
  w.u16(m.code);
  w.str(m.message.size() > LOS_MAX_STRING ? m.message.substr(0, LOS_MAX_STRING) : m.message);
  return frame(LOS_MSG_ERROR, request_id, w);
}

ErrorReply decode_error(std::span<const std::uint8_t> payload) {
  Reader r(payload, "ERROR");
  ErrorReply m;
  m.code = r.u16("error code");
  m.message = r.str("message");
  r.done();
  return m;
}

// ---- snapshot -------------------------------------------------------------

Bytes encode(const SnapshotMessage& m, std::uint32_t request_id) {
  Writer w;
  w.u64(m.seq);
  w.i64(m.now);
  w.u8((m.resync ? LOS_SNAPSHOT_RESYNC : 0) | (m.after_fallback ? LOS_SNAPSHOT_FALLBACK : 0) |
       (m.private_jobs ? LOS_SNAPSHOT_PRIVATE_JOBS : 0) | (m.private_users ? LOS_SNAPSHOT_PRIVATE_USERS : 0));
  w.count(m.partitions.size());
  for (const Snapshot& p : m.partitions) {
    w.str(p.partition);
    w.u16(static_cast<std::uint16_t>(p.time_slots));
    w.count(p.nodes.size());
    for (const Node& n : p.nodes) {
      w.str(n.name);
      w.u8(node_state_code(n.state));
    }
    w.count(p.running.size());
    for (const RunningJob& r : p.running) {
      w.u64(static_cast<std::uint64_t>(r.job.id));
      w.u32(static_cast<std::uint32_t>(r.job.user));
      w.i64(r.job.submit);
      w.i64(r.start);
      w.i64(r.job.estimate);
      w.u32(static_cast<std::uint32_t>(r.job.size));
      w.u8((r.suspended ? LOS_RUNNING_SUSPENDED : 0) | (r.job.migratable ? LOS_RUNNING_MIGRATABLE : 0));
      w.count(r.nodes.size());
      for (int n : r.nodes) w.u32(static_cast<std::uint32_t>(n));
    }
    w.count(p.queue.size());
    for (const Job& j : p.queue) {
      w.u64(static_cast<std::uint64_t>(j.id));
      w.u32(static_cast<std::uint32_t>(j.user));
      w.i64(j.submit);
      w.u32(static_cast<std::uint32_t>(j.size));
      w.i64(j.estimate);
      w.u32(static_cast<std::uint32_t>(std::clamp<double>(j.priority, 0, UINT32_MAX)));
    }
  }
  return frame(LOS_MSG_SNAPSHOT, request_id, w);
}

SnapshotMessage decode_snapshot(std::span<const std::uint8_t> payload) {
  Reader r(payload, "SNAPSHOT");
  SnapshotMessage m;
  m.seq = r.u64("sequence number");
  m.now = r.bounded_time("now", 0);
  const std::uint8_t flags = r.u8("flags");
  if (flags & ~(LOS_SNAPSHOT_RESYNC | LOS_SNAPSHOT_FALLBACK | LOS_SNAPSHOT_PRIVATE_JOBS | LOS_SNAPSHOT_PRIVATE_USERS)) {
    r.fail("unknown flag bits " + std::to_string(flags));
  }
  m.resync = flags & LOS_SNAPSHOT_RESYNC;
  m.after_fallback = flags & LOS_SNAPSHOT_FALLBACK;
  m.private_jobs = flags & LOS_SNAPSHOT_PRIVATE_JOBS;
  m.private_users = flags & LOS_SNAPSHOT_PRIVATE_USERS;
  const std::size_t parts = r.count("partition count", 16);
  m.partitions.reserve(parts);
  m.ids.reserve(parts);
  std::unordered_set<std::string> part_names;
  for (std::size_t pi = 0; pi < parts; ++pi) {
    Snapshot s;
    s.now = m.now;
    s.resync = m.resync;
    s.partition = r.name("partition name");
    const std::string where = "partition '" + s.partition + "'";
    if (s.partition.empty()) r.fail("partition " + std::to_string(pi) + " has an empty name");
    if (!part_names.insert(s.partition).second) r.fail(where + " appears twice");
    s.time_slots = r.u16("time slots");
    if (s.time_slots < 1) r.fail(where + ": time slots 0 (at least 1: one job per node)");

    const std::size_t nodes = r.count("node count", 3);
    s.nodes.resize(nodes);
    for (std::size_t ni = 0; ni < nodes; ++ni) {
      Node& n = s.nodes[ni];
      n.name = r.name("node name");
      if (n.name.empty()) r.fail(where + " node " + std::to_string(ni) + " has an empty name");
      const std::uint8_t st = r.u8("node state");
      if (st > LOS_NODE_DOWN) r.fail(where + " node '" + n.name + "': unknown state " + std::to_string(st));
      n.state = static_cast<Node::State>(st);
    }

    // The id checks build the ids the next step's diff reads (SnapshotIds).
    SnapshotIds ids;
    JobIdIndex& running_ids = ids.running;
    const std::size_t running = r.count("running job count", 45);
    s.running.resize(running);
    running_ids.reserve(running);
    for (std::size_t ri = 0; ri < running; ++ri) {
      RunningJob& rj = s.running[ri];
      rj.job.id = job_id(r, "running job id");
      const auto job = [&where, id = rj.job.id] { return where + " running job " + std::to_string(id); };
      if (!running_ids.insert(rj.job.id, ri)) r.fail(job() + " appears twice");
      rj.job.user = r.int32("user id", 0, kMaxInt);
      rj.job.submit = r.bounded_time("submit time", 0, job);
      rj.start = r.bounded_time("start time", 0, job);
      rj.job.estimate = r.i64("time limit");
      if (rj.job.estimate <= 0) r.fail(job() + ": time limit " + std::to_string(rj.job.estimate) + " is not positive");
      if (rj.job.estimate > kTimeMax) {
        r.fail(job() + ": time limit " + std::to_string(rj.job.estimate) + " outside [1, 2^50 s]");
      }
      rj.job.size = r.int32("size", 1, kMaxInt);
      const std::uint8_t flags = r.u8("running job flags");
      if (flags & ~(LOS_RUNNING_SUSPENDED | LOS_RUNNING_MIGRATABLE)) {
        r.fail(job() + ": unknown flag bits " + std::to_string(flags) + " (bit 0 suspended, bit 1 migratable)");
      }
      rj.suspended = flags & LOS_RUNNING_SUSPENDED;
      rj.job.migratable = flags & LOS_RUNNING_MIGRATABLE;
      const std::size_t on = r.count("job node count", 4);
      rj.nodes.resize(on);
      for (std::size_t k = 0; k < on; ++k) {
        const std::uint32_t idx = r.u32("node index");
        if (idx >= nodes) {
          r.fail(job() + ": node index " + std::to_string(idx) + " outside the partition's " + std::to_string(nodes) +
                 " nodes");
        }
        rj.nodes[k] = static_cast<int>(idx);
      }
      rj.job.runtime = 0;
      rj.job.partition = static_cast<int>(pi);
    }

    constexpr std::size_t kPendingBytes = 36;  // id 8, user 4, submit 8, size 4, limit 8, priority 4
    const std::size_t pending = r.count("pending job count", kPendingBytes);
    // Each job is built whole and appended: no pass that zeroes 80 bytes a
    // job first, and the queue's shape arrays stay known.
    s.queue.reserve(pending);
    ids.pending.reserve(pending);
    // Pending records are kPendingBytes long, id first: the window of the
    // duplicate check is placed from a sample of the ids before reading them.
    ids.pending_set =
        JobIdSet::for_ids(pending, [&](std::size_t k) { return static_cast<JobId>(r.peek_u64(k * kPendingBytes)); });
    JobIdSet& pending_ids = ids.pending_set;
    for (std::size_t qi = 0; qi < pending; ++qi) {
      Job j;
      j.id = job_id(r, "pending job id");
      const auto job = [&where, id = j.id] { return where + " pending job " + std::to_string(id); };
      if (!pending_ids.insert(j.id)) r.fail(job() + " appears twice");
      j.user = r.int32("user id", 0, kMaxInt);
      j.submit = r.bounded_time("submit time", 0, job);
      j.size = r.int32("size", 1, kMaxInt);
      j.estimate = r.i64("time limit");
      if (j.estimate <= 0) r.fail(job() + ": time limit " + std::to_string(j.estimate) + " is not positive");
      if (j.estimate > kTimeMax) r.fail(job() + ": time limit " + std::to_string(j.estimate) + " outside [1, 2^50 s]");
      j.priority = r.u32("priority");
      j.partition = static_cast<int>(pi);
      s.queue.push_back(j);
      ids.pending.push_back(j.id);
    }
    // A job both running and pending: checked from the (shorter) running list.
    for (const RunningJob& rj : s.running) {
      if (pending_ids.contains(rj.job.id)) {
        r.fail(where + " pending job " + std::to_string(rj.job.id) + " appears twice (it is running too)");
      }
    }
    derive_units(s);
    m.partitions.push_back(std::move(s));
    m.ids.push_back(std::move(ids));
  }
  r.done();
  return m;
}

// ---- decisions, report ------------------------------------------------------

Bytes encode(const DecisionsMessage& m, std::uint32_t request_id) {
  Writer w;
  w.u64(m.seq);
  w.time(m.wakeup);
  w.count(m.decisions.size());
  for (const WireDecision& d : m.decisions) {
    w.u8(decision_code(d.kind));
    w.u8(d.expected_state);
    w.str(d.partition);
    w.u64(static_cast<std::uint64_t>(d.job));
    w.count(d.nodes.size());
    for (const std::string& n : d.nodes) w.str(n);
  }
  return frame(LOS_MSG_DECISIONS, request_id, w);
}

DecisionsMessage decode_decisions(std::span<const std::uint8_t> payload) {
  Reader r(payload, "DECISIONS");
  DecisionsMessage m;
  m.seq = r.u64("sequence number");
  m.wakeup = r.time("wakeup");
  const std::size_t n = r.count("decision count", 16);
  m.decisions.resize(n);
  for (WireDecision& d : m.decisions) {
    const std::uint8_t kind = r.u8("decision kind");
    if (kind > LOS_DECIDE_REQUEUE) r.fail("unknown decision kind " + std::to_string(kind));
    d.kind = static_cast<Decision::Kind>(kind);
    d.expected_state = r.u8("expected job state");
    if (d.expected_state > LOS_JOB_SUSPENDED) r.fail("unknown job state " + std::to_string(d.expected_state));
    d.partition = r.name("partition name");
    d.job = job_id(r, "job id");
    const std::size_t nodes = r.count("node count", 2);
    d.nodes.resize(nodes);
    for (std::string& name : d.nodes) {
      name = r.name("node name");
      if (name.empty()) r.fail("job " + std::to_string(d.job) + ": empty node name");
    }
  }
  r.done();
  return m;
}

Bytes encode(const Report& m, std::uint32_t request_id) {
  Writer w;
  w.u8(m.kind);
  w.str(m.partition);
  w.u64(static_cast<std::uint64_t>(m.job));
  w.str(m.detail);
  return frame(LOS_MSG_REPORT, request_id, w);
}

Report decode_report(std::span<const std::uint8_t> payload) {
  Reader r(payload, "REPORT");
  Report m;
  m.kind = r.u8("report kind");
  if (m.kind < LOS_REPORT_FALLBACK || m.kind > LOS_REPORT_START_FAILED) {
    r.fail("unknown report kind " + std::to_string(m.kind));
  }
  m.partition = r.str("partition name");
  m.job = job_id(r, "job id");
  m.detail = r.str("detail");
  r.done();
  return m;
}

// ---- queries ----------------------------------------------------------------

Bytes encode(const Status& m, std::uint32_t request_id) {
  Writer w;
  w.str(m.daemon_version);
  w.str(m.cluster);
  w.str(m.slurm_version);
  w.u8(m.plugin_connected ? 1 : 0);
  w.u64(m.last_seq);
  w.i64(m.last_snapshot_time);
  w.i64(m.uptime_seconds);
  w.u64(m.config_generation);
  w.count(m.partitions.size());
  for (const PartitionStatus& p : m.partitions) {
    w.str(p.name);
    w.str(p.policy);
    w.u32(p.nodes);
    w.u32(p.usable);
    w.u32(p.free);
    w.u32(p.running);
    w.u32(p.pending);
    w.u32(p.reservations);
    w.u64(p.last_step_ns);
  }
  return frame(LOS_MSG_STATUS, request_id, w);
}

Status decode_status(std::span<const std::uint8_t> payload) {
  Reader r(payload, "STATUS");
  Status m;
  m.daemon_version = r.str("daemon version");
  m.cluster = r.str("cluster name");
  m.slurm_version = r.str("Slurm version");
  m.plugin_connected = r.u8("plugin connected") != 0;
  m.last_seq = r.u64("last sequence number");
  m.last_snapshot_time = r.i64("last snapshot time");
  m.uptime_seconds = r.i64("uptime");
  m.config_generation = r.u64("config generation");
  const std::size_t n = r.count("partition count", 36);
  m.partitions.resize(n);
  for (PartitionStatus& p : m.partitions) {
    p.name = r.str("partition name");
    p.policy = r.str("policy");
    p.nodes = r.u32("nodes");
    p.usable = r.u32("usable nodes");
    p.free = r.u32("free nodes");
    p.running = r.u32("running jobs");
    p.pending = r.u32("pending jobs");
    p.reservations = r.u32("reservations");
    p.last_step_ns = r.u64("last step");
  }
  r.done();
  return m;
}

Bytes encode(const Plan& m, std::uint32_t request_id) {
  Writer w;
  w.str(m.partition);
  w.str(m.policy);
  w.i64(m.now);
  w.u8(m.has_plan ? 1 : 0);
  w.count(m.slots.size());
  for (const PlanSlot& s : m.slots) {
    w.time(s.start);
    w.time(s.end);
    w.i64(s.free);
  }
  w.count(m.reservations.size());
  for (const PlannedStart& p : m.reservations) {
    w.u64(static_cast<std::uint64_t>(p.job));
    w.time(p.start);
  }
  return frame(LOS_MSG_PLAN, request_id, w);
}

Plan decode_plan(std::span<const std::uint8_t> payload) {
  Reader r(payload, "PLAN");
  Plan m;
  m.partition = r.str("partition name");
  m.policy = r.str("policy");
  m.now = r.i64("now");
  m.has_plan = r.u8("has plan") != 0;
  const std::size_t n = r.count("slot count", 24);
  m.slots.resize(n);
  for (PlanSlot& s : m.slots) {
    s.start = r.time("slot start");
    s.end = r.time("slot end");
    s.free = r.i64("slot free units");
  }
  const std::size_t k = r.count("reservation count", 16);
  m.reservations.resize(k);
  for (PlannedStart& p : m.reservations) {
    p.job = job_id(r, "job id");
    p.start = r.time("reserved start");
  }
  r.done();
  return m;
}

Bytes encode(const std::vector<PredictedStart>& m, std::uint32_t request_id) {
  Writer w;
  w.count(m.size());
  for (const PredictedStart& p : m) {
    w.str(p.partition);
    w.u64(static_cast<std::uint64_t>(p.job));
    w.u32(static_cast<std::uint32_t>(p.user));
    w.u32(static_cast<std::uint32_t>(p.size));
    w.i64(p.submit);
    w.time(p.start);
    w.u8(p.reserved ? 1 : 0);
  }
  return frame(LOS_MSG_STARTS, request_id, w);
}

std::vector<PredictedStart> decode_starts(std::span<const std::uint8_t> payload) {
  Reader r(payload, "STARTS");
  const std::size_t n = r.count("job count", 35);
  std::vector<PredictedStart> m(n);
  for (PredictedStart& p : m) {
    p.partition = r.name("partition name");
    p.job = job_id(r, "job id");
    p.user = r.int32("user id", 0, kMaxInt);
    p.size = r.int32("size", 0, kMaxInt);
    p.submit = r.i64("submit time");
    p.start = r.time("predicted start");
    p.reserved = r.u8("reserved flag") != 0;
  }
  r.done();
  return m;
}

Bytes encode(const SetPolicy& m, std::uint32_t request_id) {
  Writer w;
  w.str(m.partition);
  w.str(m.spec);
  return frame(LOS_MSG_SET_POLICY, request_id, w);
}

SetPolicy decode_set_policy(std::span<const std::uint8_t> payload) {
  Reader r(payload, "SET_POLICY");
  SetPolicy m;
  m.partition = r.str("partition name");
  m.spec = r.str("policy");
  r.done();
  return m;
}

Bytes encode(const SetPolicyOk& m, std::uint32_t request_id) {
  Writer w;
  w.str(m.partition);
  w.str(m.policy);
  return frame(LOS_MSG_SET_POLICY_OK, request_id, w);
}

SetPolicyOk decode_set_policy_ok(std::span<const std::uint8_t> payload) {
  Reader r(payload, "SET_POLICY_OK");
  SetPolicyOk m;
  m.partition = r.str("partition name");
  m.policy = r.str("policy");
  r.done();
  return m;
}

Bytes encode_query_status(std::uint32_t request_id) { return make_frame(LOS_MSG_QUERY_STATUS, request_id, {}); }

Bytes encode_query_plan(const std::string& partition, std::uint32_t request_id) {
  Writer w;
  w.str(partition);
  return frame(LOS_MSG_QUERY_PLAN, request_id, w);
}

Bytes encode_query_starts(const std::string& partition, std::uint32_t request_id) {
  Writer w;
  w.str(partition);
  return frame(LOS_MSG_QUERY_STARTS, request_id, w);
}

void decode_query_status(std::span<const std::uint8_t> payload) {
  Reader r(payload, "QUERY_STATUS");
  r.done();
}

std::string decode_query_partition(std::span<const std::uint8_t> payload) {
  Reader r(payload, "QUERY");
  std::string p = r.str("partition name");
  r.done();
  return p;
}

std::string type_name(std::uint16_t type) {
  switch (type) {
    case LOS_MSG_HELLO:
      return "HELLO";
    case LOS_MSG_HELLO_OK:
      return "HELLO_OK";
    case LOS_MSG_ERROR:
      return "ERROR";
    case LOS_MSG_SNAPSHOT:
      return "SNAPSHOT";
    case LOS_MSG_DECISIONS:
      return "DECISIONS";
    case LOS_MSG_REPORT:
      return "REPORT";
    case LOS_MSG_QUERY_STATUS:
      return "QUERY_STATUS";
    case LOS_MSG_STATUS:
      return "STATUS";
    case LOS_MSG_QUERY_PLAN:
      return "QUERY_PLAN";
    case LOS_MSG_PLAN:
      return "PLAN";
    case LOS_MSG_QUERY_STARTS:
      return "QUERY_STARTS";
    case LOS_MSG_STARTS:
      return "STARTS";
    case LOS_MSG_SET_POLICY:
      return "SET_POLICY";
    case LOS_MSG_SET_POLICY_OK:
      return "SET_POLICY_OK";
    default:
      return "type " + std::to_string(type);
  }
}

}  // namespace los::protocol
