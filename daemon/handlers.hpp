// losd's request handlers: which request each socket may make, and the
// answers. The plugin's HELLO, SNAPSHOT (one step of every partition it
// names, giving the decisions) and REPORT; the queries STATUS, PLAN and
// STARTS; the admin's SET_POLICY. They work on state the server owns and
// never see a connection: the session hands them a Request and gets a Reply.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "config.hpp"
#include "forecast_cache.hpp"
#include "log.hpp"
#include "metrics.hpp"
#include "partition_scheduler.hpp"
#include "protocol/codec.hpp"
#include "request.hpp"
#include "util/version.hpp"

namespace los::daemon {

// What losd calls itself in HELLO_OK, STATUS and --version.
inline std::string daemon_version() { return std::string("losd ") + kVersion; }

// The partitions seen so far, by name, each with its scheduler.
using Partitions = std::map<std::string, std::unique_ptr<PartitionScheduler>>;

// What STATUS reports about the server itself; the server keeps it current.
struct ServerState {
  std::uint64_t config_generation = 1;  // bumped by every successful reload
  int plugin_connections = 0;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

class RequestHandlers {
 public:
  // All referenced objects are the server's and outlive the handlers.
  RequestHandlers(const DaemonConfig& config, const ServerState& server, Partitions& partitions,
                  ForecastCache& forecasts, Metrics& metrics, Logger& log);

  // Who sees every job and user in queries whatever Slurm's PrivateData
  // says: root, losd's own user and the plugin socket's allowed users
  // (SlurmUser), as Slurm shows everything to root and SlurmUser.
  bool is_admin(uid_t uid) const;

  // Answers one request (on the event loop). Throws protocol::DecodeError for
  // a malformed payload, and whatever a step throws.
  void handle(const Request& request, ReplyFn reply);

 private:
  Reply hello(Role role, const protocol::Hello& h, std::uint32_t id);
  protocol::Bytes snapshot(std::span<const std::uint8_t> payload, std::size_t frame_bytes, std::uint32_t id);
  void report(const protocol::Report& r);
  protocol::Bytes status(std::uint32_t id) const;
  // What one asker may see under Slurm's PrivateData (the plugin's latest
  // snapshot flags): with jobs, only their own jobs; with users, no other
  // user's uid (LOS_USER_HIDDEN). Admins see everything.
  struct Viewer {
    uid_t uid;
    bool own_jobs_only;
    bool hide_other_users;
    bool sees(int job_user) const { return !own_jobs_only || job_user == static_cast<int>(uid); }
  };
  Viewer viewer(uid_t uid) const;
  protocol::Bytes plan(const std::string& partition, const Viewer& who, std::uint32_t id) const;
  // Calls `reply` (on the loop) with the STARTS or ERROR frame when ready.
  void starts(const std::string& partition, const Viewer& who, std::uint32_t id, ReplyFn reply);
  protocol::Bytes starts_reply(const std::vector<std::string>& partitions, const Viewer& who, std::uint32_t id);
  // The policy's promised starts on the partition, and whether every queued
  // job of its latest snapshot holds one or was just started (conservative
  // backfilling): then a forecast would predict nothing the reply needs, and
  // none is computed (a job being started is predicted to start now). At
  // 10,000 pending jobs that forecast took most of a second per cycle.
  static std::unordered_map<JobId, Time> promised_starts(const PartitionScheduler& sched);
  static bool promises_cover_queue(const PartitionScheduler& sched, const std::unordered_map<JobId, Time>& promised);
  // No forecast serves STARTS: the promises cover the queue, or the policy
  // promises every start it will make (Capabilities::promises_every_start;
  // the jobs its plan has not reached get no prediction, as sched/backfill
  // gives none to the jobs it did not test). `promised`: the partition's
  // promised_starts() when the caller has them; else they are made here,
  // and only for a policy that does not promise every start.
  static bool needs_no_forecast(const PartitionScheduler& sched,
                                const std::unordered_map<JobId, Time>* promised = nullptr);
  protocol::Bytes set_policy(const protocol::SetPolicy& m, std::uint32_t id);
  // A time-sharing policy (Capabilities::time_sharing) on a partition Slurm
  // lets hold fewer jobs per node than the policy places
  // (Snapshot::time_slots < Capabilities::jobs_per_node): an ERROR in
  // the log and kTimeSharingFallback for that partition until the snapshot
  // shows it configured (docs/gang-live.md). Call before each step.
  void check_time_sharing(PartitionScheduler& sched, const Snapshot& part);

  const DaemonConfig& config_;
  const ServerState& server_;
  Partitions& partitions_;
  ForecastCache& forecasts_;
  Metrics& metrics_;
  Logger& log_;
  // The plugin's snapshot sequence: a gap or a new plugin connection resyncs.
  bool have_seq_ = false;
  std::uint64_t last_seq_ = 0;
  Time last_now_ = 0;
  std::string slurm_version_;
  bool private_jobs_ = false;   // PrivateData=jobs, from the latest snapshot
  bool private_users_ = false;  // PrivateData=users
  // Partitions whose time-sharing policy waits for the partition to allow
  // it: partition -> that policy's spec (check_time_sharing).
  struct HeldBack {
    std::string policy;
    int jobs_per_node;  // what the partition's time_slots must reach
  };
  std::unordered_map<std::string, HeldBack> held_back_;
};

}  // namespace los::daemon
