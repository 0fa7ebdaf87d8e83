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
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "protocol/client.hpp"
#include "sa/shape_spec.hpp"
#include "util/clock.hpp"
#include "util/parse.hpp"

namespace {

constexpr const char* kUsage = R"(NAME
    sa-submit - submit a moldable job with the shape that finishes first

SYNOPSIS
    sa-submit [OPTIONS] -s NODESxTIME [-s NODESxTIME ...] [--] SCRIPT [ARGS...]

DESCRIPTION
    A moldable job can run on different numbers of nodes, for different
    times. Give each request shape with -s; sa-submit asks losd, the LOS
    scheduling daemon, for the partition's availability list (free nodes over
    time, under the policy that schedules the partition), finds where each
    shape would first fit, and submits the one whose expected completion
    (first fit + its time limit) is earliest, with
        sbatch --partition P --nodes N --time TIME [--sbatch-option ...] SCRIPT [ARGS...]
    sbatch replaces sa-submit, so its output and exit status are the job's
    submission's. This is SA (Cirne's Supercomputer AppLeS; docs/sa.md).
    Ties: the least nodes x time, then the fewest nodes, then the shape given
    first.

    Under conservative backfilling (and tabu:safe) the availability list holds
    every reservation, and the choice is exact; under other policies it is an
    estimate. Whatever the choice, Slurm and losd then schedule the job as any
    other.

OPTIONS
    -s, --shape NODESxTIME
                Nodes and time limit of one request, e.g. 8x30 (8 nodes, 30
                minutes) or 64x1-12:00:00. TIME takes Slurm's --time formats:
                M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. At least one.
    -p, --partition NAME
                Partition to submit to (default: the only partition losd
                schedules; required when it schedules several).
    --socket PATH
                losd's query socket (default: /run/los/query.sock).
    --timeout SECONDS
                Give up on losd after this long (default: 10).
    --sbatch PATH
                The sbatch to run (default: sbatch, from PATH).
    --sbatch-option ARG
                One more argument for sbatch, before the script, e.g.
                --sbatch-option=--job-name=sweep (repeatable).
    --if-unavailable fail|first
                When losd cannot be reached or the partition's policy keeps
                no availability profile: fail (default; exit 3) or submit the
                first shape.
    -n, --dry-run
                Print the choice and the sbatch command; submit nothing.
    -h, --help  This text.

    The choice goes to standard error: every shape with its first fit and
    expected completion, and the one chosen.

EXIT STATUS
    sbatch's exit status when it runs; 0 after --dry-run; 1 losd refused the
    request (e.g. no such partition) or no shape ever fits the partition;
    2 bad usage; 3 losd unavailable (with --if-unavailable fail).

EXAMPLE
    sa-submit -p batch -s 4x2:00:00 -s 16x40 -s 64x15 -- ./solver.sh input.dat
)";

class Usage : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<los::ShapeSpec> shapes;
  std::string partition;
  std::string socket = "/run/los/query.sock";
  double timeout = 10;
  std::string sbatch = "sbatch";
  std::vector<std::string> sbatch_options;
  bool first_if_unavailable = false;
  bool dry_run = false;
  std::vector<std::string> command;  // script and its arguments
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string inline_value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
      inline_value = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      has_inline = true;
    }
    auto value = [&]() -> std::string {
      if (has_inline) return inline_value;
      if (i + 1 >= argc) throw Usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "-s" || a == "--shape") {
      try {
        o.shapes.push_back(los::parse_shape_spec(value()));
      } catch (const std::invalid_argument& e) {
        throw Usage(std::string("--shape: ") + e.what());
      }
    } else if (a == "-p" || a == "--partition") {
      o.partition = value();
      if (o.partition.empty()) throw Usage("--partition: empty name");
    } else if (a == "--socket") {
      o.socket = value();
    } else if (a == "--timeout") {
      o.timeout = los::parse_number("--timeout", value(), 0.001, 3600);
    } else if (a == "--sbatch") {
      o.sbatch = value();
    } else if (a == "--sbatch-option") {
      o.sbatch_options.push_back(value());
    } else if (a == "--if-unavailable") {
      const std::string v = value();
      if (v != "fail" && v != "first") throw Usage("--if-unavailable: '" + v + "' is not fail or first");
      o.first_if_unavailable = v == "first";
    } else if (a == "-n" || a == "--dry-run") {
      o.dry_run = true;
    } else if (a == "--") {
      for (++i; i < argc; ++i) o.command.push_back(argv[i]);
    } else if (!a.empty() && a[0] == '-' && o.command.empty()) {
      throw Usage("unknown option '" + a + "'");
    } else {
      for (; i < argc; ++i) o.command.push_back(argv[i]);  // the script and its arguments, as given
    }
  }
  if (o.shapes.empty()) throw Usage("no shape given (-s NODESxTIME)");
  if (o.command.empty()) throw Usage("no job script given");
  return o;
}

std::string clock_time(los::Time t) { return t >= los::kTimeInfinity ? "never" : los::local_time(t); }

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

Availability ask_losd(const Options& o) {
  using namespace los::protocol;
  std::optional<Client> client;
  try {
    client.emplace(o.socket, std::chrono::milliseconds(static_cast<long long>(o.timeout * 1000)));
    client->hello("sa-submit");
  } catch (const ClientError& e) {
    throw Unavailable(e.what());
  }
  std::string partition = o.partition;
  if (partition.empty()) {
    const Status s = decode_status(client->request(encode_query_status()).payload);
    if (s.partitions.size() != 1) {
      std::string names;
      for (const auto& p : s.partitions) names += (names.empty() ? "" : ", ") + p.name;
      throw Usage("losd schedules " + std::to_string(s.partitions.size()) + " partitions (" + names +
                  "): choose one with --partition");
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

int submit(const Options& o, const std::string& partition, const los::ShapeSpec& shape) {
  std::vector<std::string> args{o.sbatch};
  if (!partition.empty()) args.insert(args.end(), {"--partition", partition});
  args.insert(args.end(), {"--nodes", std::to_string(shape.shape.nodes), "--time", shape.time_text});
  args.insert(args.end(), o.sbatch_options.begin(), o.sbatch_options.end());
  args.insert(args.end(), o.command.begin(), o.command.end());
  std::string line;
  for (const std::string& a : args) line += (line.empty() ? "" : " ") + a;
  std::cerr << "sa-submit: " << (o.dry_run ? "would run: " : "running: ") << line << "\n";
  if (o.dry_run) return 0;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  std::cerr << "sa-submit: cannot run " << o.sbatch << ": " << std::strerror(errno) << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const Usage& u) {
    std::cerr << "sa-submit: " << u.what() << " (see sa-submit --help)\n";
    return 2;
  } catch (const los::UsageError& u) {
    std::cerr << "sa-submit: " << u.what() << " (see sa-submit --help)\n";
    return 2;
  }

  Availability a;
  try {
    a = ask_losd(o);
  } catch (const Usage& u) {
    std::cerr << "sa-submit: " << u.what() << " (see sa-submit --help)\n";
    return 2;
  } catch (const Unavailable& e) {
    if (!o.first_if_unavailable) {
      std::cerr << "sa-submit: losd unavailable: " << e.what()
                << " (--if-unavailable first submits the first shape instead)\n";
      return 3;
    }
    std::cerr << "sa-submit: losd unavailable: " << e.what() << "; submitting the first shape\n";
    return submit(o, o.partition, o.shapes.front());
  } catch (const los::protocol::RemoteError& e) {
    std::cerr << "sa-submit: losd: " << e.what() << "\n";
    return 1;
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
  std::cerr << "sa-submit: partition " << a.partition << " (" << a.policy << "), as of " << clock_time(now) << "\n";
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    std::cerr << "  " << (choice && choice->index == i ? "* " : "  ") << o.shapes[i].shape.nodes << " nodes x "
              << o.shapes[i].time_text << ": start " << clock_time(fits[i].start);
    if (fits[i].start < los::kTimeInfinity) {
      std::cerr << " (+" << fits[i].start - now << " s), completion " << clock_time(fits[i].completion) << " (+"
                << fits[i].completion - now << " s)";
    }
    std::cerr << "\n";
  }
  if (!choice) {
    std::cerr << "sa-submit: no shape ever fits partition " << a.partition << " (too many nodes)\n";
    return 1;
  }
  return submit(o, a.partition, o.shapes[choice->index]);
}
