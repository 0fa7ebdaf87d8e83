// losd: the LOS scheduling daemon. See docs/losd.md.
#include <malloc.h>

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

// Each step of a long queue frees the last snapshot (megabytes: 80 bytes a
// waiting job) and allocates the next. glibc's defaults hand such blocks back
// to the kernel (mmap above a threshold, a trimmed heap top) and fault them
// in again, zeroed, at the next step: at 100,000 waiting jobs about 450 page
// faults and a quarter of losd's CPU a step (docs/benchmarks.md). Keep them:
// blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap,
// and up to 256 MiB of free heap top stays mapped for the next step.
void keep_freed_memory_for_reuse() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

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
  keep_freed_memory_for_reuse();
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
