#include "policies/fcfs.hpp"

namespace los {

StepResult FcfsPolicy::step(const Snapshot& snapshot) {
  StepResult result;
  int free = snapshot.free_units;
  for (const Job& job : snapshot.queue) {
    // A job larger than every usable unit together can never start; waiting
    // for it would stop the partition for good (a drained node on a live
    // cluster), so it is passed over.
    if (job.size > snapshot.total_units) continue;
    if (job.size > free) break;
    free -= job.size;
    result.decisions.push_back(Decision::start(job.id));
  }
  return result;
}

PolicyPtr make_fcfs(const ParamValues&, RunMode) { return std::make_unique<FcfsPolicy>(); }

}  // namespace los
