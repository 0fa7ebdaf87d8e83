// A blocking client of losd's Unix sockets: losctl, the tests and the
// benchmark talk to the daemon through it. One request at a time; every read
// and write is bounded by a timeout so a stuck daemon cannot hang a tool.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "protocol/codec.hpp"

namespace los::protocol {

// Transport failures: cannot connect, timeout, connection closed, a reply
// that is not a LOS frame.
class ClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The daemon answered with an ERROR frame.
class RemoteError : public std::runtime_error {
 public:
  RemoteError(std::uint16_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  std::uint16_t code() const { return code_; }

 private:
  std::uint16_t code_;
};

struct Frame {
  FrameHeader header;
  Bytes payload;
};

class Client {
 public:
  // Connects to the socket at `path`; throws ClientError naming it.
  explicit Client(const std::string& path, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  Client(Client&& other) noexcept;
  Client& operator=(Client&& other) noexcept;

  // Sends raw bytes (a frame, or deliberately not one: the tests do).
  void send(const Bytes& bytes);
  // Reads one frame; throws ClientError on timeout, EOF or a bad header.
  Frame receive();
  // Sends a frame and returns the reply; an ERROR reply throws RemoteError.
  Frame request(const Bytes& frame);
  // The handshake; returns the daemon's HELLO_OK.
  HelloOk hello(const std::string& client, const std::string& cluster = "", const std::string& slurm_version = "");
  // True when the daemon has closed the connection (reads EOF within `wait`).
  bool closed_by_peer(std::chrono::milliseconds wait);

  int fd() const { return fd_; }

 private:
  void read_exact(std::uint8_t* out, std::size_t n);
  void close_fd();

  int fd_ = -1;
  std::string path_;
  std::chrono::milliseconds timeout_;
};

}  // namespace los::protocol
