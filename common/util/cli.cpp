#include "util/cli.hpp"

#include <cctype>
#include <iostream>
#include <memory>

#include "util/parse.hpp"
#include "util/spec.hpp"
#include "util/version.hpp"
#include "workload/models.hpp"

namespace los {

int run_cli(const std::string& prog, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const SpecError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const ModelError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 1;
  }
}

std::string version_line(const std::string& prog) { return prog + " (LOS) " + kVersion; }

namespace {

// --help prints the tool's own text, not CLI11's generated listing: the text
// is written as a man page (and is the man page's source).
class UsageFormatter : public CLI::Formatter {
 public:
  explicit UsageFormatter(std::string usage) : usage_(std::move(usage)) {}
  std::string make_help(const CLI::App*, std::string, CLI::AppFormatMode) const override { return usage_; }

 private:
  std::string usage_;
};

// CLI11's "The following argument was not expected: X" says what, not which
// kind: an unknown option, or an argument the tool takes no more of.
std::string extras_message(const std::string& what) {
  const std::size_t colon = what.find(": ");
  std::string first = colon == std::string::npos ? what : what.substr(colon + 2);
  first = first.substr(0, first.find(' '));
  if (!first.empty() && first[0] == '-') return "unknown option '" + first.substr(0, first.find('=')) + "'";
  return "unexpected argument '" + first + "'";
}

}  // namespace

CommandLine::CommandLine(const std::string& prog, const std::string& usage) : prog_(prog), app_("", prog) {
  app_.formatter(std::make_shared<UsageFormatter>(usage));
  app_.set_help_flag("-h,--help", "This text.");
  app_.set_version_flag("--version", version_line(prog), "Print the version and exit.");
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* CommandLine::add_repeated(const std::string& names, std::function<void(const std::string&)> on_value,
                                       const std::string& description) {
  return app_.add_option_function<std::string>(names, std::move(on_value), description)->trigger_on_parse();
}

std::string CommandLine::usage_hint(const std::string& message) const {
  return message + " (see " + prog_ + " --help)";
}

bool CommandLine::parse(int argc, char** argv) {
  try {
    app_.parse(argc, argv);
    return true;
  } catch (const CLI::CallForHelp&) {
    std::cout << app_.help();
    return false;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app_.help();
    return false;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return false;
  } catch (const CLI::ParseError& e) {
    // CLI11 checks required options and commands before it complains about
    // arguments left over; an unknown option is the first thing to say.
    const std::vector<std::string> rest = app_.remaining();
    const std::string first = rest.empty() ? "" : rest.front();
    if (first.size() > 1 && first[0] == '-' && first != "--") {
      throw UsageError(usage_hint("unknown option '" + first.substr(0, first.find('=')) + "'"));
    }
    std::string what = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) what = extras_message(what);
    // CLI11 says "--partition: 1 required TEXT missing".
    if (const std::size_t at = what.find(": 1 required "); at != std::string::npos && what.ends_with(" missing")) {
      what = what.substr(0, at) + ": needs a value";
    }
    if (what.rfind("A subcommand is required", 0) == 0) {
      what = first.empty() ? "no command given" : "unknown command '" + first + "'";
    }
    throw UsageError(usage_hint(what));
  }
}

std::string slurm_duration(std::int64_t seconds) {
  std::string sign;
  if (seconds < 0) {
    sign = "-";
    seconds = -seconds;
  }
  const std::int64_t days = seconds / 86400, hours = seconds % 86400 / 3600, minutes = seconds % 3600 / 60,
                     secs = seconds % 60;
  char text[64];
  if (days > 0) {
    std::snprintf(text, sizeof text, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(hours), static_cast<long long>(minutes), static_cast<long long>(secs));
  } else if (hours > 0) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(secs));
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", static_cast<long long>(minutes), static_cast<long long>(secs));
  }
  return sign + text;
}

std::string shell_quote(const std::string& word) {
  // Characters no POSIX shell treats specially anywhere in a word.
  const auto plain = [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == ',' || c == ':' || c == '=' ||
           c == '+' || c == '@' || c == '%';
  };
  bool quote = word.empty();
  for (const char c : word) quote = quote || !plain(static_cast<unsigned char>(c));
  // '%' is plain except at the start of a word (job control in some shells).
  if (!word.empty() && word[0] == '%') quote = true;
  if (!quote) return word;
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
  return line;
}

}  // namespace los
