// Named specs with typed parameters: NAME[:KEY[=VALUE]]...  (a bare KEY means
// true), the one syntax of policies ("depth:k=4", "tabu:safe") and workload
// models ("lublin:jobs=300:seed=1").
//
// Each policy and each model declares its parameters once, in a ParamTable
// (key, type, default, range, help). The table drives parsing and validation,
// the canonical spelling (name()), the --list-policies / --help texts, losd's
// validation of its configuration and the parameter tables of the docs.
#pragma once

#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace los {

// A malformed spec, an unknown key or a bad value; the message names it.
class SpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a spec names, for messages: "policy 'gang': parameter 'mpl' ...",
// "model 'lublin': key 'jobs' ...".
struct SpecKind {
  const char* thing;  // "policy", "model"
  const char* key;    // "parameter", "key"
};
inline constexpr SpecKind kPolicyKind{"policy", "parameter"};
inline constexpr SpecKind kModelKind{"model", "key"};

// NAME[:KEY[=VALUE]]... as written, not yet checked against any table.
struct Spec {
  std::string name;
  std::map<std::string, std::string> params;

  // Throws SpecError naming the offending part.
  static Spec parse(std::string_view text, SpecKind kind = kPolicyKind);
  // NAME then KEY=VALUE in key order.
  std::string to_string() const;
};

// Splits "a,b:k=1,c" into specs (commas separate them).
std::vector<Spec> parse_spec_list(std::string_view text, SpecKind kind = kPolicyKind);

// Shortest text that reads back as the same double ("0.5", "2", "1e-06").
std::string number_text(double x);

struct Param {
  enum class Type { Integer, Number, Flag, Choice };
  std::string key;
  Type type = Type::Integer;
  std::string fallback;              // the default, as canonical text
  double min = 0, max = 0;           // Integer and Number ranges (inclusive)
  std::vector<std::string> choices;  // Choice: the allowed values, the first is the default
  std::string help;

  static Param integer(std::string key, long long fallback, long long min, long long max, std::string help);
  static Param number(std::string key, double fallback, double min, double max, std::string help);
  static Param flag(std::string key, bool fallback, std::string help);
  static Param choice(std::string key, std::vector<std::string> choices, std::string help);

  // "k=4", "safe=false", "traceback=bypassed-first|selected-first".
  std::string usage() const;
};

class ParamValues;

// The parameters one policy or model takes.
class ParamTable {
 public:
  ParamTable() = default;
  ParamTable(std::initializer_list<Param> params) : params_(params) {}
  // This table and then `more` (a variant's extra keys).
  ParamTable with(std::initializer_list<Param> more) const;

  // Checks every key of `spec` (unknown keys, types, ranges) and fills in the
  // defaults; throws SpecError naming the key and what is wrong.
  ParamValues read(const Spec& spec, SpecKind kind = kPolicyKind) const;

  // One line per key: "  KEY=DEFAULT  help" (for --list-policies / --help).
  std::string help(const std::string& indent) const;
  const std::vector<Param>& params() const { return params_; }
  const Param* find(std::string_view key) const;

 private:
  std::vector<Param> params_;
};

// The effective value of every key of a table (given or default).
class ParamValues {
 public:
  enum class Spelling {
    NonDefault,  // NAME then the keys that differ from their default (policies)
    EveryKey,    // NAME then every key (generated workloads record their whole model)
  };

  const std::string& name() const { return name_; }
  long long integer(std::string_view key) const;
  double number(std::string_view key) const;
  bool flag(std::string_view key) const;
  const std::string& choice(std::string_view key) const;

  // The canonical spelling, keys in key order; a true flag is written bare
  // ("tabu:safe"). Spec::parse + ParamTable::read of it give the same values.
  std::string canonical(Spelling spelling = Spelling::NonDefault) const;

 private:
  friend class ParamTable;
  struct Value {
    const Param* param;
    std::string text;  // canonical text
    long long integer = 0;
    double number = 0;
  };
  const Value& at(std::string_view key, Param::Type type) const;

  std::string name_;
  std::map<std::string, Value, std::less<>> values_;
};

}  // namespace los
