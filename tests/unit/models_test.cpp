// Workload models by name: spec parsing, the SWF they write (byte-identical
// for the same spec, readable as plain SWF, with the MOLDABLE / CANCEL
// extension lines) and the los-sim generate command.
#include "workload/models.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "workload/cirne.hpp"

namespace los {
namespace {

std::string swf_text(const std::string& spec) {
  std::ostringstream out;
  write_generated_swf(out, generate_model(parse_model_spec(spec)));
  return out.str();
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const std::string& spec) {
  try {
    generate_model(parse_model_spec(spec));
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

TEST(Models, SameSpecSameBytes) {
  for (const std::string spec : {"lublin:jobs=500:seed=3", "lublin:jobs=500:parameters=batch-interactive:seed=3",
                                 "cirne:jobs=500:seed=3", "cirne-moldable:jobs=500:seed=3"}) {
    const std::string a = swf_text(spec);
    EXPECT_EQ(a, swf_text(spec)) << spec;
    EXPECT_NE(a, swf_text(spec.substr(0, spec.size() - 1) + "4")) << spec;  // seed 4
  }
  // Defaults spelled out, keys reordered, a number typed differently: the same workload.
  EXPECT_EQ(swf_text("lublin:seed=3:jobs=50"), swf_text("lublin:jobs=50:seed=3:arrival-scale=1.0:nodes=128"));
}

TEST(Models, BadSpecsAreNamed) {
  EXPECT_NE(error_of("lublin:frobnicate=1").find("unknown key 'frobnicate'"), std::string::npos);
  EXPECT_NE(error_of("lublin:jobs=0").find("key 'jobs' must be in [1"), std::string::npos);
  EXPECT_NE(error_of("lublin:nodes=1").find("'nodes' must be at least 2"), std::string::npos);
  EXPECT_NE(error_of("cirne:load=abc").find("key 'load' must be a number"), std::string::npos);
  EXPECT_NE(error_of("cirne:cancel=maybe").find("truncate, ignore, drop"), std::string::npos);
  EXPECT_NE(error_of("cirne:spacing=log").find("unknown key 'spacing'"), std::string::npos);  // moldable only
  EXPECT_NE(error_of("poisson").find("unknown model 'poisson'"), std::string::npos);
  EXPECT_THROW(generate_model(parse_model_spec("lublin:jobs")), ModelError);  // a bare key is "true"
  EXPECT_THROW(parse_model_spec("lublin:jobs=1:jobs=2"), ModelError);
  EXPECT_THROW(parse_model_spec(":jobs=1"), ModelError);
}

// The SWF reader takes generated files as plain SWF: the extension lines are
// comments, the job lines the user requests.
TEST(Models, GeneratedSwfReadsBackAsPlainSwf) {
  for (const std::string spec :
       {"lublin:jobs=3000:seed=5", "cirne:jobs=3000:seed=5", "cirne-moldable:jobs=3000:seed=5"}) {
    const GeneratedWorkload g = generate_model(parse_model_spec(spec));
    std::ostringstream out;
    write_generated_swf(out, g);
    const Workload r = parse_swf(out.str(), spec);
    EXPECT_EQ(r.units, g.workload.units) << spec;
    EXPECT_EQ(r.cleaning.dropped(), 0u) << spec;
    ASSERT_EQ(r.jobs.size(), g.workload.jobs.size()) << spec;
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
      ASSERT_EQ(r.jobs[i].id, g.workload.jobs[i].id);
      ASSERT_EQ(r.jobs[i].submit, g.workload.jobs[i].submit);
      ASSERT_EQ(r.jobs[i].size, g.workload.jobs[i].size);
      ASSERT_EQ(r.jobs[i].runtime, g.workload.jobs[i].runtime);
      ASSERT_EQ(r.jobs[i].estimate, g.workload.jobs[i].estimate);
    }
  }
}

// Each MOLDABLE line comes right before its job's line and lists the job's
// requests; each CANCEL line likewise.
TEST(Models, ExtensionLinesPrecedeTheirJobs) {
  CirneOptions o;
  o.jobs = 2000;
  o.seed = 6;
  const CirneWorkload w = generate_cirne_moldable(o);
  std::istringstream in(swf_text("cirne-moldable:jobs=2000:seed=6"));
  std::string line;
  std::size_t job = 0, moldable_lines = 0, cancel_lines = 0;
  std::string pending_moldable, pending_cancel;
  while (std::getline(in, line)) {
    if (line.rfind("; MOLDABLE ", 0) == 0) {
      pending_moldable = line;
      ++moldable_lines;
    } else if (line.rfind("; CANCEL ", 0) == 0) {
      pending_cancel = line;
      ++cancel_lines;
    } else if (!line.empty() && line[0] != ';') {
      const std::string id = std::to_string(job + 1);
      std::string expected = "; MOLDABLE " + id;
      for (const MoldableRequest& q : w.moldable[job].requests) {
        expected += " " + std::to_string(q.nodes) + ":" + std::to_string(q.request) + ":" + std::to_string(q.runtime);
      }
      ASSERT_EQ(pending_moldable, expected);
      if (w.cancel_lag[job] >= 0) {
        ASSERT_EQ(pending_cancel, "; CANCEL " + id + " " + std::to_string(w.cancel_lag[job]));
      } else {
        ASSERT_EQ(pending_cancel, "");
      }
      ASSERT_EQ(line.substr(0, id.size() + 1), id + " ");
      pending_moldable.clear();
      pending_cancel.clear();
      ++job;
    }
  }
  EXPECT_EQ(job, 2000u);
  EXPECT_EQ(moldable_lines, 2000u);
  EXPECT_GT(cancel_lines, 200u);
}

// A consumer reading a generated file gets the requests and cancellations back.
TEST(Models, ExtensionsReadBackFromTheFile) {
  CirneOptions o;
  o.jobs = 3000;
  o.seed = 8;
  const CirneWorkload w = generate_cirne_moldable(o);
  const Workload r = parse_swf(swf_text("cirne-moldable:jobs=3000:seed=8"), "moldable.swf");
  const SwfExtensions x = read_swf_extensions(r);
  ASSERT_EQ(x.moldable.size(), 3000u);
  std::size_t cancelled = 0;
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const JobId id = r.jobs[i].id;
    ASSERT_EQ(x.moldable.at(id).size(), w.moldable[i].requests.size());
    for (std::size_t k = 0; k < w.moldable[i].requests.size(); ++k) {
      ASSERT_EQ(x.moldable.at(id)[k].nodes, w.moldable[i].requests[k].nodes);
      ASSERT_EQ(x.moldable.at(id)[k].request, w.moldable[i].requests[k].request);
      ASSERT_EQ(x.moldable.at(id)[k].runtime, w.moldable[i].requests[k].runtime);
    }
    if (w.cancel_lag[i] >= 0) {
      ASSERT_EQ(x.cancel_lag.at(id), w.cancel_lag[i]);
      ++cancelled;
    }
  }
  EXPECT_EQ(x.cancel_lag.size(), cancelled);
  // A plain trace has none; a malformed line is named.
  EXPECT_TRUE(read_swf_extensions(parse_swf("; MaxProcs: 4\n1 0 -1 5 1 -1 -1 1 9 -1 1 1 1 -1 -1 -1 -1 -1\n", "t"))
                  .moldable.empty());
  for (const char* bad :
       {"; MOLDABLE 1 4:x:1", "; MOLDABLE 1 4:10", "; CANCEL 1", "; CANCEL 1 -5", "; MOLDABLE 1 0:10:5"}) {
    const Workload m =
        parse_swf(std::string("; MaxProcs: 4\n") + bad + "\n1 0 -1 5 1 -1 -1 1 9 -1 1 1 1 -1 -1 -1 -1 -1\n", "m.swf");
    try {
      read_swf_extensions(m);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const WorkloadError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("m.swf: malformed extension line '") + bad), std::string::npos)
          << e.what();
    }
  }
}

TEST(Models, ModelWorkloadTakesDefaultNodes) {
  EXPECT_EQ(model_workload("lublin:jobs=10").units, 128);
  EXPECT_EQ(model_workload("lublin:jobs=10", 256).units, 256);
  EXPECT_EQ(model_workload("lublin:jobs=10:nodes=64", 256).units, 64);
  EXPECT_EQ(model_workload("cirne:jobs=10").units, 500);
  EXPECT_EQ(model_workload("lublin:jobs=10").source,
            "model:lublin:arrival-scale=1:estimates=exact:jobs=10:max-estimate=172800:nodes=128:parameters=typeless:phi=0.2:seed=1:start-hour=0");
}

// los-sim itself: the generate subcommand and model: workloads.
class LosSimGenerate : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = std::filesystem::path(LOS_BIN_DIR) / "los-sim";
    if (!std::filesystem::exists(bin_)) GTEST_SKIP() << "los-sim not built at " << bin_;
    dir_ = std::filesystem::temp_directory_path() / ("los-models-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  int run(const std::string& args, const std::string& stdout_file = "") {
    const std::string out = stdout_file.empty() ? "/dev/null" : (dir_ / stdout_file).string();
    const std::string cmd = bin_.string() + " " + args + " > " + out + " 2> " + (dir_ / "stderr").string();
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::filesystem::path bin_;
  std::filesystem::path dir_;
};

TEST_F(LosSimGenerate, SameArgumentsSameFile) {
  const std::string a = (dir_ / "a.swf").string();
  const std::string b = (dir_ / "b.swf").string();
  ASSERT_EQ(run("generate cirne-moldable --jobs 800 --nodes 256 --seed 4 -o " + a), 0);
  ASSERT_EQ(run("generate cirne-moldable:seed=4 --nodes 256 --jobs 800 -o " + b), 0);
  EXPECT_EQ(read_file(a), read_file(b));
  EXPECT_EQ(read_file(a), swf_text("cirne-moldable:jobs=800:nodes=256:seed=4"));
}

TEST_F(LosSimGenerate, ShippedDemoRegeneratesByteIdentically) {
  const std::filesystem::path demo =
      std::filesystem::path(LOS_SOURCE_DIR) / "conf" / "workloads" / "demo-lublin-128.swf";
  ASSERT_TRUE(std::filesystem::exists(demo)) << demo;
  const std::string out = (dir_ / "demo.swf").string();
  // The command docs/workload-models.md gives.
  ASSERT_EQ(run("generate lublin --jobs 300 --nodes 128 --seed 1 -o " + out), 0);
  EXPECT_EQ(read_file(out), read_file(demo));
  EXPECT_LT(std::filesystem::file_size(demo), 100u * 1024);
}

TEST_F(LosSimGenerate, UsageAndErrors) {
  ASSERT_EQ(run("generate --help", "help"), 0);
  const std::string help = read_file(dir_ / "help");
  for (const char* part : {"SYNOPSIS", "MODELS", "OPTIONS", "EXIT STATUS", "EXAMPLES", "cirne-moldable", "MOLDABLE"}) {
    EXPECT_NE(help.find(part), std::string::npos) << part;
  }
  EXPECT_EQ(run("generate lublin:bogus=1 -o " + (dir_ / "x.swf").string()), 2);
  EXPECT_NE(read_file(dir_ / "stderr").find("unknown key 'bogus'"), std::string::npos);
  EXPECT_EQ(run("generate lublin"), 2);  // no -o
  // Named once, by the command: "los-sim generate: no output file given ..."
  EXPECT_EQ(read_file(dir_ / "stderr").rfind("los-sim generate: no output file given (-o FILE", 0), 0u)
      << read_file(dir_ / "stderr");
  EXPECT_EQ(run("generate --jobs 0 lublin -o " + (dir_ / "x.swf").string()), 2);
  EXPECT_EQ(run("generate nosuchmodel -o " + (dir_ / "x.swf").string()), 2);
  EXPECT_EQ(run("generate lublin -o " + (dir_ / "no" / "such" / "dir.swf").string()), 1);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.swf"));
}

TEST_F(LosSimGenerate, SimulatesAModelDirectly) {
  ASSERT_EQ(run("--quiet --policy fcfs,easy --format json model:lublin:jobs=400:seed=2", "json"), 0);
  const std::string json = read_file(dir_ / "json");
  EXPECT_NE(json.find("\"workload\": \"model:lublin:jobs=400:seed=2\""), std::string::npos);
  // The same as simulating the generated file.
  const std::string file = (dir_ / "l.swf").string();
  ASSERT_EQ(run("generate lublin:jobs=400:seed=2 -o " + file), 0);
  ASSERT_EQ(run("--quiet --policy fcfs,easy --format json " + file, "json2"), 0);
  std::string a = read_file(dir_ / "json");
  std::string b = read_file(dir_ / "json2");
  // Only the workload's name and the wall-clock times differ.
  const auto strip = [](std::string s) {
    for (const char* key : {"\"workload\"", "\"wall_s\""}) {
      for (auto p = s.find(key); p != std::string::npos; p = s.find(key, p)) s.erase(p, s.find('\n', p) - p);
    }
    return s;
  };
  EXPECT_EQ(strip(a), strip(b));
  EXPECT_EQ(run("--quiet model:lublin:bogus=2"), 2);  // a bad model spec is bad usage, as in generate
}

}  // namespace
}  // namespace los
