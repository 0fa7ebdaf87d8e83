// The C++ side of the LOS wire protocol (common/protocol/los_protocol.h,
// docs/protocol.md): frames, and every message encoded from and decoded into
// model types. losd, losctl, the tests and the benchmark use it; the Slurm
// plugin speaks the same bytes from C.
//
// Decoding checks everything a peer could get wrong (truncation, counts past
// the payload, node indices out of range, duplicate ids, trailing bytes) and
// throws DecodeError naming the message, the item and the byte offset.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/snapshot.hpp"
#include "model/snapshot_diff.hpp"
#include "policy/policy.hpp"
#include "protocol/los_protocol.h"

namespace los::protocol {

class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Bytes = std::vector<std::uint8_t>;

struct FrameHeader {
  std::uint32_t magic = LOS_PROTOCOL_MAGIC;
  std::uint16_t version = LOS_PROTOCOL_VERSION;
  std::uint16_t type = 0;
  std::uint32_t request_id = 0;
  std::uint32_t payload_length = 0;
};

FrameHeader decode_header(std::span<const std::uint8_t> bytes);  // bytes.size() >= 16
// A whole frame: header (length filled in) + payload.
Bytes make_frame(std::uint16_t type, std::uint32_t request_id, const Bytes& payload);

// ---- handshake ----------------------------------------------------------
struct Hello {
  std::uint16_t version = LOS_PROTOCOL_VERSION;
  std::string cluster;
  std::string slurm_version;  // empty for tools
  std::string client;         // "slurm-plugin 0.1", "losctl", ...
};
struct HelloOk {
  std::uint16_t version = LOS_PROTOCOL_VERSION;
  std::string daemon_version;
  std::string cluster;
  std::uint32_t max_payload = 0;
};
struct ErrorReply {
  std::uint16_t code = LOS_ERR_INTERNAL;
  std::string message;
};

// ---- plugin socket --------------------------------------------------------
// One snapshot of the cluster: every partition losd schedules. Each
// partition decodes into a los::Snapshot with nodes, running jobs (with their
// node indices), the queue in the plugin's priority order, and total_units /
// free_units derived from them by the model's rule (derive_units,
// model/snapshot.hpp).
struct SnapshotMessage {
  std::uint64_t seq = 0;
  Time now = 0;
  bool resync = false;
  bool after_fallback = false;  // LOS_SNAPSHOT_FALLBACK: the previous cycle was the fallback's
  bool private_jobs = false;   // LOS_SNAPSHOT_PRIVATE_JOBS
  bool private_users = false;  // LOS_SNAPSHOT_PRIVATE_USERS
  std::vector<Snapshot> partitions;
  // The ids of each partition's lists, as the decoder's checks built them
  // (one per partition, in the same order): losd keeps them for the next
  // step's diff. Empty in a message built otherwise.
  std::vector<SnapshotIds> ids;
};

struct WireDecision {
  Decision::Kind kind = Decision::Kind::Start;
  std::uint8_t expected_state = LOS_JOB_PENDING;  // los_job_state
  std::string partition;
  JobId job = 0;
  std::vector<std::string> nodes;  // empty: the plugin picks
};
struct DecisionsMessage {
  std::uint64_t seq = 0;  // the snapshot these decisions answer
  // The plugin should send a snapshot no later than this even if nothing
  // happens (a policy's time slice ends); kTimeInfinity: no timer.
  Time wakeup = kTimeInfinity;
  std::vector<WireDecision> decisions;
};

struct Report {
  std::uint8_t kind = LOS_REPORT_FALLBACK;
  std::string partition;
  JobId job = 0;
  std::string detail;
};

// ---- query and admin sockets ---------------------------------------------
struct PartitionStatus {
  std::string name;
  std::string policy;
  std::uint32_t nodes = 0;
  std::uint32_t usable = 0;
  std::uint32_t free = 0;
  std::uint32_t running = 0;
  std::uint32_t pending = 0;
  std::uint32_t reservations = 0;
  std::uint64_t last_step_ns = 0;  // the policy step of the latest snapshot
};
struct Status {
  std::string daemon_version;
  std::string cluster;
  std::string slurm_version;
  bool plugin_connected = false;
  std::uint64_t last_seq = 0;
  Time last_snapshot_time = 0;
  std::int64_t uptime_seconds = 0;
  std::uint64_t config_generation = 0;
  std::vector<PartitionStatus> partitions;
};

struct PlanSlot {
  Time start = 0;
  Time end = 0;  // kTimeInfinity for the last slot (-1 on the wire)
  std::int64_t free = 0;
};
struct Plan {
  std::string partition;
  std::string policy;
  Time now = 0;
  bool has_plan = false;  // the policy keeps an availability profile
  std::vector<PlanSlot> slots;
  std::vector<PlannedStart> reservations;
};

struct PredictedStart {
  std::string partition;
  JobId job = 0;
  int user = 0;
  int size = 0;
  Time submit = 0;
  Time start = kTimeInfinity;  // kTimeInfinity: unknown (-1 on the wire)
  bool reserved = false;       // a promise of the policy, not only a forecast
};

struct SetPolicy {
  std::string partition;
  std::string spec;
};
struct SetPolicyOk {
  std::string partition;
  std::string policy;
};

// Encoders return whole frames; decoders take the payload only.
Bytes encode(const Hello& m, std::uint32_t request_id = 0);
Bytes encode(const HelloOk& m, std::uint32_t request_id = 0);
Bytes encode(const ErrorReply& m, std::uint32_t request_id = 0);
Bytes encode(const SnapshotMessage& m, std::uint32_t request_id = 0);
Bytes encode(const DecisionsMessage& m, std::uint32_t request_id = 0);
Bytes encode(const Report& m, std::uint32_t request_id = 0);
Bytes encode(const Status& m, std::uint32_t request_id = 0);
Bytes encode(const Plan& m, std::uint32_t request_id = 0);
Bytes encode(const std::vector<PredictedStart>& m, std::uint32_t request_id = 0);
Bytes encode(const SetPolicy& m, std::uint32_t request_id = 0);
Bytes encode(const SetPolicyOk& m, std::uint32_t request_id = 0);
Bytes encode_query_status(std::uint32_t request_id = 0);
Bytes encode_query_plan(const std::string& partition, std::uint32_t request_id = 0);
Bytes encode_query_starts(const std::string& partition, std::uint32_t request_id = 0);

Hello decode_hello(std::span<const std::uint8_t> payload);
HelloOk decode_hello_ok(std::span<const std::uint8_t> payload);
ErrorReply decode_error(std::span<const std::uint8_t> payload);
SnapshotMessage decode_snapshot(std::span<const std::uint8_t> payload);
DecisionsMessage decode_decisions(std::span<const std::uint8_t> payload);
Report decode_report(std::span<const std::uint8_t> payload);
Status decode_status(std::span<const std::uint8_t> payload);
Plan decode_plan(std::span<const std::uint8_t> payload);
std::vector<PredictedStart> decode_starts(std::span<const std::uint8_t> payload);
SetPolicy decode_set_policy(std::span<const std::uint8_t> payload);
SetPolicyOk decode_set_policy_ok(std::span<const std::uint8_t> payload);
void decode_query_status(std::span<const std::uint8_t> payload);            // checks it is empty
std::string decode_query_partition(std::span<const std::uint8_t> payload);  // QUERY_PLAN / QUERY_STARTS

// The message type's name for logs and errors ("SNAPSHOT", "type 77").
std::string type_name(std::uint16_t type);

}  // namespace los::protocol
