// One client connection of losd: framing, deadlines, the handshake gate and
// the connection's end. A session reaches the rest of the daemon only
// through SessionHost, so connection handling and request handling can
// change independently (and a session cannot touch the server's state).
//
// Isolation: a session handles one request at a time with its own buffers
// and deadlines, so a slow or hostile client only ever waits on itself.
// Frames are bounded before anything is allocated, a started frame must
// complete within frame_timeout_seconds, and query/admin connections idle for
// idle_timeout_seconds are closed. The host admits each connection (caps per
// socket and per uid) and each query request (a rate per uid).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <boost/asio/local/stream_protocol.hpp>

#include "log.hpp"
#include "request.hpp"

namespace los::daemon {

// The limits a session enforces, read afresh for each use (a reload may
// change them).
struct SessionLimits {
  std::uint32_t max_payload_bytes = 0;  // before payload_limit() per role
  double frame_timeout_seconds = 0;
  double idle_timeout_seconds = 0;
};

// What a session needs from the daemon. Every call is made on the event loop.
class SessionHost {
 public:
  virtual SessionLimits session_limits() const = 0;
  virtual Logger& log() = 0;
  virtual bool peer_allowed(Role role, uid_t uid) const = 0;
  // Admits a connection of `uid` on `role`'s socket, or returns why not (the
  // message the client gets). An admitted connection is counted until
  // session_closed.
  virtual std::optional<std::string> admit(Role role, uid_t uid) = 0;
  virtual void session_closed(Role role, uid_t uid) = 0;
  // Charges one request of `uid` on `role`'s socket: zero if it may be served
  // now, else how long until it could be (the request is refused).
  virtual std::chrono::steady_clock::duration charge_request(Role role, uid_t uid) = 0;
  // The message a rate-limited client gets.
  virtual std::string rate_limit_message(uid_t uid) const = 0;
  // A refused connection lingers to let the client read why; false when too
  // many already do (it is closed at once). linger_ended balances a true.
  virtual bool linger_begin() = 0;
  virtual void linger_ended() = 0;
  // Counts a protocol error; `code` is its metric label (error_name()).
  virtual void count_protocol_error(Role role, const char* code) = 0;
  // Handles one request after the handshake gate; calls `reply` exactly once
  // unless it throws (protocol::DecodeError for a malformed payload).
  virtual void handle(const Request& request, ReplyFn reply) = 0;

 protected:
  ~SessionHost() = default;
};

// The metric label of a LOS_ERR_* code.
const char* error_name(std::uint16_t code);

// Starts serving a freshly accepted connection. The session keeps itself
// alive through its pending operations; `host` must outlive the event loop
// that runs it (a session's destructor does not touch the host).
void start_session(SessionHost& host, boost::asio::local::stream_protocol::socket socket, Role role);

}  // namespace los::daemon
