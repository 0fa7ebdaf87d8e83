// One request as a session hands it over, and what the session does with the
// outcome. This is the whole vocabulary between the connection handling
// (session) and the request handlers (handlers), so neither sees the other.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "protocol/codec.hpp"

namespace los::daemon {

// The socket a connection came in on: it decides what the peer may ask.
enum class Role { Plugin, Query, Admin };

inline const char* to_string(Role role) {
  switch (role) {
    case Role::Plugin:
      return "plugin";
    case Role::Query:
      return "query";
    case Role::Admin:
      return "admin";
  }
  return "?";
}

// Requests on the query and admin sockets are a few names long.
inline constexpr std::uint32_t kMaxQueryPayload = 64 * 1024;

// The largest payload a peer on `role`'s socket may send (and is told in HELLO_OK).
inline std::uint32_t payload_limit(Role role, std::uint32_t configured_max_payload) {
  return role == Role::Plugin ? configured_max_payload : std::min(kMaxQueryPayload, configured_max_payload);
}

// A complete frame after the handshake gate. The payload belongs to the
// session and is valid only during the call that receives it.
struct Request {
  Role role;
  std::uint16_t type;  // LOS_MSG_*
  std::uint32_t id;
  std::span<const std::uint8_t> payload;
  uid_t uid;  // the peer's (SO_PEERCRED): what PrivateData lets it see
};

// What the session does after a request.
struct Reply {
  enum class Kind {
    Send,              // send `frame`, then read the next request
    Nothing,           // send nothing, read the next request (REPORT)
    HandshakeDone,     // send `frame` (HELLO_OK); requests may follow
    HandshakeRefused,  // send `frame` (an ERROR), then close
    ProtocolError,     // the request breaks the protocol: ERROR{code, message}, keep the connection
  };
  Kind kind = Kind::Nothing;
  protocol::Bytes frame;
  std::uint16_t code = 0;  // ProtocolError only
  std::string message;     // ProtocolError only

  static Reply send(protocol::Bytes frame) { return {Kind::Send, std::move(frame), 0, {}}; }
  static Reply nothing() { return {Kind::Nothing, {}, 0, {}}; }
  static Reply handshake_done(protocol::Bytes frame) { return {Kind::HandshakeDone, std::move(frame), 0, {}}; }
  static Reply handshake_refused(protocol::Bytes frame) { return {Kind::HandshakeRefused, std::move(frame), 0, {}}; }
  static Reply protocol_error(std::uint16_t code, std::string message) {
    return {Kind::ProtocolError, {}, code, std::move(message)};
  }
};

// Called once per request, on the event loop; possibly before the handler
// returns, possibly later (STARTS waits for a forecast).
using ReplyFn = std::function<void(Reply)>;

// An ERROR frame.
inline protocol::Bytes error_frame(std::uint16_t code, const std::string& message, std::uint32_t id) {
  return protocol::encode(protocol::ErrorReply{code, message}, id);
}

}  // namespace los::daemon
