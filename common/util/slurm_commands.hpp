// What the tools ask Slurm through its commands (scontrol), for tools that
// run beside a cluster: sa-submit, los-sim replay.
#pragma once

#include <optional>
#include <string>

namespace los {

// Slurm's default partition (Default=YES), or "" when Slurm cannot be asked
// or has none.
std::string slurm_default_partition();

// The node count of `partition` (TotalNodes), or nullopt when Slurm cannot
// be asked or has no such partition.
std::optional<int> slurm_partition_nodes(const std::string& partition);

// A value of `scontrol show config` ("SchedulerType" -> "sched/los"), or ""
// when Slurm cannot be asked or has no such key.
std::string slurm_config_value(const std::string& key);

}  // namespace los
