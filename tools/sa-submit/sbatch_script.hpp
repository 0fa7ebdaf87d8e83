// The #SBATCH lines of a batch script, read as sbatch reads them.
#pragma once

#include <istream>
#include <string>
#include <vector>

namespace los {

// The options of the script's leading #SBATCH block, in order, each split
// into words as a shell would (quotes group, a '#' outside quotes ends the
// line). As sbatch does: lines after the first one are read until the first
// line that is neither blank, nor a comment, nor an #SBATCH line.
std::vector<std::string> sbatch_script_options(std::istream& script);

// The value of option `long_name` ("--partition") or `short_name` ("-p",
// may be empty) in `words` (sbatch's forms: --partition=P, --partition P,
// -pP, -p P); the last one wins; "" when absent.
std::string sbatch_option_value(const std::vector<std::string>& words, const std::string& long_name,
                                const std::string& short_name);

}  // namespace los
