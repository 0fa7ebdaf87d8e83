#include "sa/shape_spec.hpp"

#include <cctype>
#include <stdexcept>
#include <vector>

namespace los {
namespace {

// A run of decimal digits, bounded so that the products below cannot overflow.
long long whole(const std::string& part, const std::string& text, const char* what) {
  if (part.empty() || part.size() > 9) {
    throw std::invalid_argument("time '" + text + "': " + what + " '" + part + "' is not a number of 1 to 9 digits");
  }
  for (const char c : part) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      throw std::invalid_argument("time '" + text + "': " + what + " '" + part + "' is not a whole number");
    }
  }
  return std::stoll(part);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (const char c : s) {
    if (c == sep) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

Time parse_slurm_time(const std::string& text) {
  long long days = 0;
  std::string rest = text;
  const std::size_t dash = text.find('-');
  const bool with_days = dash != std::string::npos;
  if (with_days) {
    days = whole(text.substr(0, dash), text, "days");
    rest = text.substr(dash + 1);
  }
  const std::vector<std::string> f = split(rest, ':');
  if (f.size() > 3) throw std::invalid_argument("time '" + text + "': more than three ':'-separated fields");
  long long seconds = 0;
  if (with_days) {  // D-H, D-H:M, D-H:M:S
    seconds = whole(f[0], text, "hours") * 3600;
    if (f.size() > 1) seconds += whole(f[1], text, "minutes") * 60;
    if (f.size() > 2) seconds += whole(f[2], text, "seconds");
  } else if (f.size() == 1) {  // M
    seconds = whole(f[0], text, "minutes") * 60;
  } else if (f.size() == 2) {  // M:S
    seconds = whole(f[0], text, "minutes") * 60 + whole(f[1], text, "seconds");
  } else {  // H:M:S
    seconds = whole(f[0], text, "hours") * 3600 + whole(f[1], text, "minutes") * 60 + whole(f[2], text, "seconds");
  }
  seconds += days * 86400;
  if (seconds < 1) throw std::invalid_argument("time '" + text + "': a limit must be at least one second");
  return seconds;
}

ShapeSpec parse_shape_spec(const std::string& text) {
  const std::size_t x = text.find('x');
  if (x == std::string::npos) {
    throw std::invalid_argument("shape '" + text + "': expected NODESxTIME, e.g. 8x30 (8 nodes, 30 minutes)");
  }
  const std::string nodes = text.substr(0, x);
  bool digits = !nodes.empty() && nodes.size() <= 9;
  for (const char c : nodes) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits || std::stoll(nodes) < 1) {
    throw std::invalid_argument("shape '" + text + "': nodes '" + nodes + "' is not a whole number >= 1");
  }
  ShapeSpec s;
  s.shape.nodes = static_cast<int>(std::stoll(nodes));
  s.time_text = text.substr(x + 1);
  try {
    s.shape.request = parse_slurm_time(s.time_text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("shape '" + text + "': " + e.what());
  }
  return s;
}

}  // namespace los
