// The blocking client against a real Unix socket peer that refuses a
// connection before reading anything and closes it at once (what losd does
// for a uid it does not allow): the client must report the refusal, not the
// broken pipe of its own request.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "protocol/client.hpp"
#include "protocol/codec.hpp"

namespace los::protocol {
namespace {

TEST(ProtocolClient, ReportsARefusalSentBeforeTheRequest) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("los-refuse-" + std::to_string(::getpid()) + ".sock")).string();
  ::unlink(path.c_str());
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 1), 0);

  std::thread server([&] {
    const int fd = ::accept(listener, nullptr, nullptr);
    ErrorReply refusal;
    refusal.code = LOS_ERR_NOT_ALLOWED;
    refusal.message = "uid 65533 may not use the plugin socket";
    const Bytes frame = encode(refusal);
    ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
    ::close(fd);  // gone before the client says anything
  });

  Client client(path);
  server.join();  // the peer has refused and closed: the request's send fails
  try {
    client.hello("test");
    FAIL() << "a refused connection was accepted";
  } catch (const RemoteError& e) {
    EXPECT_EQ(e.code(), LOS_ERR_NOT_ALLOWED);
    EXPECT_NE(std::string(e.what()).find("may not use the plugin socket"), std::string::npos) << e.what();
  }
  ::close(listener);
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace los::protocol
