// losctl: ask losd what it is doing, and switch a partition's policy.
#include <pwd.h>
#include <sys/types.h>

#include <ctime>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol/client.hpp"
#include "util/cli.hpp"
#include "util/clock.hpp"
#include "util/parse.hpp"

namespace {

constexpr const char* kUsage = R"(NAME
    losctl - query and control losd, the LOS scheduling daemon

SYNOPSIS
    losctl [OPTIONS] status
    losctl [OPTIONS] policies
    losctl [OPTIONS] plan PARTITION
    losctl [OPTIONS] starts [PARTITION] [--user USER]
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
                Users are shown by name (by uid when the name is unknown).
    set-policy  Switch a partition's policy at run time, e.g. depth:k=4
                (admin socket; lasts until losd restarts or reloads).
    Every command but set-policy uses the read-only query socket. Options
    may come before or after the command, as --opt VALUE or --opt=VALUE.

OPTIONS
    --socket PATH        Query socket (default: /run/los/query.sock).
    --admin-socket PATH  Admin socket (default: /run/los/admin.sock).
    --timeout SECONDS    Give up on losd after this long (default: 30).
    --user USER          starts: only this user's jobs; a user name or a
                         numeric uid (default: every user's).
    --json               Print one JSON document instead of the table (the
                         fields are listed in docs/losd.md, "losctl --json").
    --version            Print the version and exit.
    -h, --help           This text.

EXIT STATUS
    0 success; 1 losd refused the request (the message says why);
    2 bad usage; 3 cannot reach losd.

EXAMPLES
    losctl status
    losctl starts batch --user alice
    losctl --json plan batch
    losctl set-policy batch depth:k=4

SEE ALSO
    losd(8), sa-submit(1), squeue(1)
)";

std::string when(los::Time t) { return t >= los::kTimeInfinity ? "N/A" : los::local_time(t); }

// A time for JSON: seconds since the epoch, null when unknown or unbounded.
nlohmann::json epoch(los::Time t) { return t >= los::kTimeInfinity ? nlohmann::json() : nlohmann::json(t); }

// The user's name, or their uid as text when the system knows no name.
std::string user_name(int uid) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(static_cast<uid_t>(uid), &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

// --user: a numeric uid, or a name the system resolves to one.
long long parse_user(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    return los::parse_integer("--user", text, 0, 0xFFFFFFFELL);
  }
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (text.empty() || getpwnam_r(text.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found) {
    throw los::UsageError("--user: no user named '" + text + "' (give a user name or a numeric uid)");
  }
  return found->pw_uid;
}

struct Options {
  std::string query_path = "/run/los/query.sock";
  std::string admin_path = "/run/los/admin.sock";
  double timeout = 30;
  std::optional<long long> user;
  bool json = false;
  std::string command;
  std::string partition;
  std::string policy;
};

// Parses the command line; false after --help or --version.
bool parse(int argc, char** argv, Options& o) {
  los::CommandLine cli("losctl", kUsage);
  CLI::App& app = cli.app();
  app.add_option("--socket", o.query_path);
  app.add_option("--admin-socket", o.admin_path);
  app.add_option_function<std::string>(
      "--timeout", [&](const std::string& v) { o.timeout = los::parse_number("--timeout", v, 0.001, 86400); });
  app.add_option_function<std::string>("--user", [&](const std::string& v) { o.user = parse_user(v); });
  app.add_flag("--json", o.json);
  app.require_subcommand(1);
  // The options are the whole tool's: a command passes them on (fallthrough).
  const auto command = [&](const std::string& name) {
    CLI::App* sub = app.add_subcommand(name);
    sub->fallthrough();
    sub->callback([&o, name] { o.command = name; });
    return sub;
  };
  command("status");
  command("policies");
  command("plan")->add_option("PARTITION", o.partition)->required();
  command("starts")->add_option("PARTITION", o.partition);
  CLI::App* set_policy = command("set-policy");
  set_policy->add_option("PARTITION", o.partition)->required();
  set_policy->add_option("POLICY", o.policy)->required();
  if (!cli.parse(argc, argv)) return false;
  if (o.user && o.command != "starts") throw los::UsageError(cli.usage_hint("--user goes with the starts command"));
  return true;
}

void print_status(const los::protocol::Status& s, bool json) {
  if (json) {
    nlohmann::json partitions = nlohmann::json::array();
    for (const auto& p : s.partitions) {
      partitions.push_back({{"name", p.name},
                            {"policy", p.policy},
                            {"nodes", p.nodes},
                            {"usable", p.usable},
                            {"free", p.free},
                            {"running", p.running},
                            {"pending", p.pending},
                            {"reservations", p.reservations},
                            {"last_step_ms", static_cast<double>(p.last_step_ns) / 1e6}});
    }
    const nlohmann::json doc = {
        {"daemon_version", s.daemon_version},
        {"uptime_s", s.uptime_seconds},
        {"config_generation", s.config_generation},
        {"cluster", s.cluster},
        {"plugin_connected", s.plugin_connected},
        {"slurm_version", s.slurm_version},
        {"latest_snapshot",
         s.last_seq ? nlohmann::json{{"seq", s.last_seq}, {"time", s.last_snapshot_time}} : nlohmann::json()},
        {"partitions", partitions}};
    std::cout << doc.dump(2) << "\n";
    return;
  }
  std::cout << s.daemon_version << ", up " << los::slurm_duration(s.uptime_seconds) << ", configuration generation "
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
}

void print_policies(const los::protocol::Status& s, bool json) {
  if (json) {
    nlohmann::json doc = nlohmann::json::array();
    for (const auto& p : s.partitions) doc.push_back({{"partition", p.name}, {"policy", p.policy}});
    std::cout << doc.dump(2) << "\n";
    return;
  }
  for (const auto& p : s.partitions) std::cout << p.name << " " << p.policy << "\n";
}

void print_plan(const los::protocol::Plan& p, bool json) {
  if (json) {
    nlohmann::json slots = nlohmann::json::array(), reservations = nlohmann::json::array();
    for (const auto& s : p.slots) slots.push_back({{"start", s.start}, {"end", epoch(s.end)}, {"free", s.free}});
    for (const auto& r : p.reservations) reservations.push_back({{"job", r.job}, {"start", r.start}});
    const nlohmann::json doc = {{"partition", p.partition}, {"policy", p.policy}, {"now", p.now},
                                {"has_plan", p.has_plan},   {"slots", slots},     {"reservations", reservations}};
    std::cout << doc.dump(2) << "\n";
    return;
  }
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
}

void print_starts(const std::vector<los::protocol::PredictedStart>& starts, std::optional<long long> user, bool json) {
  const auto kind = [](const los::protocol::PredictedStart& s) -> std::string {
    return s.reserved ? "reserved" : s.start >= los::kTimeInfinity ? "-" : "forecast";
  };
  nlohmann::json doc = nlohmann::json::array();
  if (!json) {
    std::cout << std::right << std::setw(12) << "JOBID"
              << "  " << std::left << std::setw(14) << "PARTITION" << std::right << std::setw(9) << "USER"
              << std::setw(7) << "NODES"
              << "  " << std::left << std::setw(21) << "SUBMIT" << std::setw(21) << "START_TIME"
              << "KIND\n";
  }
  for (const auto& s : starts) {
    if (user && s.user != *user) continue;
    // PrivateData=users: losd hides other users' uids.
    const bool hidden = s.user == static_cast<int>(LOS_USER_HIDDEN);
    const std::string name = hidden ? "-" : user_name(s.user);
    if (json) {
      doc.push_back(
          {{"job", s.job},
           {"partition", s.partition},
           {"uid", hidden ? nlohmann::json() : nlohmann::json(s.user)},
           {"user", hidden ? nlohmann::json() : nlohmann::json(name)},
           {"nodes", s.size},
           {"submit", s.submit},
           {"start", epoch(s.start)},
           {"kind", s.start >= los::kTimeInfinity && !s.reserved ? nlohmann::json() : nlohmann::json(kind(s))}});
      continue;
    }
    std::cout << std::right << std::setw(12) << s.job << "  " << std::left << std::setw(14) << s.partition << std::right
              << std::setw(9) << name << std::setw(7) << s.size << "  " << std::left << std::setw(21) << when(s.submit)
              << std::setw(21) << when(s.start) << kind(s) << "\n";
  }
  if (json) std::cout << doc.dump(2) << "\n";
}

int run(const Options& o) {
  using namespace los::protocol;
  const auto ms = std::chrono::milliseconds(static_cast<long long>(o.timeout * 1000));
  try {
    Client client(o.command == "set-policy" ? o.admin_path : o.query_path, ms);
    client.hello("losctl");
    if (o.command == "status") {
      print_status(decode_status(client.request(encode_query_status()).payload), o.json);
    } else if (o.command == "policies") {
      print_policies(decode_status(client.request(encode_query_status()).payload), o.json);
    } else if (o.command == "plan") {
      print_plan(decode_plan(client.request(encode_query_plan(o.partition)).payload), o.json);
    } else if (o.command == "starts") {
      print_starts(decode_starts(client.request(encode_query_starts(o.partition)).payload), o.user, o.json);
    } else if (o.command == "set-policy") {
      const SetPolicyOk ok = decode_set_policy_ok(client.request(encode(SetPolicy{o.partition, o.policy})).payload);
      if (o.json) {
        std::cout << nlohmann::json{{"partition", ok.partition}, {"policy", ok.policy}}.dump(2) << "\n";
      } else {
        std::cout << "partition " << ok.partition << " now runs " << ok.policy << "\n";
      }
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

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    if (!parse(argc, argv, o)) return 0;
  } catch (const los::UsageError& e) {
    std::cerr << "losctl: " << e.what() << "\n";
    return 2;
  }
  return run(o);
}
