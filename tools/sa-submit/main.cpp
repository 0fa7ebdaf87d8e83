// sa-submit: submit a moldable job with the request shape that finishes
// first (SA), reading the partition's availability list from losd.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol/client.hpp"
#include "sa/shape_spec.hpp"
#include "sbatch_script.hpp"
#include "util/cli.hpp"
#include "util/clock.hpp"
#include "util/parse.hpp"
#include "util/process.hpp"
#include "util/slurm_commands.hpp"

namespace {

constexpr const char* kUsage = R"(NAME
    sa-submit - submit a moldable job with the shape that finishes first

SYNOPSIS
    sa-submit [OPTIONS] [SBATCH OPTIONS] -s NODESxTIME [-s NODESxTIME ...] [--] SCRIPT [ARGS...]

DESCRIPTION
    A moldable job can run on different numbers of nodes, for different
    times. Give each request shape with -s; sa-submit asks losd, the LOS
    scheduling daemon, for the partition's availability list (free nodes over
    time, under the policy that schedules the partition), finds where each
    shape would first fit, and submits the one whose expected completion
    (first fit + its time limit) is earliest, with
        sbatch --partition P --nodes N --time TIME [SBATCH OPTIONS] SCRIPT [ARGS...]
    sbatch replaces sa-submit, so its output and exit status are the job's
    submission's. This is SA (Cirne's Supercomputer AppLeS; docs/sa.md).
    Ties: the least nodes x time, then the fewest nodes, then the shape given
    first.

    Under conservative backfilling (and tabu:safe) the availability list holds
    every reservation, and the choice is exact; under other policies it is an
    estimate. Whatever the choice, Slurm and losd then schedule the job as any
    other.

    The partition is, in this order: -p; SBATCH_PARTITION in the environment;
    an #SBATCH -p line of the script; Slurm's default partition (the one
    "scontrol show partition" marks Default=YES); else the only partition
    losd schedules. sbatch reads the script's #SBATCH lines itself (the
    leading block, before the first command); the options sa-submit passes
    win over them, so an #SBATCH --nodes or --time is replaced by the shape
    chosen (sa-submit says so).

OPTIONS
    -s, --shape NODESxTIME
                Nodes and time limit of one request, e.g. 8x30 (8 nodes, 30
                minutes) or 64x1-12:00:00. TIME takes Slurm's --time formats:
                M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. At least one.
    -p, --partition NAME
                Partition to submit to (default: see DESCRIPTION).
    --socket PATH
                losd's query socket (default: /run/los/query.sock).
    --timeout SECONDS
                Give up on losd after this long (default: 10).
    --sbatch PATH
                The sbatch to run (default: sbatch, from PATH).
    --sbatch-option ARG
                One more argument for sbatch, before the script, e.g.
                --sbatch-option=--exclusive=user (repeatable; an ARG that
                starts with '-' needs the '=' form).
    --if-unavailable fail|first
                When losd cannot be reached or the partition's policy keeps
                no availability profile: fail (default; exit 3) or submit the
                first shape.
    -n, --dry-run
                Print the choice and the sbatch command (shell-quoted, ready
                to paste); submit nothing.
    --json      Print the choice as one JSON document on standard output
                (docs/sa.md, "sa-submit --json"): the partition, every
                shape's predicted start and end, the shape chosen, the sbatch
                command and, once submitted, the job id (sbatch then runs
                with --parsable and its exit status is sa-submit's).
    --version   Print the version and exit.
    -h, --help  This text.

    The choice goes to standard error: every shape with its first fit and
    expected completion (with the time from now in Slurm's
    [days-]hours:minutes:seconds), and the one chosen.

SBATCH OPTIONS
    These sbatch options go to sbatch as given (see sbatch(1)), each one
    as --NAME=VALUE: job-name (-J), output (-o), error (-e), input (-i),
    account (-A), qos (-q), mail-type, mail-user, chdir (-D), export,
    reservation, dependency (-d), constraint (-C), comment, begin, deadline,
    licenses (-L), gres, wckey, signal, open-mode, exclude (-x), array (-a),
    cpus-per-task (-c), ntasks, ntasks-per-node, mem; and the flags
    exclusive, parsable, hold (-H), requeue and no-requeue. Any other sbatch
    option goes through --sbatch-option. sbatch's --nodes (-N) and --time
    (-t) are refused: the shapes set them.

EXIT STATUS
    sbatch's exit status when it runs; 0 after --dry-run; 1 losd refused the
    request (e.g. no such partition) or no shape ever fits the partition;
    2 bad usage; 3 losd unavailable (with --if-unavailable fail).

EXAMPLES
    sa-submit -p batch -s 4x2:00:00 -s 16x40 -s 64x15 -- ./solver.sh input.dat
    sa-submit -J sweep -o 'out/%j.log' -s 8x30 -s 32x10 --dry-run job.sh

SEE ALSO
    sbatch(1), losctl(1), losd(8)
)";

extern "C" char** environ;

struct Options {
  std::vector<los::ShapeSpec> shapes;
  std::string partition;
  std::string socket = "/run/los/query.sock";
  double timeout = 10;
  std::string sbatch = "sbatch";
  std::vector<std::string> sbatch_options;  // passed through, in command-line order
  bool first_if_unavailable = false;
  bool dry_run = false;
  bool json = false;
  std::vector<std::string> command;  // script and its arguments
};

// sbatch options sa-submit passes through as given: short name (or ""),
// long name, whether it takes a value.
struct SbatchOption {
  const char* short_name;
  const char* long_name;
  bool takes_value;
};
constexpr SbatchOption kSbatchOptions[] = {
    {"-J", "--job-name", true},   {"-o", "--output", true},        {"-e", "--error", true},
    {"-i", "--input", true},      {"-A", "--account", true},       {"-q", "--qos", true},
    {"", "--mail-type", true},    {"", "--mail-user", true},       {"-D", "--chdir", true},
    {"", "--export", true},       {"", "--reservation", true},     {"-d", "--dependency", true},
    {"-C", "--constraint", true}, {"", "--comment", true},         {"", "--begin", true},
    {"", "--deadline", true},     {"-L", "--licenses", true},      {"", "--gres", true},
    {"", "--wckey", true},        {"", "--signal", true},          {"", "--open-mode", true},
    {"-x", "--exclude", true},    {"-a", "--array", true},         {"-c", "--cpus-per-task", true},
    {"", "--ntasks", true},       {"", "--ntasks-per-node", true}, {"", "--mem", true},
    {"", "--exclusive", false},   {"", "--parsable", false},       {"-H", "--hold", false},
    {"", "--requeue", false},     {"", "--no-requeue", false},
};

// Parses the command line; false after --help or --version.
bool parse(int argc, char** argv, Options& o) {
  los::CommandLine cli("sa-submit", kUsage);
  CLI::App& app = cli.app();
  // Everything from the script on is the job's: sbatch SCRIPT ARGS...
  app.prefix_command();
  cli.add_repeated("-s,--shape", [&](const std::string& v) {
    try {
      o.shapes.push_back(los::parse_shape_spec(v));
    } catch (const std::invalid_argument& e) {
      throw los::UsageError(std::string("--shape: ") + e.what());
    }
  });
  app.add_option_function<std::string>("-p,--partition", [&](const std::string& v) {
    if (v.empty()) throw los::UsageError("--partition: empty name");
    o.partition = v;
  });
  app.add_option("--socket", o.socket);
  app.add_option_function<std::string>(
      "--timeout", [&](const std::string& v) { o.timeout = los::parse_number("--timeout", v, 0.001, 3600); });
  app.add_option("--sbatch", o.sbatch);
  cli.add_repeated("--sbatch-option", [&](const std::string& v) { o.sbatch_options.push_back(v); });
  app.add_option_function<std::string>("--if-unavailable", [&](const std::string& v) {
    if (v != "fail" && v != "first") throw los::UsageError("--if-unavailable: '" + v + "' is not fail or first");
    o.first_if_unavailable = v == "first";
  });
  app.add_flag("-n,--dry-run", o.dry_run);
  app.add_flag("--json", o.json);
  for (const SbatchOption& s : kSbatchOptions) {
    const std::string names = std::string(s.short_name) + (*s.short_name ? "," : "") + s.long_name;
    const std::string long_name = s.long_name;
    if (s.takes_value) {
      cli.add_repeated(names,
                       [&o, long_name](const std::string& v) { o.sbatch_options.push_back(long_name + "=" + v); });
    } else {
      app.add_flag_callback(names, [&o, long_name] { o.sbatch_options.push_back(long_name); });
    }
  }
  for (const char* names : {"-N,--nodes", "-t,--time"}) {
    const std::string name = std::string(names).substr(3);
    cli.add_repeated(names, [name](const std::string&) {
      throw los::UsageError(name + ": sa-submit sets it from the shape chosen; give the shapes with -s NODESxTIME");
    });
  }
  if (!cli.parse(argc, argv)) return false;
  o.command = app.remaining();
  if (!o.command.empty() && o.command.front() == "--") {
    o.command.erase(o.command.begin());
  } else if (!o.command.empty() && o.command.front().size() > 1 && o.command.front()[0] == '-') {
    throw los::UsageError(cli.usage_hint("unknown option '" + o.command.front() + "'"));
  }
  if (o.shapes.empty()) throw los::UsageError(cli.usage_hint("no shape given (-s NODESxTIME)"));
  if (o.command.empty()) throw los::UsageError(cli.usage_hint("no job script given"));
  return true;
}

std::string clock_time(los::Time t) { return t >= los::kTimeInfinity ? "never" : los::local_time(t); }

// The script's #SBATCH options (none when it cannot be read: sbatch will say why).
std::vector<std::string> script_options(const Options& o) {
  std::ifstream script(o.command.front());
  if (!script) return {};
  return los::sbatch_script_options(script);
}

// The partition to plan for and submit to, and where it came from; "" when
// only losd can tell (its only partition).
std::string choose_partition(const Options& o, const std::vector<std::string>& script, std::string& source) {
  if (!o.partition.empty()) {
    source = "-p";
    return o.partition;
  }
  if (const char* env = std::getenv("SBATCH_PARTITION"); env && *env) {
    source = "SBATCH_PARTITION";
    return env;
  }
  if (std::string p = los::sbatch_option_value(script, "--partition", "-p"); !p.empty()) {
    source = "#SBATCH in " + o.command.front();
    return p;
  }
  if (std::string p = los::slurm_default_partition(); !p.empty()) {
    source = "Slurm's default partition";
    return p;
  }
  return "";
}

// What losd says: the partition it resolved, its policy and the list.
struct Availability {
  std::string partition;
  std::string policy;
  los::Time now = 0;
  std::vector<los::AvailabilitySlot> slots;
};

class Unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Availability ask_losd(const Options& o, std::string partition) {
  using namespace los::protocol;
  std::optional<Client> client;
  try {
    client.emplace(o.socket, std::chrono::milliseconds(static_cast<long long>(o.timeout * 1000)));
    client->hello("sa-submit");
  } catch (const ClientError& e) {
    throw Unavailable(e.what());
  }
  if (partition.empty()) {
    const Status s = decode_status(client->request(encode_query_status()).payload);
    if (s.partitions.size() != 1) {
      std::string names;
      for (const auto& p : s.partitions) names += (names.empty() ? "" : ", ") + p.name;
      throw los::UsageError("Slurm names no default partition and losd schedules " +
                            std::to_string(s.partitions.size()) + " partitions (" + names +
                            "): choose one with --partition (see sa-submit --help)");
    }
    partition = s.partitions.front().name;
  }
  const Plan p = decode_plan(client->request(encode_query_plan(partition)).payload);
  if (!p.has_plan) {
    throw Unavailable("partition " + partition + "'s policy " + p.policy + " keeps no availability profile");
  }
  Availability a{p.partition, p.policy, p.now, {}};
  for (const auto& s : p.slots) a.slots.push_back({s.start, s.end, s.free});
  return a;
}

// The JSON document of --json, filled in as sa-submit goes.
nlohmann::json epoch(los::Time t) { return t >= los::kTimeInfinity ? nlohmann::json() : nlohmann::json(t); }

std::vector<std::string> sbatch_command(const Options& o, const std::string& partition, const los::ShapeSpec& shape) {
  std::vector<std::string> args{o.sbatch};
  if (!partition.empty()) args.insert(args.end(), {"--partition", partition});
  args.insert(args.end(), {"--nodes", std::to_string(shape.shape.nodes), "--time", shape.time_text});
  args.insert(args.end(), o.sbatch_options.begin(), o.sbatch_options.end());
  if (o.json && !o.dry_run) args.push_back("--parsable");  // the job id for the document
  args.insert(args.end(), o.command.begin(), o.command.end());
  return args;
}

int submit(const Options& o, const std::string& partition, const los::ShapeSpec& shape, nlohmann::json& doc) {
  std::vector<std::string> args = sbatch_command(o, partition, shape);
  const std::string line = los::shell_command(args);
  std::cerr << "sa-submit: " << (o.dry_run ? "would run: " : "running: ") << line << "\n";
  doc["sbatch_command"] = args;
  doc["sbatch_command_line"] = line;
  doc["submitted"] = false;
  doc["job_id"] = nullptr;
  if (o.dry_run) {
    if (o.json) std::cout << doc.dump(2) << "\n";
    return 0;
  }
  if (o.json) {
    // sbatch --parsable prints "JOBID" or "JOBID;CLUSTER".
    const los::Captured c = los::run_capturing(args);
    if (c.status < 0) {
      std::cerr << "sa-submit: cannot run " << o.sbatch << "\n";
      return 1;
    }
    doc["sbatch_exit_status"] = c.status;
    const std::string id = c.output.substr(0, c.output.find_first_of(";\n"));
    if (c.status == 0 && !id.empty() && id.find_first_not_of("0123456789") == std::string::npos) {
      doc["submitted"] = true;
      doc["job_id"] = std::stoll(id);
    }
    std::cout << doc.dump(2) << "\n";
    return c.status;
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  std::cerr << "sa-submit: cannot run " << o.sbatch << ": " << std::strerror(errno) << "\n";
  return 1;
}

// The script's #SBATCH options the shape replaces.
void note_overridden(const Options& o, const std::vector<std::string>& script) {
  for (const auto& [long_name, short_name] : {std::pair{"--nodes", "-N"}, std::pair{"--time", "-t"}}) {
    const std::string v = los::sbatch_option_value(script, long_name, short_name);
    if (!v.empty() && !o.json) {
      std::cerr << "sa-submit: " << o.command.front() << ": #SBATCH " << long_name << "=" << v
                << " is replaced by the shape chosen\n";
    }
  }
}

int run(const Options& o) {
  const std::vector<std::string> script = script_options(o);
  std::string source;
  const std::string partition = choose_partition(o, script, source);
  note_overridden(o, script);
  nlohmann::json doc = {{"partition", partition.empty() ? nlohmann::json() : nlohmann::json(partition)},
                        {"partition_from", source.empty() ? "losd's only partition" : source},
                        {"dry_run", o.dry_run}};

  Availability a;
  try {
    a = ask_losd(o, partition);
  } catch (const Unavailable& e) {
    if (!o.first_if_unavailable) {
      std::cerr << "sa-submit: losd unavailable: " << e.what()
                << " (--if-unavailable first submits the first shape instead)\n";
      return 3;
    }
    std::cerr << "sa-submit: losd unavailable: " << e.what() << "; submitting the first shape\n";
    doc["losd_unavailable"] = e.what();
    doc["chosen"] = 0;
    return submit(o, partition, o.shapes.front(), doc);
  } catch (const los::protocol::RemoteError& e) {
    std::cerr << "sa-submit: losd: " << e.what() << "\n";
    return 1;
  } catch (const los::UsageError&) {
    throw;
  } catch (const std::exception& e) {
    std::cerr << "sa-submit: losd unavailable: " << e.what() << "\n";
    return 3;
  }

  // The list is as of losd's latest snapshot; nothing can start before now.
  const los::Time now = std::max<los::Time>(a.now, static_cast<los::Time>(std::time(nullptr)));
  std::vector<los::Shape> shapes;
  for (const auto& s : o.shapes) shapes.push_back(s.shape);
  const std::vector<los::ShapeFit> fits = los::fit_shapes(a.slots, shapes, now);
  const std::optional<los::ShapeChoice> choice = los::choose_among(shapes, fits);
  doc["partition"] = a.partition;
  doc["policy"] = a.policy;
  doc["now"] = now;
  doc["shapes"] = nlohmann::json::array();
  if (!o.json) {
    std::cerr << "sa-submit: partition " << a.partition << " (" << a.policy << "), as of " << clock_time(now) << "\n";
  }
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const bool fits_ever = fits[i].start < los::kTimeInfinity;
    doc["shapes"].push_back(
        {{"nodes", shapes[i].nodes},
         {"time_limit", los::slurm_duration(shapes[i].request)},
         {"time_limit_s", shapes[i].request},
         {"start", epoch(fits[i].start)},
         {"end", epoch(fits[i].completion)},
         {"start_in", fits_ever ? nlohmann::json(los::slurm_duration(fits[i].start - now)) : nullptr},
         {"end_in", fits_ever ? nlohmann::json(los::slurm_duration(fits[i].completion - now)) : nullptr},
         {"chosen", choice && choice->index == i}});
    if (o.json) continue;
    std::cerr << "  " << (choice && choice->index == i ? "* " : "  ") << shapes[i].nodes << " nodes x "
              << los::slurm_duration(shapes[i].request) << ": start " << clock_time(fits[i].start);
    if (fits_ever) {
      std::cerr << " (in " << los::slurm_duration(fits[i].start - now) << "), end " << clock_time(fits[i].completion)
                << " (in " << los::slurm_duration(fits[i].completion - now) << ")";
    }
    std::cerr << "\n";
  }
  if (!choice) {
    std::cerr << "sa-submit: no shape ever fits partition " << a.partition << " (too many nodes)\n";
    if (o.json) {
      doc["chosen"] = nullptr;
      doc["submitted"] = false;
      doc["job_id"] = nullptr;
      std::cout << doc.dump(2) << "\n";
    }
    return 1;
  }
  doc["chosen"] = choice->index;
  return submit(o, a.partition, o.shapes[choice->index], doc);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    if (!parse(argc, argv, o)) return 0;
    return run(o);
  } catch (const los::UsageError& e) {
    std::cerr << "sa-submit: " << e.what() << "\n";
    return 2;
  }
}
