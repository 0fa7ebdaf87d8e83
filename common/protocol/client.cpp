#include "protocol/client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace los::protocol {

Client::Client(const std::string& path, std::chrono::milliseconds timeout) : path_(path), timeout_(timeout) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) throw ClientError("socket path '" + path + "' is too long");
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw ClientError(std::string("socket(): ") + std::strerror(errno));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int err = errno;
    close_fd();
    throw ClientError("cannot connect to " + path + ": " + std::strerror(err));
  }
}

Client::~Client() { close_fd(); }

Client::Client(Client&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), timeout_(other.timeout_) {}

Client& Client::operator=(Client&& other) noexcept {
  if (this != &other) {
    close_fd();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    timeout_ = other.timeout_;
  }
  return *this;
}

void Client::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Client::send(const Bytes& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    pollfd p{fd_, POLLOUT, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout_.count()));
    if (ready == 0) throw ClientError(path_ + ": timed out sending");
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw ClientError(path_ + ": poll: " + std::strerror(errno));
    }
    const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw ClientError(path_ + ": send: " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

void Client::read_exact(std::uint8_t* out, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout_.count()));
    if (ready == 0) throw ClientError(path_ + ": timed out waiting for losd's reply");
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw ClientError(path_ + ": poll: " + std::strerror(errno));
    }
    const ssize_t got = ::recv(fd_, out + done, n - done, 0);
    if (got == 0) throw ClientError(path_ + ": connection closed by losd");
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw ClientError(path_ + ": recv: " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(got);
  }
}

Frame Client::receive() {
  std::uint8_t head[LOS_FRAME_HEADER_SIZE];
  read_exact(head, sizeof(head));
  Frame f;
  f.header = decode_header(head);
  if (f.header.magic != LOS_PROTOCOL_MAGIC) throw ClientError(path_ + ": reply is not a LOS frame");
  if (f.header.version != LOS_PROTOCOL_VERSION) {
    throw ClientError(path_ + ": reply has protocol version " + std::to_string(f.header.version) + ", expected " +
                      std::to_string(LOS_PROTOCOL_VERSION));
  }
  if (f.header.payload_length > LOS_MAX_PAYLOAD) throw ClientError(path_ + ": reply payload too large");
  f.payload.resize(f.header.payload_length);
  if (!f.payload.empty()) read_exact(f.payload.data(), f.payload.size());
  return f;
}

Frame Client::request(const Bytes& frame) {
  // losd refuses some connections before reading a byte (a uid it does not
  // allow) and may close them before the request is written: the refusal is
  // then still waiting to be read, and it says more than the failed send.
  std::string send_error;
  try {
    send(frame);
  } catch (const ClientError& e) {
    send_error = e.what();
  }
  Frame reply;
  try {
    reply = receive();
  } catch (const ClientError&) {
    if (!send_error.empty()) throw ClientError(send_error);
    throw;
  }
  if (reply.header.type == LOS_MSG_ERROR) {
    const ErrorReply e = decode_error(reply.payload);
    throw RemoteError(e.code, e.message);
  }
  return reply;
}

HelloOk Client::hello(const std::string& client, const std::string& cluster, const std::string& slurm_version) {
  Hello h;
  h.client = client;
  h.cluster = cluster;
  h.slurm_version = slurm_version;
  const Frame reply = request(encode(h));
  if (reply.header.type != LOS_MSG_HELLO_OK) {
    throw ClientError(path_ + ": expected HELLO_OK, got " + type_name(reply.header.type));
  }
  return decode_hello_ok(reply.payload);
}

bool Client::closed_by_peer(std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::uint8_t sink[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd_, POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(1, left.count())));
    if (ready <= 0) continue;
    const ssize_t got = ::recv(fd_, sink, sizeof(sink), 0);
    if (got == 0) return true;
    if (got < 0 && errno != EINTR && errno != EAGAIN) return true;  // reset: closed too
  }
  return false;
}

}  // namespace los::protocol
