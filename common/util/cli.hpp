// What every command-line tool shares: the argument parser (CLI11) set up
// with the tools' conventions, --version, and the exception-to-exit-status
// rule.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace los {

// Runs a tool's body and returns its exit status. An exception is printed
// as "PROG: message" on stderr and becomes 2 when the command line was wrong
// (UsageError, SpecError: a bad policy or key, ModelError: a bad model), 1
// otherwise (unreadable input, a failed write, a failed run).
int run_cli(const std::string& prog, const std::function<int()>& body);

// "PROG (LOS) VERSION", what every tool's --version prints (VERSION is the
// CMake project version).
std::string version_line(const std::string& prog);

// A tool's command line: a CLI11 app whose -h/--help prints `usage` (the
// tool's man-page text, also the source of its man page) and whose --version
// prints version_line(prog). Options take "--opt value" and "--opt=value"
// (short ones "-o value" and "-ovalue"); a repeated option keeps its last
// value unless it collects (add_repeated).
class CommandLine {
 public:
  CommandLine(const std::string& prog, const std::string& usage);

  CLI::App& app() { return app_; }

  // An option whose every occurrence calls `on_value`, in command-line order.
  CLI::Option* add_repeated(const std::string& names, std::function<void(const std::string&)> on_value,
                            const std::string& description = "");

  // Parses argv. Returns false when --help or --version was given and
  // printed (the tool then exits 0). A malformed command line throws
  // UsageError naming the option ("... (see PROG --help)"); so does a
  // UsageError thrown by an option's callback.
  bool parse(int argc, char** argv);

  // Turns a message into a UsageError's text: "MESSAGE (see PROG --help)".
  std::string usage_hint(const std::string& message) const;

 private:
  std::string prog_;
  CLI::App app_;
};

// Seconds as Slurm prints a duration (squeue's TIME, sinfo's TIMELIMIT):
// [days-]hours:minutes:seconds, with hours and days left out while zero:
// "0:42", "12:00", "1:00:00", "2-03:04:05". Negative values get a '-'.
std::string slurm_duration(std::int64_t seconds);

// `word` quoted for a POSIX shell, unchanged when it needs no quoting:
// "a b" -> 'a b', "it's" -> 'it'\''s'.
std::string shell_quote(const std::string& word);

// A command line that can be pasted into a shell.
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace los
