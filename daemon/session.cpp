#include "session.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <string>

#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

namespace los::daemon {

namespace asio = boost::asio;
using stream = asio::local::stream_protocol;
using protocol::Bytes;

const char* error_name(std::uint16_t code) {
  switch (code) {
    case LOS_ERR_MALFORMED:
      return "malformed";
    case LOS_ERR_VERSION:
      return "version";
    case LOS_ERR_TOO_LARGE:
      return "too_large";
    case LOS_ERR_UNKNOWN_TYPE:
      return "unknown_type";
    case LOS_ERR_NOT_ALLOWED:
      return "not_allowed";
    case LOS_ERR_HANDSHAKE:
      return "handshake";
    case LOS_ERR_NOT_FOUND:
      return "not_found";
    case LOS_ERR_BAD_REQUEST:
      return "bad_request";
    case LOS_ERR_BAD_MAGIC:
      return "bad_magic";
    default:
      return "internal";
  }
}

namespace {

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

// One connection: read a frame, answer it, read the next.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(SessionHost& host, stream::socket socket, Role role)
      : host_(host),
        socket_(std::move(socket)),
        role_(role),
        timer_(socket_.get_executor()),
        pause_(socket_.get_executor()) {}

  void start() {
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
      uid_ = cred.uid;
      peer_ = "pid " + std::to_string(cred.pid) + " uid " + std::to_string(cred.uid);
    } else {
      peer_ = "unknown peer";
    }
    const LogLevel level = role_ == Role::Query ? LogLevel::Debug : LogLevel::Info;
    host_.log().log(level, "connection", {{"socket", to_string(role_)}, {"peer", peer_}});
    if (!host_.peer_allowed(role_, uid_)) {
      host_.log().client_log(LogLevel::Warning, "connection refused", uid_, "connection refused: uid not allowed",
                             {{"socket", to_string(role_)}, {"peer", peer_}});
      fail(LOS_ERR_NOT_ALLOWED,
           std::string("uid ") + std::to_string(uid_) + " may not use the " + to_string(role_) + " socket", 0, true);
      return;
    }
    if (std::optional<std::string> refusal = host_.admit(role_, uid_)) {
      fail(LOS_ERR_NOT_ALLOWED, *refusal, 0, true);
      return;
    }
    admitted_ = true;
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
      self->host_.log().client_log(LogLevel::Info, "connection timed out", self->uid_, "connection timed out",
                                   {{"socket", to_string(self->role_)}, {"peer", self->peer_}});
      self->close();
    });
  }
  void disarm() {
    ++timer_epoch_;
    timer_.cancel();
  }

  // Every way a connection ends passes here, exactly once. (Not the
  // destructor: sessions still queued when the server is destroyed must not
  // touch the host.)
  void close() {
    if (closed_) return;
    closed_ = true;
    if (admitted_) host_.session_closed(role_, uid_);
    if (lingering_) host_.linger_ended();
    disarm();
    pause_.cancel();
    boost::system::error_code ignored;
    socket_.shutdown(stream::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  // The first byte may take as long as the connection may idle (the plugin
  // connection idles freely); the rest of the frame must follow promptly.
  // Before the handshake there is no idling: a client sends HELLO as soon as
  // it connects, so a connection that does not holds its place for at most
  // the frame timeout.
  void read_header() {
    if (closed_) return;
    const SessionLimits limits = host_.session_limits();
    if (!hello_) {
      arm(seconds(limits.frame_timeout_seconds));
    } else if (role_ == Role::Plugin) {
      disarm();
    } else {
      arm(seconds(limits.idle_timeout_seconds));
    }
    asio::async_read(socket_, asio::buffer(header_.data(), 1),
                     [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->ended(ec);
                       self->arm(seconds(self->host_.session_limits().frame_timeout_seconds));
                       asio::async_read(self->socket_, asio::buffer(self->header_.data() + 1, self->header_.size() - 1),
                                        [self](const boost::system::error_code& ec2, std::size_t) {
                                          if (ec2) return self->ended(ec2);
                                          self->on_header();
                                        });
                     });
  }

  void ended(const boost::system::error_code& ec) {
    if (!closed_ && ec != asio::error::eof && ec != asio::error::operation_aborted) {
      host_.log().debug("connection error", {{"socket", to_string(role_)}, {"peer", peer_}, {"error", ec.message()}});
    }
    if (!closed_) {
      host_.log().log(role_ == Role::Query ? LogLevel::Debug : LogLevel::Info, "connection closed",
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
    const std::uint32_t limit = payload_limit(role_, host_.session_limits().max_payload_bytes);
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
    const auto wait = host_.charge_request(role_, uid_);
    if (wait > std::chrono::steady_clock::duration::zero()) return rate_limited(wait);
    try {
      if (!hello_ && h.type != LOS_MSG_HELLO) {
        return fail(LOS_ERR_HANDSHAKE, "the first frame must be HELLO, not " + protocol::type_name(h.type), id, true);
      }
      host_.handle(Request{role_, h.type, id, payload_, uid_},
                   [self = shared_from_this()](Reply reply) { self->respond(std::move(reply)); });
    } catch (const protocol::DecodeError& e) {
      fail(LOS_ERR_MALFORMED, e.what(), id, false);
    } catch (const std::exception& e) {
      host_.log().error(
          "request failed",
          {{"socket", to_string(role_)}, {"peer", peer_}, {"type", protocol::type_name(h.type)}, {"error", e.what()}});
      fail(LOS_ERR_INTERNAL, e.what(), id, false);
    }
  }

  // The refusal is held back until the client could be served again (at
  // most a second): a client that retries at once is slowed to the rate it
  // is allowed, and its flood costs losd next to nothing.
  void rate_limited(std::chrono::steady_clock::duration wait) {
    pause_.expires_after(std::min<std::chrono::steady_clock::duration>(wait, std::chrono::seconds(1)));
    pause_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->closed_) return;
      self->fail(LOS_ERR_NOT_ALLOWED, self->host_.rate_limit_message(self->uid_), self->header_info_.request_id, false);
    });
  }

  // The request in header_info_ is the one answered: a session reads no
  // further frame before it has replied.
  void respond(Reply reply) {
    switch (reply.kind) {
      case Reply::Kind::Send:
        return send(std::move(reply.frame), false);
      case Reply::Kind::Nothing:
        return read_header();
      case Reply::Kind::HandshakeDone:
        hello_ = true;
        return send(std::move(reply.frame), false);
      case Reply::Kind::HandshakeRefused:
        host_.count_protocol_error(role_, error_name(LOS_ERR_HANDSHAKE));
        host_.log().client_log(LogLevel::Warning, "handshake refused", uid_, "handshake refused",
                               {{"socket", to_string(role_)}, {"peer", peer_}});
        return send(std::move(reply.frame), true);
      case Reply::Kind::ProtocolError:
        return fail(reply.code, reply.message, header_info_.request_id, false);
    }
  }

  void fail(std::uint16_t code, const std::string& message, std::uint32_t id, bool close_after) {
    host_.count_protocol_error(role_, error_name(code));
    std::string kind = "protocol error/";
    kind += error_name(code);
    host_.log().client_log(LogLevel::Warning, kind, uid_, "protocol error",
                           {{"socket", to_string(role_)},
                            {"peer", peer_},
                            {"code", error_name(code)},
                            {"error", message},
                            {"closing", close_after ? "yes" : "no"}});
    send(error_frame(code, message, id), close_after);
  }

  void send(Bytes frame, bool close_after) {
    if (closed_) return;
    out_ = std::move(frame);
    arm(seconds(host_.session_limits().frame_timeout_seconds));
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
  // then close. Lingering connections are capped by the host, so refused
  // connections cannot pile up: beyond the cap they are closed at once.
  void linger() {
    if (closed_) return;
    if (!host_.linger_begin()) return close();
    lingering_ = true;
    boost::system::error_code ignored;
    socket_.shutdown(stream::socket::shutdown_send, ignored);
    arm(seconds(host_.session_limits().frame_timeout_seconds));
    drain();
  }
  void drain() {
    socket_.async_read_some(asio::buffer(sink_),
                            [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kLingerBytes) return self->close();
                              self->drain();
                            });
  }

  SessionHost& host_;
  stream::socket socket_;
  Role role_;
  asio::steady_timer timer_;
  asio::steady_timer pause_;  // holds back a rate-limited refusal
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
  bool admitted_ = false;   // counted by the host until closed
  bool lingering_ = false;  // holds one of the host's linger slots
  uid_t uid_ = static_cast<uid_t>(-1);
  std::string peer_;
};

}  // namespace

void start_session(SessionHost& host, stream::socket socket, Role role) {
  std::make_shared<Session>(host, std::move(socket), role)->start();
}

}  // namespace los::daemon
