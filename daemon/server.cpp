#include "server.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <deque>
#include <set>

#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "policy/registry.hpp"
#include "sim/forecast.hpp"

namespace los::daemon {

namespace asio = boost::asio;
using stream = asio::local::stream_protocol;
using protocol::Bytes;

const char* to_string(Role role) {
  switch (role) {
    case Role::Plugin: return "plugin";
    case Role::Query: return "query";
    case Role::Admin: return "admin";
  }
  return "?";
}

namespace {

// Requests on the query and admin sockets are a few names long.
constexpr std::uint32_t kMaxQueryPayload = 64 * 1024;

const char* error_name(std::uint16_t code) {
  switch (code) {
    case LOS_ERR_MALFORMED: return "malformed";
    case LOS_ERR_VERSION: return "version";
    case LOS_ERR_TOO_LARGE: return "too_large";
    case LOS_ERR_UNKNOWN_TYPE: return "unknown_type";
    case LOS_ERR_NOT_ALLOWED: return "not_allowed";
    case LOS_ERR_HANDSHAKE: return "handshake";
    case LOS_ERR_NOT_FOUND: return "not_found";
    case LOS_ERR_BAD_REQUEST: return "bad_request";
    case LOS_ERR_BAD_MAGIC: return "bad_magic";
    default: return "internal";
  }
}

Bytes error_frame(std::uint16_t code, const std::string& message, std::uint32_t id) {
  return protocol::encode(protocol::ErrorReply{code, message}, id);
}

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

// One connection: read a frame, answer it, read the next.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Server& server, stream::socket socket, Role role)
      : server_(server), socket_(std::move(socket)), role_(role), timer_(server.io_) {}

  void start() {
    if (role_ == Role::Plugin) {
      server_.metrics_.plugin_connections(++server_.plugin_clients_);
    } else {
      server_.metrics_.query_clients(++server_.query_clients_);
    }
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
      uid_ = cred.uid;
      peer_ = "pid " + std::to_string(cred.pid) + " uid " + std::to_string(cred.uid);
    } else {
      peer_ = "unknown peer";
    }
    const LogLevel level = role_ == Role::Query ? LogLevel::Debug : LogLevel::Info;
    server_.log_.log(level, "connection", {{"socket", to_string(role_)}, {"peer", peer_}});
    if (!server_.peer_allowed(role_, uid_)) {
      server_.log_.warning("connection refused: uid not allowed",
                           {{"socket", to_string(role_)}, {"peer", peer_}});
      fail(LOS_ERR_NOT_ALLOWED, std::string("uid ") + std::to_string(uid_) + " may not use the " + to_string(role_) +
                                     " socket", 0, true);
      return;
    }
    if (role_ != Role::Plugin && server_.query_clients_ > server_.config_.max_query_clients) {
      fail(LOS_ERR_NOT_ALLOWED, "too many clients (limits.max_query_clients = " +
                                    std::to_string(server_.config_.max_query_clients) + ")", 0, true);
      return;
    }
    read_header();
  }

 private:
  // Deadlines: the epoch makes a timer that fired just as its operation
  // completed harmless.
  void arm(std::chrono::steady_clock::duration after) {
    const std::uint64_t epoch = ++timer_epoch_;
    timer_.expires_after(after);
    timer_.async_wait([self = shared_from_this(), epoch](const boost::system::error_code& ec) {
      if (ec || epoch != self->timer_epoch_) return;
      self->server_.log_.info("connection timed out", {{"socket", to_string(self->role_)}, {"peer", self->peer_}});
      self->close();
    });
  }
  void disarm() {
    ++timer_epoch_;
    timer_.cancel();
  }

  // Every way a connection ends passes here, exactly once. (Not the
  // destructor: sessions still queued when the server is destroyed must not
  // touch its members.)
  void close() {
    if (closed_) return;
    closed_ = true;
    if (role_ == Role::Plugin) {
      server_.metrics_.plugin_connections(--server_.plugin_clients_);
    } else {
      server_.metrics_.query_clients(--server_.query_clients_);
    }
    disarm();
    boost::system::error_code ignored;
    socket_.shutdown(stream::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  // The first byte may take as long as the connection may idle (the plugin
  // connection idles freely); the rest of the frame must follow promptly.
  void read_header() {
    if (closed_) return;
    if (role_ == Role::Plugin) {
      disarm();
    } else {
      arm(seconds(server_.config_.idle_timeout_seconds));
    }
    asio::async_read(socket_, asio::buffer(header_.data(), 1),
                     [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->ended(ec);
                       self->arm(seconds(self->server_.config_.frame_timeout_seconds));
                       asio::async_read(self->socket_, asio::buffer(self->header_.data() + 1, self->header_.size() - 1),
                                        [self](const boost::system::error_code& ec2, std::size_t) {
                                          if (ec2) return self->ended(ec2);
                                          self->on_header();
                                        });
                     });
  }

  void ended(const boost::system::error_code& ec) {
    if (!closed_ && ec != asio::error::eof && ec != asio::error::operation_aborted) {
      server_.log_.debug("connection error", {{"socket", to_string(role_)}, {"peer", peer_}, {"error", ec.message()}});
    }
    if (!closed_) {
      server_.log_.log(role_ == Role::Query ? LogLevel::Debug : LogLevel::Info, "connection closed",
                       {{"socket", to_string(role_)}, {"peer", peer_}});
    }
    close();
  }

  void on_header() {
    header_info_ = protocol::decode_header(header_);
    const auto& h = header_info_;
    if (h.magic != LOS_PROTOCOL_MAGIC) {
      return fail(LOS_ERR_BAD_MAGIC, "not a LOS frame (bad magic)", h.request_id, true);
    }
    if (h.version != LOS_PROTOCOL_VERSION) {
      return fail(LOS_ERR_VERSION,
                  "protocol version " + std::to_string(h.version) + " is not supported (losd speaks " +
                      std::to_string(LOS_PROTOCOL_VERSION) + ")",
                  h.request_id, true);
    }
    const std::uint32_t limit =
        role_ == Role::Plugin ? server_.config_.max_payload_bytes : std::min(kMaxQueryPayload, server_.config_.max_payload_bytes);
    if (h.payload_length > limit) {
      return fail(LOS_ERR_TOO_LARGE,
                  protocol::type_name(h.type) + " payload of " + std::to_string(h.payload_length) +
                      " bytes exceeds the limit of " + std::to_string(limit),
                  h.request_id, true);
    }
    payload_.assign(h.payload_length, 0);
    if (payload_.empty()) return dispatch();
    asio::async_read(socket_, asio::buffer(payload_),
                     [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->ended(ec);
                       self->dispatch();
                     });
  }

  void dispatch() {
    disarm();
    const auto& h = header_info_;
    const std::uint32_t id = h.request_id;
    try {
      if (!hello_ && h.type != LOS_MSG_HELLO) {
        return fail(LOS_ERR_HANDSHAKE, "the first frame must be HELLO, not " + protocol::type_name(h.type), id, true);
      }
      switch (h.type) {
        case LOS_MSG_HELLO: {
          bool refuse = false;
          Bytes reply = server_.hello(role_, protocol::decode_hello(payload_), id, refuse);
          if (refuse) {
            server_.metrics_.protocol_error(to_string(role_), error_name(LOS_ERR_HANDSHAKE));
            server_.log_.warning("handshake refused", {{"socket", to_string(role_)}, {"peer", peer_}});
            return send(std::move(reply), true);
          }
          hello_ = true;
          return send(std::move(reply), false);
        }
        case LOS_MSG_SNAPSHOT:
          if (role_ != Role::Plugin) break;
          return send(server_.snapshot(payload_, payload_.size() + LOS_FRAME_HEADER_SIZE, id), false);
        case LOS_MSG_REPORT:
          if (role_ != Role::Plugin) break;
          server_.report(protocol::decode_report(payload_));
          return read_header();
        case LOS_MSG_QUERY_STATUS:
          protocol::decode_query_status(payload_);
          return send(server_.status(id), false);
        case LOS_MSG_QUERY_PLAN:
          return send(server_.plan(protocol::decode_query_partition(payload_), id), false);
        case LOS_MSG_QUERY_STARTS: {
          const std::string partition = protocol::decode_query_partition(payload_);
          server_.starts(partition, id, [self = shared_from_this()](Bytes reply) { self->send(std::move(reply), false); });
          return;
        }
        case LOS_MSG_SET_POLICY:
          if (role_ != Role::Admin) break;
          return send(server_.set_policy(protocol::decode_set_policy(payload_), id), false);
        case LOS_MSG_HELLO_OK:
        case LOS_MSG_ERROR:
        case LOS_MSG_DECISIONS:
        case LOS_MSG_STATUS:
        case LOS_MSG_PLAN:
        case LOS_MSG_STARTS:
        case LOS_MSG_SET_POLICY_OK:
          return fail(LOS_ERR_BAD_REQUEST, protocol::type_name(h.type) + " is a reply; losd does not accept it", id,
                      false);
        default:
          return fail(LOS_ERR_UNKNOWN_TYPE, "unknown message " + protocol::type_name(h.type), id, false);
      }
      fail(LOS_ERR_NOT_ALLOWED,
           protocol::type_name(h.type) + " is not allowed on the " + to_string(role_) + " socket", id, false);
    } catch (const protocol::DecodeError& e) {
      fail(LOS_ERR_MALFORMED, e.what(), id, false);
    } catch (const std::exception& e) {
      server_.log_.error("request failed", {{"socket", to_string(role_)}, {"peer", peer_},
                                            {"type", protocol::type_name(h.type)}, {"error", e.what()}});
      fail(LOS_ERR_INTERNAL, e.what(), id, false);
    }
  }

  void fail(std::uint16_t code, const std::string& message, std::uint32_t id, bool close_after) {
    server_.metrics_.protocol_error(to_string(role_), error_name(code));
    server_.log_.warning("protocol error", {{"socket", to_string(role_)}, {"peer", peer_},
                                            {"code", error_name(code)}, {"error", message},
                                            {"closing", close_after ? "yes" : "no"}});
    send(error_frame(code, message, id), close_after);
  }

  void send(Bytes frame, bool close_after) {
    if (closed_) return;
    out_ = std::move(frame);
    arm(seconds(server_.config_.frame_timeout_seconds));
    asio::async_write(socket_, asio::buffer(out_),
                      [self = shared_from_this(), close_after](const boost::system::error_code& ec, std::size_t) {
                        if (ec) return self->ended(ec);
                        if (close_after) return self->linger();
                        self->read_header();
                      });
  }

  // Closing with unread bytes from the client resets the connection and the
  // client would lose the error reply just sent: stop sending, discard what
  // the client still sends (at most kLingerBytes, within the frame timeout),
  // then close.
  void linger() {
    if (closed_) return;
    boost::system::error_code ignored;
    socket_.shutdown(stream::socket::shutdown_send, ignored);
    arm(seconds(server_.config_.frame_timeout_seconds));
    drain();
  }
  void drain() {
    socket_.async_read_some(asio::buffer(sink_), [self = shared_from_this()](const boost::system::error_code& ec,
                                                                            std::size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ > kLingerBytes) return self->close();
      self->drain();
    });
  }

  Server& server_;
  stream::socket socket_;
  Role role_;
  asio::steady_timer timer_;
  std::uint64_t timer_epoch_ = 0;
  std::array<std::uint8_t, LOS_FRAME_HEADER_SIZE> header_{};
  protocol::FrameHeader header_info_;
  Bytes payload_;
  Bytes out_;
  static constexpr std::size_t kLingerBytes = 1 << 20;
  std::array<std::uint8_t, 4096> sink_{};
  std::size_t drained_ = 0;
  bool hello_ = false;
  bool closed_ = false;
  uid_t uid_ = static_cast<uid_t>(-1);
  std::string peer_;
};

Server::Server(DaemonConfig config, Logger& log)
    : signals_(io_, SIGHUP, SIGTERM, SIGINT), config_(std::move(config)), log_(log) {
  log_.set_level(config_.log_level);
}

Server::~Server() {
  forecast_pool_.stop();
  forecast_pool_.join();
}

void Server::open_listener(Role role, const SocketConfig& socket) {
  const std::string& path = socket.path;
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) throw std::runtime_error(path + ": exists and is not a socket; not replacing it");
    // A socket file left by a previous run is removed, one that answers is not.
    stream::socket probe(io_);
    boost::system::error_code ec;
    probe.connect(stream::endpoint(path), ec);
    if (!ec) throw std::runtime_error(path + ": another process is serving this socket");
    ::unlink(path.c_str());
  }
  auto listener = std::make_unique<Listener>(Listener{role, path, stream::acceptor(io_)});
  boost::system::error_code ec;
  listener->acceptor.open(stream(), ec);
  // Created with no permissions for anyone but the owner, then opened up to
  // the configured mode: never more open than configured, not even briefly.
  const mode_t old_mask = ::umask(0177);
  if (!ec) listener->acceptor.bind(stream::endpoint(path), ec);
  ::umask(old_mask);
  if (ec) throw std::runtime_error(path + ": cannot bind the " + std::string(to_string(role)) + " socket: " + ec.message());
  if (::chmod(path.c_str(), socket.mode) != 0) {
    throw std::runtime_error(path + ": cannot set mode: " + std::strerror(errno));
  }
  listener->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error(path + ": cannot listen: " + ec.message());
  char mode[8];
  std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(socket.mode));
  log_.info("listening", {{"socket", to_string(role)}, {"path", path}, {"mode", mode}});
  listeners_.push_back(std::move(listener));
}

void Server::open() {
  open_listener(Role::Plugin, config_.plugin_socket);
  open_listener(Role::Query, config_.query_socket);
  open_listener(Role::Admin, config_.admin_socket);
  if (!config_.metrics_listen.empty()) {
    try {
      metrics_.serve(config_.metrics_listen);
    } catch (const std::exception& e) {
      throw std::runtime_error("metrics.listen " + config_.metrics_listen + ": cannot serve metrics: " + e.what());
    }
    log_.info("serving metrics", {{"listen", config_.metrics_listen}});
  }
  for (auto& l : listeners_) accept(*l);
  wait_signal();
}

void Server::accept(Listener& listener) {
  listener.acceptor.async_accept([this, &listener](const boost::system::error_code& ec, stream::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      std::make_shared<Session>(*this, std::move(socket), listener.role)->start();
    } else {
      log_.warning("accept failed", {{"socket", to_string(listener.role)}, {"error", ec.message()}});
    }
    accept(listener);
  });
}

void Server::wait_signal() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    if (signo == SIGHUP) {
      reload();
      wait_signal();
    } else {
      log_.info("stopping", {{"signal", signo == SIGTERM ? "SIGTERM" : "SIGINT"}});
      stop();
    }
  });
}

void Server::run() {
  sd_notify(0, "READY=1\nSTATUS=serving");
  log_.info("ready", {{"version", kDaemonVersion}, {"config", config_.source},
                      {"default_policy", config_.default_policy}});
  io_.run();
}

void Server::stop() {
  sd_notify(0, "STOPPING=1");
  boost::system::error_code ignored;
  signals_.cancel(ignored);
  for (auto& l : listeners_) {
    l->acceptor.close(ignored);
    ::unlink(l->path.c_str());
  }
  io_.stop();
}

void Server::reload() {
  sd_notify(0, "RELOADING=1");
  log_.info("reloading configuration", {{"config", config_.source}});
  DaemonConfig next;
  try {
    next = load_config(config_.source);
  } catch (const std::exception& e) {
    metrics_.config_reload(false);
    log_.error("reload failed; keeping the old configuration", {{"error", e.what()}});
    sd_notify(0, "READY=1\nSTATUS=serving (last reload failed)");
    return;
  }
  // What is bound stays bound until a restart.
  if (!(next.plugin_socket == config_.plugin_socket) || !(next.query_socket == config_.query_socket) ||
      !(next.admin_socket == config_.admin_socket) || next.metrics_listen != config_.metrics_listen) {
    log_.warning("socket and metrics addresses change only on restart; keeping the current ones");
    next.plugin_socket = config_.plugin_socket;
    next.query_socket = config_.query_socket;
    next.admin_socket = config_.admin_socket;
    next.metrics_listen = config_.metrics_listen;
  }
  for (auto& [name, sched] : partitions_) {
    const std::string& spec = next.policy_for(name);
    if (spec != sched->policy_name()) {
      log_.info("policy changed by reload", {{"partition", name}, {"from", sched->policy_name()}, {"to", spec}});
      sched->set_policy(spec);
      invalidate_forecast(name);
    }
  }
  config_ = std::move(next);
  log_.set_level(config_.log_level);
  ++generation_;
  metrics_.config_reload(true);
  log_.info("configuration reloaded", {{"generation", std::to_string(generation_)}});
  sd_notify(0, "READY=1\nSTATUS=serving");
}

bool Server::peer_allowed(Role role, uid_t uid) const {
  if (role == Role::Query) return true;
  if (uid == 0 || uid == ::geteuid()) return true;
  if (role == Role::Plugin) {
    for (uid_t allowed : config_.plugin_allowed_uids) {
      if (uid == allowed) return true;
    }
  }
  return false;
}

Bytes Server::hello(Role role, const protocol::Hello& h, std::uint32_t id, bool& refuse) {
  refuse = false;
  if (h.version != LOS_PROTOCOL_VERSION) {
    refuse = true;
    return error_frame(LOS_ERR_VERSION, "HELLO asks for protocol version " + std::to_string(h.version) +
                                            "; losd speaks " + std::to_string(LOS_PROTOCOL_VERSION), id);
  }
  if (role == Role::Plugin) {
    if (!config_.cluster.empty() && h.cluster != config_.cluster) {
      refuse = true;
      log_.error("plugin of another cluster refused", {{"cluster", h.cluster}, {"expected", config_.cluster}});
      return error_frame(LOS_ERR_HANDSHAKE, "this losd serves cluster '" + config_.cluster + "', not '" + h.cluster + "'",
                         id);
    }
    slurm_version_ = h.slurm_version;
    // A plugin that connects anew may have missed decisions: rebuild.
    have_seq_ = false;
    log_.info("plugin handshake", {{"cluster", h.cluster}, {"slurm", h.slurm_version}, {"client", h.client}});
  }
  protocol::HelloOk ok;
  ok.daemon_version = kDaemonVersion;
  ok.cluster = config_.cluster;
  ok.max_payload = role == Role::Plugin ? config_.max_payload_bytes : std::min(kMaxQueryPayload, config_.max_payload_bytes);
  return protocol::encode(ok, id);
}

Bytes Server::snapshot(std::span<const std::uint8_t> payload, std::size_t frame_bytes, std::uint32_t id) {
  const auto t0 = std::chrono::steady_clock::now();
  protocol::SnapshotMessage msg = protocol::decode_snapshot(payload);
  const bool resync = msg.resync || !have_seq_ || msg.seq != last_seq_ + 1;
  if (resync && have_seq_) {
    log_.info("resync", {{"seq", std::to_string(msg.seq)}, {"expected", std::to_string(last_seq_ + 1)},
                         {"plugin_flag", msg.resync ? "yes" : "no"}});
  }
  protocol::DecisionsMessage out;
  out.seq = msg.seq;
  for (Snapshot& part : msg.partitions) {
    auto it = partitions_.find(part.partition);
    if (it == partitions_.end()) {
      const std::string& spec = config_.policy_for(part.partition);
      it = partitions_.emplace(part.partition, std::make_unique<PartitionScheduler>(part.partition, spec)).first;
      log_.info("new partition", {{"partition", part.partition}, {"policy", it->second->policy_name()}});
    }
    PartitionScheduler& sched = *it->second;
    int idle = 0, allocated = 0, drained = 0, down = 0;
    for (const Node& n : part.nodes) {
      switch (n.state) {
        case Node::State::Idle: ++idle; break;
        case Node::State::Allocated: ++allocated; break;
        case Node::State::Drained: ++drained; break;
        case Node::State::Down: ++down; break;
      }
    }
    const int pending = static_cast<int>(part.queue.size());
    const int running = static_cast<int>(part.running.size());
    const double utilization =
        part.total_units > 0 ? static_cast<double>(part.total_units - part.free_units) / part.total_units : 0.0;
    const std::string policy = sched.policy_name();
    metrics_.partition_state(part.partition, pending, running, idle, allocated, drained, down, utilization);

    PartitionScheduler::Outcome o = sched.step(std::move(part), resync);
    invalidate_forecast(sched.name());
    metrics_.decision_latency(sched.name(), policy, std::chrono::duration<double>(o.step_time).count());
    if (o.started) metrics_.jobs_started(sched.name(), policy, o.started);
    for (double e : o.prediction_errors) metrics_.start_prediction_error(sched.name(), policy, e);
    metrics_.reservations(sched.name(), policy, static_cast<int>(sched.policy().reservations().size()));
    out.wakeup = std::min(out.wakeup, o.wakeup);
    for (auto& d : o.decisions) out.decisions.push_back(std::move(d));
  }
  have_seq_ = true;
  last_seq_ = msg.seq;
  last_now_ = msg.now;
  Bytes reply = protocol::encode(out, id);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  metrics_.snapshot_handled(took, frame_bytes);
  log_.debug("snapshot", {{"seq", std::to_string(msg.seq)}, {"partitions", std::to_string(msg.partitions.size())},
                          {"decisions", std::to_string(out.decisions.size())},
                          {"seconds", std::to_string(took)}});
  return reply;
}

void Server::report(const protocol::Report& r) {
  static const char* kinds[] = {"", "fallback", "stale_decision", "start_failed"};
  const std::string partition = partitions_.count(r.partition) ? r.partition : "unknown";
  metrics_.plugin_report(partition, kinds[r.kind]);
  log_.warning("plugin report", {{"kind", kinds[r.kind]}, {"partition", r.partition},
                                 {"job", std::to_string(r.job)}, {"detail", r.detail}});
}

Bytes Server::status(std::uint32_t id) const {
  protocol::Status s;
  s.daemon_version = kDaemonVersion;
  s.cluster = config_.cluster;
  s.slurm_version = slurm_version_;
  s.plugin_connected = plugin_clients_ > 0;
  s.last_seq = last_seq_;
  s.last_snapshot_time = last_now_;
  s.uptime_seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_).count();
  s.config_generation = generation_;
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

Bytes Server::plan(const std::string& partition, std::uint32_t id) const {
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
  return protocol::encode(p, id);
}

void Server::invalidate_forecast(const std::string& partition) { ++epochs_[partition]; }

void Server::starts(const std::string& partition, std::uint32_t id, std::function<void(Bytes)> reply) {
  std::vector<std::string> wanted;
  if (partition.empty()) {
    for (const auto& [name, sched] : partitions_) {
      if (sched->last()) wanted.push_back(name);
    }
  } else {
    const auto it = partitions_.find(partition);
    if (it == partitions_.end()) return reply(error_frame(LOS_ERR_NOT_FOUND, "no partition '" + partition + "'", id));
    if (it->second->last()) wanted.push_back(partition);
  }
  // Replies once every wanted forecast is ready for the current epoch.
  auto remaining = std::make_shared<std::size_t>(wanted.size() + 1);
  auto done = [this, remaining, wanted, id, reply]() {
    if (--*remaining == 0) reply(starts_reply(wanted, id));
  };
  for (const std::string& name : wanted) {
    Forecast& f = forecasts_[name];
    const std::uint64_t epoch = epochs_[name];
    if (f.epoch == epoch && f.ready) {
      done();
      continue;
    }
    f.waiters.push_back(done);
    if (f.epoch == epoch && !f.ready) continue;  // already being computed
    f.epoch = epoch;
    f.ready = false;
    const PartitionScheduler& sched = *partitions_.at(name);
    asio::post(forecast_pool_, [this, name, epoch, snapshot = *sched.last(), spec = sched.policy_name(),
                                options = config_.forecast]() {
      std::unordered_map<JobId, Time> result;
      std::string error;
      try {
        const std::vector<Time> starts = forecast_starts(snapshot, spec, options);
        for (std::size_t i = 0; i < starts.size(); ++i) result[snapshot.queue[i].id] = starts[i];
      } catch (const std::exception& e) {
        error = e.what();
      }
      asio::post(io_, [this, name, epoch, result = std::move(result), error = std::move(error)]() mutable {
        Forecast& f = forecasts_[name];
        if (f.epoch != epoch) {
          // A newer snapshot arrived meanwhile: answer with this one anyway
          // rather than keep the waiters waiting for a moving target.
          f.epoch = epoch;
        }
        f.starts = std::move(result);
        f.error = std::move(error);
        f.ready = true;
        std::vector<std::function<void()>> waiters;
        waiters.swap(f.waiters);
        for (auto& w : waiters) w();
      });
    });
  }
  done();
}

Bytes Server::starts_reply(const std::vector<std::string>& partitions, std::uint32_t id) {
  std::vector<protocol::PredictedStart> out;
  for (const std::string& name : partitions) {
    const auto it = partitions_.find(name);
    if (it == partitions_.end() || !it->second->last()) continue;
    const Forecast& f = forecasts_[name];
    if (!f.error.empty()) {
      return error_frame(LOS_ERR_INTERNAL, "forecast of partition '" + name + "' failed: " + f.error, id);
    }
    const Snapshot& s = *it->second->last();
    std::unordered_map<JobId, Time> promised;
    for (const PlannedStart& p : it->second->policy().reservations()) promised[p.job] = p.start;
    for (std::size_t i = 0; i < s.queue.size(); ++i) {
      const Job& j = s.queue[i];
      protocol::PredictedStart p;
      p.partition = name;
      p.job = j.id;
      p.user = j.user;
      p.size = j.size;
      p.submit = j.submit;
      const auto held = promised.find(j.id);
      p.reserved = held != promised.end();
      // A job that arrived after the forecast's snapshot has no prediction yet.
      const auto predicted = f.starts.find(j.id);
      p.start = p.reserved ? held->second : (predicted != f.starts.end() ? predicted->second : kTimeInfinity);
      out.push_back(std::move(p));
    }
  }
  return protocol::encode(out, id);
}

Bytes Server::set_policy(const protocol::SetPolicy& m, std::uint32_t id) {
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
  invalidate_forecast(m.partition);
  metrics_.policy_switch(m.partition);
  log_.warning("policy switched at run time", {{"partition", m.partition}, {"from", before}, {"to", canonical}});
  return protocol::encode(protocol::SetPolicyOk{m.partition, canonical}, id);
}

}  // namespace los::daemon
