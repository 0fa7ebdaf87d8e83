#include "util/slurm_commands.hpp"

#include <string_view>
#include <vector>

#include "util/process.hpp"

namespace los {
namespace {

// One line per partition, "PartitionName=NAME ... KEY=VALUE ...".
std::vector<std::string> partition_lines(const std::string& partition) {
  std::vector<std::string> args = {"scontrol", "--oneliner", "show", "partition"};
  if (!partition.empty()) args.push_back(partition);
  const Captured c = run_capturing(args, true);
  std::vector<std::string> lines;
  if (c.status != 0) return lines;
  std::size_t at = 0;
  while (at < c.output.size()) {
    std::size_t end = c.output.find('\n', at);
    if (end == std::string::npos) end = c.output.size();
    if (c.output.compare(at, 14, "PartitionName=") == 0) lines.push_back(c.output.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// The value of " KEY=" in a one-line record ("" when absent).
std::string field(std::string_view line, std::string_view key) {
  std::string needle = " ";  // built by append: GCC 12 warns (-Wrestrict) on " " + key + "="
  needle.append(key).append("=");
  const std::size_t at = line.find(needle);
  if (at == std::string_view::npos) return "";
  const std::size_t begin = at + needle.size();
  return std::string(line.substr(begin, line.find(' ', begin) - begin));
}

}  // namespace

std::string slurm_default_partition() {
  for (const std::string& line : partition_lines("")) {
    if (line.find(" Default=YES") == std::string::npos) continue;
    return line.substr(14, line.find(' ') - 14);
  }
  return "";
}

std::optional<int> slurm_partition_nodes(const std::string& partition) {
  const std::vector<std::string> lines = partition_lines(partition);
  if (lines.size() != 1) return std::nullopt;
  const std::string total = field(lines.front(), "TotalNodes");
  if (total.empty() || total.find_first_not_of("0123456789") != std::string::npos || total.size() > 9) {
    return std::nullopt;
  }
  return std::stoi(total);
}

std::string slurm_config_value(const std::string& key) {
  const Captured c = run_capturing({"scontrol", "show", "config"}, true);
  if (c.status != 0) return "";
  std::size_t at = 0;
  while (at < c.output.size()) {
    std::size_t end = c.output.find('\n', at);
    if (end == std::string::npos) end = c.output.size();
    const std::string_view line(c.output.data() + at, end - at);
    at = end + 1;
    // "KEY<spaces>= VALUE"
    if (line.substr(0, key.size()) != key || line.size() == key.size() || line[key.size()] != ' ') continue;
    const std::size_t eq = line.find("= ", key.size());
    if (eq == std::string_view::npos) continue;
    return std::string(line.substr(eq + 2));
  }
  return "";
}

}  // namespace los
