// losd: the LOS scheduling daemon. See docs/losd.md.
#include <csignal>
#include <iostream>
#include <string>

#include "config.hpp"
#include "log.hpp"
#include "server.hpp"
#include "util/cli.hpp"
#include "util/parse.hpp"

namespace {

constexpr const char* kUsage = R"(NAME
    losd - the LOS scheduling daemon for Slurm

SYNOPSIS
    losd [--config FILE]
    losd --check-config [--config FILE]

DESCRIPTION
    Serves the LOS Slurm plugin on a Unix socket: each snapshot of the
    cluster it receives is scheduled partition by partition by the policy
    configured for that partition, and the decisions are sent back. A second,
    read-only socket answers losctl and other tools (status, plans, predicted
    starts); a third, admin socket lets losctl switch a partition's policy.
    SIGHUP reloads the configuration (a bad one is refused and the old one
    kept); SIGTERM stops. Logs go to stderr (the journal under systemd).

OPTIONS
    --config FILE    Configuration file (default: /etc/los/losd.yaml).
    --check-config   Validate the configuration, print a summary and exit.
    --version        Print the version and exit.
    -h, --help       This text.

EXIT STATUS
    0 success; 1 bad configuration (the message names file, line and key);
    2 bad usage; 3 cannot serve (socket or metrics address unavailable).

FILES
    /etc/los/losd.yaml   The configuration (docs/losd.md lists every key).

SEE ALSO
    losctl(1), sa-submit(1), los-sim(1), slurm.conf(5)
)";

}  // namespace

int main(int argc, char** argv) {
  std::string config_path = los::daemon::kDefaultConfigPath;
  bool check = false;
  try {
    los::CommandLine cli("losd", kUsage);
    cli.app().add_option("--config", config_path, "Configuration file.");
    cli.app().add_flag("--check-config", check, "Validate the configuration, print a summary and exit.");
    if (!cli.parse(argc, argv)) return 0;
  } catch (const los::UsageError& e) {
    std::cerr << "losd: " << e.what() << "\n";
    return 2;
  }

  los::daemon::DaemonConfig config;
  try {
    config = los::daemon::load_config(config_path);
  } catch (const std::exception& e) {
    std::cerr << "losd: " << e.what() << "\n";
    return 1;
  }
  if (check) {
    std::cout << config_path << ": OK\n"
              << "  plugin socket  " << config.plugin_socket.path << "\n"
              << "  query socket   " << config.query_socket.path << "\n"
              << "  admin socket   " << config.admin_socket.path << "\n"
              << "  metrics        " << (config.metrics_listen.empty() ? "(disabled)" : config.metrics_listen) << "\n"
              << "  default policy " << config.default_policy << "\n";
    for (const auto& [name, spec] : config.partitions) std::cout << "  partition " << name << ": " << spec << "\n";
    return 0;
  }

  // A log reader or client that went away must not kill the daemon: writes
  // report EPIPE instead.
  std::signal(SIGPIPE, SIG_IGN);
  los::daemon::Logger log(config.log_level);
  try {
    los::daemon::Server server(std::move(config), log);
    server.open();
    server.run();
  } catch (const std::exception& e) {
    log.error("cannot serve", {{"error", e.what()}});
    return 3;
  }
  log.info("stopped");
  return 0;
}
