#include "generate.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "util/cli.hpp"
#include "util/parse.hpp"
#include "workload/models.hpp"

namespace {

constexpr const char* kUsageHead = R"(NAME
    los-sim generate - write a synthetic workload from a workload model as SWF

SYNOPSIS
    los-sim generate MODEL[:KEY=VALUE]... [--jobs N] [--nodes N] [--seed S] -o FILE
    los-sim generate --help

DESCRIPTION
    Draws a workload from one of the models below and writes it in the
    Standard Workload Format. The output depends only on the arguments: the
    same model, keys, --jobs, --nodes and --seed give a byte-identical file
    (the generators use their own samplers over std::mt19937_64, not the
    standard library's distributions). The file's header records the model
    with every key spelled out, and the command that regenerates it.

    The same models can be simulated without a file: give los-sim the
    workload argument model:MODEL[:KEY=VALUE]..., for example
        los-sim --policy easy model:lublin:jobs=5000:nodes=128:seed=3

    Moldable jobs (cirne-moldable) carry the requests they offer on a comment
    line just before their job line, and cancellations (cirne, cirne-moldable)
    likewise; plain SWF readers skip both as comments:
        ; MOLDABLE <job> <nodes>:<requested time>:<run time> ...
        ; CANCEL <job> <seconds after submission>
    docs/workload-models.md describes every model parameter, every open choice
    and its default, and these extensions.

MODELS
)";

constexpr const char* kUsageTail = R"(
OPTIONS
    --jobs N         Number of jobs (default 10000); the same as the key jobs=N.
    --nodes N        Machine size P in nodes (default 128 for lublin, 500 for
                     cirne and cirne-moldable); the same as nodes=N.
    --seed S         Random seed, 0 to 2^63-1 (default 1); the same as seed=S.
    -o, --output FILE
                     Where to write the SWF; "-" writes to standard output.
                     Required.
    --version        Print the version and exit.
    -h, --help       This text.

EXIT STATUS
    0 success; 1 the output cannot be written; 2 bad usage (unknown model,
    key or option, or a value out of range; the message names it).

EXAMPLES
    los-sim generate lublin --jobs 300 --nodes 128 --seed 1 -o conf/workloads/demo-lublin-128.swf
    los-sim generate lublin:parameters=batch-interactive --jobs 10000 --seed 71 -o lublin71.swf
    los-sim generate cirne:arrival=sdsc:load=2 --nodes 500 --seed 5 -o cirne.swf
    los-sim generate cirne-moldable --jobs 10000 --seed 9 -o moldable.swf

SEE ALSO
    los-sim(1)
)";

void set_key(los::ModelSpec& spec, const std::string& option, const std::string& key, const std::string& value) {
  if (spec.params.count(key)) {
    throw los::UsageError(option + ": the model already sets " + key + "=" + spec.params[key]);
  }
  spec.params[key] = value;
}

}  // namespace

int run_generate(int argc, char** argv) {
  return los::run_cli("los-sim generate", [&] {
    std::string model;
    std::string output;
    std::vector<std::pair<std::string, std::string>> keys;  // from --jobs / --nodes / --seed
    los::CommandLine cli("los-sim generate", std::string(kUsageHead) + los::model_catalog() + kUsageTail);
    CLI::App& app = cli.app();
    const auto model_key = [&](const std::string& name, long long min, long long max) {
      app.add_option_function<std::string>("--" + name, [&keys, name, min, max](const std::string& v) {
        keys.emplace_back(name, std::to_string(los::parse_integer("--" + name, v, min, max)));
      });
    };
    model_key("jobs", 1, 100000000);
    model_key("nodes", 1, 100000000);
    model_key("seed", 0, 0x7FFFFFFFFFFFFFFFLL);
    app.add_option("-o,--output", output);
    app.add_option("MODEL", model);
    // argv[1] is "generate".
    if (!cli.parse(argc - 1, argv + 1)) return 0;
    if (model.empty()) throw los::UsageError("no model given (lublin, cirne or cirne-moldable; see --help)");
    if (output.empty()) throw los::UsageError("no output file given (-o FILE, or -o - for standard output)");
    los::ModelSpec spec = los::parse_model_spec(model);
    for (const auto& [key, v] : keys) set_key(spec, "--" + key, key, v);
    const los::GeneratedWorkload g = los::generate_model(spec);

    // Written whole, so a failed run leaves no half file behind a good name.
    std::ostringstream text;
    los::write_generated_swf(text, g);
    if (output == "-") {
      std::cout << text.str();
      std::cout.flush();
      if (!std::cout) throw los::WorkloadError("standard output: write failed");
      return 0;
    }
    const std::string temp = output + ".tmp";
    {
      std::ofstream out(temp, std::ios::binary);
      if (!out) throw los::WorkloadError(output + ": cannot open for writing");
      out << text.str();
      out.close();
      if (!out) {
        std::remove(temp.c_str());
        throw los::WorkloadError(output + ": write failed");
      }
    }
    if (std::rename(temp.c_str(), output.c_str()) != 0) {
      std::remove(temp.c_str());
      throw los::WorkloadError(output + ": cannot write (rename from " + temp + " failed)");
    }
    return 0;
  });
}
