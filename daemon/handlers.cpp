#include "handlers.hpp"

#include <unistd.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "policy/registry.hpp"

namespace los::daemon {

using protocol::Bytes;

RequestHandlers::RequestHandlers(const DaemonConfig& config, const ServerState& server, Partitions& partitions,
                                 ForecastCache& forecasts, Metrics& metrics, Logger& log)
    : config_(config), server_(server), partitions_(partitions), forecasts_(forecasts), metrics_(metrics), log_(log) {}

void RequestHandlers::handle(const Request& request, ReplyFn reply) {
  const Role role = request.role;
  const std::uint32_t id = request.id;
  const std::span<const std::uint8_t> payload = request.payload;
  switch (request.type) {
    case LOS_MSG_HELLO:
      return reply(hello(role, protocol::decode_hello(payload), id));
    case LOS_MSG_SNAPSHOT:
      if (role != Role::Plugin) break;
      return reply(Reply::send(snapshot(payload, payload.size() + LOS_FRAME_HEADER_SIZE, id)));
    case LOS_MSG_REPORT:
      if (role != Role::Plugin) break;
      report(protocol::decode_report(payload));
      return reply(Reply::nothing());
    case LOS_MSG_QUERY_STATUS:
      protocol::decode_query_status(payload);
      return reply(Reply::send(status(id)));
    case LOS_MSG_QUERY_PLAN:
      return reply(Reply::send(plan(protocol::decode_query_partition(payload), viewer(request.uid), id)));
    case LOS_MSG_QUERY_STARTS:
      return starts(protocol::decode_query_partition(payload), viewer(request.uid), id, std::move(reply));
    case LOS_MSG_SET_POLICY:
      if (role != Role::Admin) break;
      return reply(Reply::send(set_policy(protocol::decode_set_policy(payload), id)));
    case LOS_MSG_HELLO_OK:
    case LOS_MSG_ERROR:
    case LOS_MSG_DECISIONS:
    case LOS_MSG_STATUS:
    case LOS_MSG_PLAN:
    case LOS_MSG_STARTS:
    case LOS_MSG_SET_POLICY_OK:
      return reply(Reply::protocol_error(LOS_ERR_BAD_REQUEST,
                                         protocol::type_name(request.type) + " is a reply; losd does not accept it"));
    default:
      return reply(Reply::protocol_error(LOS_ERR_UNKNOWN_TYPE, "unknown message " + protocol::type_name(request.type)));
  }
  reply(Reply::protocol_error(LOS_ERR_NOT_ALLOWED, protocol::type_name(request.type) + " is not allowed on the " +
                                                       to_string(role) + " socket"));
}

bool RequestHandlers::is_admin(uid_t uid) const {
  if (uid == 0 || uid == ::geteuid()) return true;
  return std::find(config_.plugin_allowed_uids.begin(), config_.plugin_allowed_uids.end(), uid) !=
         config_.plugin_allowed_uids.end();
}

RequestHandlers::Viewer RequestHandlers::viewer(uid_t uid) const {
  const bool admin = is_admin(uid);
  return Viewer{uid, private_jobs_ && !admin, private_users_ && !admin};
}

Reply RequestHandlers::hello(Role role, const protocol::Hello& h, std::uint32_t id) {
  if (h.version != LOS_PROTOCOL_VERSION) {
    return Reply::handshake_refused(error_frame(LOS_ERR_VERSION,
                                                "HELLO asks for protocol version " + std::to_string(h.version) +
                                                    "; losd speaks " + std::to_string(LOS_PROTOCOL_VERSION),
                                                id));
  }
  if (role == Role::Plugin) {
    if (!config_.cluster.empty() && h.cluster != config_.cluster) {
      log_.error("plugin of another cluster refused", {{"cluster", h.cluster}, {"expected", config_.cluster}});
      return Reply::handshake_refused(error_frame(
          LOS_ERR_HANDSHAKE, "this losd serves cluster '" + config_.cluster + "', not '" + h.cluster + "'", id));
    }
    slurm_version_ = h.slurm_version;
    // A plugin that connects anew may have missed decisions: rebuild.
    have_seq_ = false;
    log_.info("plugin handshake", {{"cluster", h.cluster}, {"slurm", h.slurm_version}, {"client", h.client}});
  }
  protocol::HelloOk ok;
  ok.daemon_version = daemon_version();
  ok.cluster = config_.cluster;
  ok.max_payload = payload_limit(role, config_.max_payload_bytes);
  return Reply::handshake_done(protocol::encode(ok, id));
}

Bytes RequestHandlers::snapshot(std::span<const std::uint8_t> payload, std::size_t frame_bytes, std::uint32_t id) {
  const auto t0 = std::chrono::steady_clock::now();
  protocol::SnapshotMessage msg = protocol::decode_snapshot(payload);
  metrics_.snapshot_received(msg);
  const bool resync = msg.resync || !have_seq_ || msg.seq != last_seq_ + 1;
  if (resync && have_seq_) {
    log_.info("resync", {{"seq", std::to_string(msg.seq)},
                         {"expected", std::to_string(last_seq_ + 1)},
                         {"plugin_flag", msg.resync ? "yes" : "no"}});
  }
  protocol::DecisionsMessage out;
  out.seq = msg.seq;
  // A partition (or reservation view) the plugin no longer sends was removed,
  // set DOWN or its reservation ended: its scheduler goes, so STATUS, PLAN and
  // STARTS no longer show it; should it come back, it starts afresh.
  std::unordered_set<std::string> sent;
  for (const Snapshot& part : msg.partitions) sent.insert(part.partition);
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    if (sent.count(it->first)) {
      ++it;
      continue;
    }
    log_.info("partition dropped",
              {{"partition", it->first}, {"policy", it->second->policy_name()}, {"reason", "not in the snapshot"}});
    forecasts_.drop(it->first);
    metrics_.partition_dropped(it->first);
    held_back_.erase(it->first);
    it = partitions_.erase(it);
  }
  for (std::size_t pi = 0; pi < msg.partitions.size(); ++pi) {
    Snapshot& part = msg.partitions[pi];
    auto it = partitions_.find(part.partition);
    if (it == partitions_.end()) {
      const std::string& spec = config_.policy_for(part.partition);
      it = partitions_.emplace(part.partition, std::make_unique<PartitionScheduler>(part.partition, spec)).first;
      log_.info("new partition", {{"partition", part.partition}, {"policy", it->second->policy_name()}});
    }
    PartitionScheduler& sched = *it->second;
    check_time_sharing(sched, part);
    int idle = 0, allocated = 0, drained = 0, down = 0;
    for (const Node& n : part.nodes) {
      switch (n.state) {
        case Node::State::Idle:
          ++idle;
          break;
        case Node::State::Allocated:
          ++allocated;
          break;
        case Node::State::Drained:
          ++drained;
          break;
        case Node::State::Down:
          ++down;
          break;
      }
    }
    const int pending = static_cast<int>(part.queue.size());
    const int running = static_cast<int>(part.running.size());
    const double utilization =
        part.total_units > 0 ? static_cast<double>(part.total_units - part.free_units) / part.total_units : 0.0;
    const std::string policy = sched.policy_name();
    metrics_.partition_state(part.partition, pending, running, idle, allocated, drained, down, utilization);

    // The policies' step budgets count from the message's receipt: every
    // partition of it shares one reply's time (docs/policies.md, "A step's budget").
    part.received = t0;
    std::optional<SnapshotIds> ids;
    if (pi < msg.ids.size()) ids = std::move(msg.ids[pi]);
    PartitionScheduler::Outcome o = sched.step(std::move(part), resync, std::move(ids));
    forecasts_.invalidate(sched.name());
    metrics_.decision_latency(sched.name(), policy, std::chrono::duration<double>(o.step_time).count());
    if (o.started) metrics_.jobs_started(sched.name(), policy, o.started);
    for (double e : o.prediction_errors) metrics_.start_prediction_error(sched.name(), policy, e);
    metrics_.reservations(sched.name(), policy, static_cast<int>(o.reservations));
    metrics_.step_planned(sched.name(), policy, o.work_left);
    out.wakeup = std::min(out.wakeup, o.wakeup);
    for (auto& d : o.decisions) out.decisions.push_back(std::move(d));
  }
  have_seq_ = true;
  if (msg.private_jobs != private_jobs_ || msg.private_users != private_users_) {
    log_.info("PrivateData of the query socket",
              {{"jobs", msg.private_jobs ? "private" : "public"}, {"users", msg.private_users ? "private" : "public"}});
  }
  private_jobs_ = msg.private_jobs;
  private_users_ = msg.private_users;
  last_seq_ = msg.seq;
  last_now_ = msg.now;
  Bytes reply = protocol::encode(out, id);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  metrics_.snapshot_handled(took, frame_bytes);
  log_.debug("snapshot", {{"seq", std::to_string(msg.seq)},
                          {"partitions", std::to_string(msg.partitions.size())},
                          {"decisions", std::to_string(out.decisions.size())},
                          {"seconds", std::to_string(took)}});
  return reply;
}

void RequestHandlers::report(const protocol::Report& r) {
  static const char* kinds[] = {"", "fallback", "stale_decision", "start_failed"};
  const std::string partition = partitions_.count(r.partition) ? r.partition : "unknown";
  metrics_.plugin_report(partition, kinds[r.kind]);
  log_.warning(
      "plugin report",
      {{"kind", kinds[r.kind]}, {"partition", r.partition}, {"job", std::to_string(r.job)}, {"detail", r.detail}});
}

Bytes RequestHandlers::status(std::uint32_t id) const {
  protocol::Status s;
  s.daemon_version = daemon_version();
  s.cluster = config_.cluster;
  s.slurm_version = slurm_version_;
  s.plugin_connected = server_.plugin_connections > 0;
  s.last_seq = last_seq_;
  s.last_snapshot_time = last_now_;
  s.uptime_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - server_.started).count();
  s.config_generation = server_.config_generation;
  for (const auto& [name, sched] : partitions_) {
    protocol::PartitionStatus p;
    p.name = name;
    p.policy = sched->policy_name();
    if (const Snapshot* last = sched->last()) {
      p.nodes = static_cast<std::uint32_t>(last->nodes.size());
      p.usable = static_cast<std::uint32_t>(last->total_units);
      p.free = static_cast<std::uint32_t>(last->free_units);
      p.running = static_cast<std::uint32_t>(last->running.size());
      p.pending = static_cast<std::uint32_t>(last->queue.size());
    }
    p.reservations = static_cast<std::uint32_t>(sched->policy().reservations().size());
    p.last_step_ns = static_cast<std::uint64_t>(sched->last_step_time().count());
    s.partitions.push_back(std::move(p));
  }
  return protocol::encode(s, id);
}

Bytes RequestHandlers::plan(const std::string& partition, const Viewer& who, std::uint32_t id) const {
  const auto it = partitions_.find(partition);
  if (it == partitions_.end()) return error_frame(LOS_ERR_NOT_FOUND, "no partition '" + partition + "'", id);
  const PartitionScheduler& sched = *it->second;
  protocol::Plan p;
  p.partition = partition;
  p.policy = sched.policy_name();
  p.now = sched.last() ? sched.last()->now : 0;
  if (const Planner* planner = sched.policy().plan()) {
    p.has_plan = true;
    for (const AvailabilitySlot& s : planner->slots()) p.slots.push_back({s.start, s.end, s.free});
  }
  p.reservations = sched.policy().reservations();
  if (who.own_jobs_only) {
    // Reservations of jobs the asker may not see are left out; the free
    // units over time stay (as sinfo shows nodes under PrivateData=jobs).
    std::unordered_map<JobId, int> owner;
    if (const Snapshot* last = sched.last()) {
      for (const Job& j : last->queue) owner[j.id] = j.user;
      for (const RunningJob& r : last->running) owner[r.job.id] = r.job.user;
    }
    std::erase_if(p.reservations, [&](const PlannedStart& r) {
      const auto it = owner.find(r.job);
      return it == owner.end() || !who.sees(it->second);
    });
  }
  return protocol::encode(p, id);
}

void RequestHandlers::starts(const std::string& partition, const Viewer& who, std::uint32_t id, ReplyFn reply) {
  std::vector<std::string> wanted;
  if (partition.empty()) {
    for (const auto& [name, sched] : partitions_) {
      if (sched->last()) wanted.push_back(name);
    }
  } else {
    const auto it = partitions_.find(partition);
    if (it == partitions_.end()) {
      return reply(Reply::send(error_frame(LOS_ERR_NOT_FOUND, "no partition '" + partition + "'", id)));
    }
    if (it->second->last()) wanted.push_back(partition);
  }
  // Replies once every wanted forecast is ready for the current epoch.
  auto remaining = std::make_shared<std::size_t>(wanted.size() + 1);
  auto done = [this, remaining, wanted, who, id, reply]() {
    if (--*remaining == 0) reply(Reply::send(starts_reply(wanted, who, id)));
  };
  for (const std::string& name : wanted) {
    const PartitionScheduler& sched = *partitions_.at(name);
    if (needs_no_forecast(sched)) {
      done();  // every prediction is a promise: no forecast to wait for
    } else {
      forecasts_.request(sched, config_.forecast, done);
    }
  }
  done();
}

std::unordered_map<JobId, Time> RequestHandlers::promised_starts(const PartitionScheduler& sched) {
  std::unordered_map<JobId, Time> promised;
  for (const PlannedStart& p : sched.policy().reservations()) promised[p.job] = p.start;
  return promised;
}

bool RequestHandlers::needs_no_forecast(const PartitionScheduler& sched,
                                        const std::unordered_map<JobId, Time>* promised) {
  if (sched.policy().capabilities().promises_every_start) return true;
  return promises_cover_queue(sched, promised != nullptr ? *promised : promised_starts(sched));
}

bool RequestHandlers::promises_cover_queue(const PartitionScheduler& sched,
                                           const std::unordered_map<JobId, Time>& promised) {
  const Snapshot& s = *sched.last();
  const std::vector<JobId>& starting = sched.started_last();
  return std::all_of(s.queue.begin(), s.queue.end(), [&](const Job& j) {
    return promised.count(j.id) != 0 || std::find(starting.begin(), starting.end(), j.id) != starting.end();
  });
}

Bytes RequestHandlers::starts_reply(const std::vector<std::string>& partitions, const Viewer& who, std::uint32_t id) {
  std::vector<protocol::PredictedStart> out;
  for (const std::string& name : partitions) {
    const auto it = partitions_.find(name);
    if (it == partitions_.end() || !it->second->last()) continue;
    const PartitionScheduler& sched = *it->second;
    const std::unordered_map<JobId, Time> promised = promised_starts(sched);
    // Without a forecast (every job holds a promise or is starting, or the
    // policy promises every start it will make) no prediction reads one.
    const bool forecast = !needs_no_forecast(sched, &promised);
    static const ForecastCache::Forecast kNone;
    const ForecastCache::Forecast& f = forecast ? forecasts_.result(name) : kNone;
    if (!f.error.empty()) {
      return error_frame(LOS_ERR_INTERNAL, "forecast of partition '" + name + "' failed: " + f.error, id);
    }
    const Snapshot& s = *sched.last();
    const std::unordered_set<JobId> starting(sched.started_last().begin(), sched.started_last().end());
    for (std::size_t i = 0; i < s.queue.size(); ++i) {
      const Job& j = s.queue[i];
      if (!who.sees(j.user)) continue;
      protocol::PredictedStart p;
      p.partition = name;
      p.job = j.id;
      p.user = who.hide_other_users && j.user != static_cast<int>(who.uid) ? static_cast<int>(LOS_USER_HIDDEN) : j.user;
      p.size = j.size;
      p.submit = j.submit;
      const auto held = promised.find(j.id);
      p.reserved = held != promised.end();
      // A job that arrived after the forecast's snapshot has no prediction
      // yet, nor has a job the promising policy's plan has not reached.
      const auto predicted = f.starts.find(j.id);
      p.start = p.reserved                          ? held->second
                : predicted != f.starts.end()       ? predicted->second
                : !forecast && starting.count(j.id) ? s.now  // started by the latest step
                                                    : kTimeInfinity;
      out.push_back(std::move(p));
    }
  }
  return protocol::encode(out, id);
}

namespace {
// What schedules a partition whose time-sharing policy it cannot run: the
// plugin's default fallback, space sharing on idle nodes.
constexpr const char* kTimeSharingFallback = "easy";
}  // namespace

void RequestHandlers::check_time_sharing(PartitionScheduler& sched, const Snapshot& part) {
  const auto held = held_back_.find(part.partition);
  if (held != held_back_.end()) {
    if (part.time_slots < held->second.jobs_per_node) return;
    log_.info("partition now allows time sharing: its policy is back",
              {{"partition", part.partition},
               {"policy", held->second.policy},
               {"time_slots", std::to_string(part.time_slots)},
               {"jobs_per_node", std::to_string(held->second.jobs_per_node)}});
    sched.set_policy(held->second.policy);
    forecasts_.invalidate(part.partition);
    held_back_.erase(held);
    return;
  }
  const Capabilities caps = sched.policy().capabilities();
  if (!caps.time_sharing || part.time_slots >= caps.jobs_per_node) return;
  const std::string wanted = sched.policy_name();
  const std::string n = std::to_string(caps.jobs_per_node);
  log_.error("time-sharing policy refused: the partition lets Slurm hold fewer jobs per node than the policy places",
             {{"partition", part.partition},
              {"policy", wanted},
              {"time_slots", std::to_string(part.time_slots)},
              {"jobs_per_node", n},
              {"needs", "OverSubscribe=FORCE:" + n + " (or more) on PartitionName=" + part.partition +
                            " in slurm.conf and no GANG in PreemptMode (docs/gang-live.md)"},
              {"fallback", kTimeSharingFallback}});
  sched.set_policy(kTimeSharingFallback);
  forecasts_.invalidate(part.partition);
  held_back_.emplace(part.partition, HeldBack{wanted, caps.jobs_per_node});
}

Bytes RequestHandlers::set_policy(const protocol::SetPolicy& m, std::uint32_t id) {
  const auto it = partitions_.find(m.partition);
  if (it == partitions_.end()) return error_frame(LOS_ERR_NOT_FOUND, "no partition '" + m.partition + "'", id);
  std::string canonical;
  try {
    canonical = make_policy(m.spec)->name();
  } catch (const std::exception& e) {
    return error_frame(LOS_ERR_BAD_REQUEST, e.what(), id);
  }
  const std::string before = it->second->policy_name();
  it->second->set_policy(canonical);
  held_back_.erase(m.partition);  // the next snapshot checks the new policy
  forecasts_.invalidate(m.partition);
  metrics_.policy_switch(m.partition);
  log_.warning("policy switched at run time", {{"partition", m.partition}, {"from", before}, {"to", canonical}});
  return protocol::encode(protocol::SetPolicyOk{m.partition, canonical}, id);
}

}  // namespace los::daemon
