// losctl: ask losd what it is doing, and switch a partition's policy.
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "protocol/client.hpp"
#include "util/clock.hpp"

namespace {

constexpr const char* kUsage = R"(NAME
    losctl - query and control losd, the LOS scheduling daemon

SYNOPSIS
    losctl [OPTIONS] status
    losctl [OPTIONS] policies
    losctl [OPTIONS] plan PARTITION
    losctl [OPTIONS] starts [PARTITION] [--user UID]
    losctl [OPTIONS] set-policy PARTITION POLICY

DESCRIPTION
    status      The daemon, the plugin connection and each partition: policy,
                nodes, free nodes, running and pending jobs, reservations and
                the time of the latest policy step.
    policies    The policy of each partition.
    plan        The availability profile of a partition under its policy
                (free nodes over time) and the reservations it holds.
    starts      Predicted start of each pending job under the policy that
                schedules its partition (like squeue --start, but from the
                real policy); "reserved" marks a start the policy promised.
    set-policy  Switch a partition's policy at run time, e.g. depth:k=4
                (admin socket; lasts until losd restarts or reloads).
    Every command but set-policy uses the read-only query socket.

OPTIONS
    --socket PATH        Query socket (default: /run/los/query.sock).
    --admin-socket PATH  Admin socket (default: /run/los/admin.sock).
    --timeout SECONDS    Give up on losd after this long (default: 30).
    --user UID           starts: only this user's jobs.
    -h, --help           This text.

EXIT STATUS
    0 success; 1 losd refused the request (the message says why);
    2 bad usage; 3 cannot reach losd.
)";

std::string when(los::Time t) { return t >= los::kTimeInfinity ? "N/A" : los::local_time(t); }

std::string duration(std::int64_t s) {
  std::ostringstream o;
  if (s >= 86400) o << s / 86400 << "-";
  o << std::setfill('0') << std::setw(2) << (s % 86400) / 3600 << ":" << std::setw(2) << (s % 3600) / 60 << ":"
    << std::setw(2) << s % 60;
  return o.str();
}

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace los::protocol;
  std::string query_path = "/run/los/query.sock";
  std::string admin_path = "/run/los/admin.sock";
  double timeout = 30;
  long long user = -1;
  std::vector<std::string> args;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Usage(a + " needs a value");
        return argv[++i];
      };
      if (a == "-h" || a == "--help") {
        std::cout << kUsage;
        return 0;
      } else if (a == "--socket") {
        query_path = value();
      } else if (a == "--admin-socket") {
        admin_path = value();
      } else if (a == "--timeout") {
        const std::string v = value();
        try {
          timeout = std::stod(v);
        } catch (const std::exception&) {
          throw Usage("--timeout '" + v + "' is not a number of seconds");
        }
        if (!(timeout > 0)) throw Usage("--timeout must be positive");
      } else if (a == "--user") {
        const std::string v = value();
        try {
          user = std::stoll(v);
        } catch (const std::exception&) {
          throw Usage("--user '" + v + "' is not a numeric uid");
        }
      } else if (!a.empty() && a[0] == '-') {
        throw Usage("unknown option '" + a + "'");
      } else {
        args.push_back(a);
      }
    }
    if (args.empty()) throw Usage("no command given");
    const std::string& cmd = args[0];
    const std::size_t want = cmd == "plan" ? 2 : cmd == "set-policy" ? 3 : 1;
    const std::size_t most = cmd == "starts" ? 2 : want;
    if (cmd != "status" && cmd != "policies" && cmd != "plan" && cmd != "starts" && cmd != "set-policy") {
      throw Usage("unknown command '" + cmd + "'");
    }
    if (args.size() < want || args.size() > most) throw Usage("wrong number of arguments for '" + cmd + "'");
  } catch (const Usage& u) {
    std::cerr << "losctl: " << u.what() << " (see losctl --help)\n";
    return 2;
  }

  const std::string& cmd = args[0];
  const auto ms = std::chrono::milliseconds(static_cast<long long>(timeout * 1000));
  try {
    Client client(cmd == "set-policy" ? admin_path : query_path, ms);
    client.hello("losctl");
    if (cmd == "status" || cmd == "policies") {
      const Status s = decode_status(client.request(encode_query_status()).payload);
      if (cmd == "policies") {
        for (const auto& p : s.partitions) std::cout << p.name << " " << p.policy << "\n";
        return 0;
      }
      std::cout << s.daemon_version << ", up " << duration(s.uptime_seconds) << ", configuration generation "
                << s.config_generation << "\n"
                << "cluster: " << (s.cluster.empty() ? "(any)" : s.cluster)
                << ", plugin: " << (s.plugin_connected ? "connected" : "not connected")
                << (s.slurm_version.empty() ? "" : ", Slurm ") << s.slurm_version << "\n"
                << "latest snapshot: ";
      if (s.last_seq) {
        std::cout << '#' << s.last_seq << " at " << when(s.last_snapshot_time);
      } else {
        std::cout << "none";
      }
      std::cout << "\n\n";
      std::cout << std::left << std::setw(16) << "PARTITION" << std::setw(20) << "POLICY" << std::right << std::setw(7)
                << "NODES" << std::setw(7) << "USABLE" << std::setw(7) << "FREE" << std::setw(8) << "RUNNING"
                << std::setw(8) << "PENDING" << std::setw(6) << "RESV" << std::setw(11) << "STEP_MS"
                << "\n";
      for (const auto& p : s.partitions) {
        std::cout << std::left << std::setw(16) << p.name << std::setw(20) << p.policy << std::right << std::setw(7)
                  << p.nodes << std::setw(7) << p.usable << std::setw(7) << p.free << std::setw(8) << p.running
                  << std::setw(8) << p.pending << std::setw(6) << p.reservations << std::setw(11) << std::fixed
                  << std::setprecision(3) << static_cast<double>(p.last_step_ns) / 1e6 << "\n";
      }
    } else if (cmd == "plan") {
      const Plan p = decode_plan(client.request(encode_query_plan(args[1])).payload);
      std::cout << "partition " << p.partition << ", policy " << p.policy << ", as of " << when(p.now) << "\n";
      if (!p.has_plan) {
        std::cout << "(this policy keeps no availability profile)\n";
      } else {
        std::cout << std::left << std::setw(21) << "FROM" << std::setw(21) << "UNTIL"
                  << "FREE\n";
        for (const auto& s : p.slots) {
          std::cout << std::left << std::setw(21) << when(s.start) << std::setw(21)
                    << (s.end >= los::kTimeInfinity ? "-" : when(s.end)) << s.free << "\n";
        }
      }
      if (!p.reservations.empty()) {
        std::cout << "\nRESERVATIONS\n";
        for (const auto& r : p.reservations) std::cout << "job " << r.job << " at " << when(r.start) << "\n";
      }
    } else if (cmd == "starts") {
      const auto starts = decode_starts(client.request(encode_query_starts(args.size() > 1 ? args[1] : "")).payload);
      std::cout << std::right << std::setw(12) << "JOBID"
                << "  " << std::left << std::setw(14) << "PARTITION" << std::right << std::setw(8) << "USER"
                << std::setw(7) << "NODES"
                << "  " << std::left << std::setw(21) << "SUBMIT" << std::setw(21) << "START_TIME"
                << "KIND\n";
      for (const auto& s : starts) {
        if (user >= 0 && s.user != user) continue;
        std::cout << std::right << std::setw(12) << s.job << "  " << std::left << std::setw(14) << s.partition
                  << std::right << std::setw(8)
                  << (s.user == static_cast<int>(LOS_USER_HIDDEN) ? std::string("-") : std::to_string(s.user))
                  << std::setw(7) << s.size << "  " << std::left << std::setw(21) << when(s.submit) << std::setw(21)
                  << when(s.start)
                  << (s.reserved                      ? "reserved"
                      : s.start >= los::kTimeInfinity ? "-"
                                                      : "forecast")
                  << "\n";
      }
    } else if (cmd == "set-policy") {
      const SetPolicyOk ok = decode_set_policy_ok(client.request(encode(SetPolicy{args[1], args[2]})).payload);
      std::cout << "partition " << ok.partition << " now runs " << ok.policy << "\n";
    }
  } catch (const RemoteError& e) {
    std::cerr << "losctl: losd: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "losctl: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
