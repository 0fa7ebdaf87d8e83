// Workload models by name, as los-sim uses them: written NAME[:KEY=VALUE]...
// like a policy ("lublin:jobs=300:nodes=128:seed=1", "cirne-moldable:load=2").
//
//   lublin           Lublin-Feitelson rigid jobs           (workload/lublin.hpp)
//   cirne            Cirne-Berman rigid jobs               (workload/cirne.hpp)
//   cirne-moldable   Cirne-Berman jobs with moldable requests
//
// A generated workload is both a los::Workload (to simulate directly) and SWF
// text (to write), byte-identical for the same spec. The SWF carries two
// documented comment-line extensions, placed just before the job's line, that
// plain SWF readers skip as comments:
//   ; MOLDABLE <job> <nodes>:<requested time>:<run time> ...   every request the job offers
//   ; CANCEL <job> <seconds after submission>                    the job's cancellation
// docs/workload-models.md lists every key, its default and the extensions.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "util/spec.hpp"
#include "workload/cirne.hpp"
#include "workload/swf.hpp"

namespace los {

// A bad model name or key; the message names it.
class ModelError : public WorkloadError {
 public:
  using WorkloadError::WorkloadError;
};

// NAME[:KEY=VALUE]..., in the one spec syntax of policies and models.
using ModelSpec = Spec;
// Parses a model spec; throws ModelError naming the bad part.
ModelSpec parse_model_spec(std::string_view text);

struct GeneratedWorkload {
  Workload workload;
  std::string spec;                                   // canonical: NAME then every key (defaults included), sorted
  std::vector<std::string> header;                    // SWF header lines, without the leading "; "
  std::vector<SwfRecord> records;                     // one per job of `workload`, same order
  std::vector<std::vector<std::string>> annotations;  // per record: extension lines written before it
};

// Generates the model; throws ModelError on an unknown model or key, or a bad value.
GeneratedWorkload generate_model(const ModelSpec& spec);

// Writes the header, then each job's annotations and record.
void write_generated_swf(std::ostream& out, const GeneratedWorkload& g);

// The workload named by "NAME[:KEY=VALUE]..." (what follows "model:" on the
// los-sim command line). `default_nodes` > 0 is used when the spec has no nodes key.
Workload model_workload(std::string_view spec, int default_nodes = 0);

// The extension lines of a workload read from SWF (the reader keeps them among
// its header comments), for a consumer that wants the moldable requests or the
// cancellations back: job id -> requests (as listed), job id -> seconds from
// submission to cancellation. Throws WorkloadError quoting a malformed line.
struct SwfExtensions {
  std::map<JobId, std::vector<MoldableRequest>> moldable;
  std::map<JobId, Time> cancel_lag;
};
SwfExtensions read_swf_extensions(const Workload& w);

// The models and their keys with defaults, for --help.
std::string model_catalog();

}  // namespace los
