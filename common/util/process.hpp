// Running a program and reading what it prints: the tools' one way to call
// Slurm's commands (sbatch, squeue, scontrol).
#pragma once

#include <string>
#include <vector>

namespace los {

// A program's exit status and standard output (its stderr is left alone).
struct Captured {
  int status = -1;  // -1: it could not run, or did not exit
  std::string output;
};

// Runs args[0] (searched in PATH) with args and waits for it. `quiet`: its
// stderr goes to /dev/null.
Captured run_capturing(const std::vector<std::string>& args, bool quiet = false);

}  // namespace los
