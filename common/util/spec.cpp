#include "util/spec.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace los {
namespace {

bool valid_word(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

// Built with append: GCC 12 warns (-Wrestrict, a false positive) on "'" + s + "'".
std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  return out.append("'").append(s).append("'");
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

std::string number_text(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// ---- Spec -------------------------------------------------------------------

Spec Spec::parse(std::string_view text, SpecKind kind) {
  const std::string whole = std::string(kind.thing) + " " + quoted(text);
  Spec spec;
  std::size_t pos = text.find(':');
  spec.name = std::string(text.substr(0, pos));
  if (!valid_word(spec.name)) throw SpecError(whole + ": missing or malformed " + kind.thing + " name");
  while (pos != std::string_view::npos) {
    const std::size_t next = text.find(':', pos + 1);
    const std::string_view part = text.substr(pos + 1, next == std::string_view::npos ? next : next - pos - 1);
    const std::size_t eq = part.find('=');
    const std::string key(part.substr(0, eq));
    const std::string value = eq == std::string_view::npos ? "true" : std::string(part.substr(eq + 1));
    if (!valid_word(key)) {
      throw SpecError(whole + ": malformed " + kind.key + " " + quoted(part) + " (expected KEY or KEY=VALUE)");
    }
    if (value.empty()) throw SpecError(whole + ": " + kind.key + " " + quoted(key) + " has an empty value");
    if (!spec.params.emplace(key, value).second) {
      throw SpecError(whole + ": " + kind.key + " " + quoted(key) + " given twice");
    }
    pos = next;
  }
  return spec;
}

std::string Spec::to_string() const {
  std::string out = name;
  for (const auto& [k, v] : params) out.append(":").append(k).append("=").append(v);
  return out;
}

std::vector<Spec> parse_spec_list(std::string_view text, SpecKind kind) {
  std::vector<Spec> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = text.find(',', pos);
    out.push_back(Spec::parse(text.substr(pos, comma == std::string_view::npos ? comma : comma - pos), kind));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

// ---- Param ------------------------------------------------------------------

Param Param::integer(std::string key, long long fallback, long long min, long long max, std::string help) {
  Param p;
  p.key = std::move(key);
  p.type = Type::Integer;
  p.fallback = std::to_string(fallback);
  p.min = static_cast<double>(min);
  p.max = static_cast<double>(max);
  p.help = std::move(help);
  return p;
}

Param Param::number(std::string key, double fallback, double min, double max, std::string help) {
  Param p;
  p.key = std::move(key);
  p.type = Type::Number;
  p.fallback = number_text(fallback);
  p.min = min;
  p.max = max;
  p.help = std::move(help);
  return p;
}

Param Param::flag(std::string key, bool fallback, std::string help) {
  Param p;
  p.key = std::move(key);
  p.type = Type::Flag;
  p.fallback = fallback ? "true" : "false";
  p.help = std::move(help);
  return p;
}

Param Param::choice(std::string key, std::vector<std::string> choices, std::string help) {
  Param p;
  p.key = std::move(key);
  p.type = Type::Choice;
  p.fallback = choices.front();
  p.choices = std::move(choices);
  p.help = std::move(help);
  return p;
}

std::string Param::usage() const {
  if (type != Type::Choice) return key + "=" + fallback;
  std::string out = key + "=";
  for (std::size_t i = 0; i < choices.size(); ++i) out += (i ? "|" : "") + choices[i];
  return out;
}

// ---- ParamTable -------------------------------------------------------------

ParamTable ParamTable::with(std::initializer_list<Param> more) const {
  ParamTable t = *this;
  t.params_.insert(t.params_.end(), more.begin(), more.end());
  return t;
}

const Param* ParamTable::find(std::string_view key) const {
  for (const Param& p : params_) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

std::string ParamTable::help(const std::string& indent) const {
  std::size_t width = 0;
  for (const Param& p : params_) width = std::max(width, p.usage().size());
  std::string out;
  for (const Param& p : params_) {
    const std::string u = p.usage();
    out += indent + u + std::string(width - u.size() + 2, ' ') + p.help + "\n";
  }
  return out;
}

ParamValues ParamTable::read(const Spec& spec, SpecKind kind) const {
  const std::string who = std::string(kind.thing) + " " + quoted(spec.name) + ": ";
  for (const auto& [k, v] : spec.params) {
    if (find(k)) continue;
    std::vector<std::string> known;
    for (const Param& p : params_) known.push_back(p.key);
    std::sort(known.begin(), known.end());
    throw SpecError(who + "unknown " + kind.key + " " + quoted(k) +
                    (known.empty() ? " (it takes none)" : " (known: " + join(known) + ")"));
  }

  ParamValues values;
  values.name_ = spec.name;
  for (const Param& p : params_) {
    const auto given = spec.params.find(p.key);
    const std::string& text = given == spec.params.end() ? p.fallback : given->second;
    const auto fail = [&](const std::string& what) -> SpecError {
      return SpecError(who + kind.key + " " + quoted(p.key) + " " + what);
    };
    ParamValues::Value v{&p, text, 0, 0};
    switch (p.type) {
      case Param::Type::Integer: {
        long long x = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), x);
        if (r.ec == std::errc::result_out_of_range ||
            (r.ec == std::errc() && r.ptr == text.data() + text.size() && (x < p.min || x > p.max))) {
          throw fail("must be in [" + std::to_string(static_cast<long long>(p.min)) + ", " +
                     std::to_string(static_cast<long long>(p.max)) + "], got " + text);
        }
        if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
          throw fail("must be a whole number, got " + quoted(text));
        }
        v.text = std::to_string(x);
        v.integer = x;
        break;
      }
      case Param::Type::Number: {
        errno = 0;
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(x)) {
          throw fail("must be a number, got " + quoted(text));
        }
        if (!(x >= p.min && x <= p.max)) {
          throw fail("must be in [" + number_text(p.min) + ", " + number_text(p.max) + "], got " + text);
        }
        v.text = number_text(x);
        v.number = x;
        break;
      }
      case Param::Type::Flag:
        if (text == "true" || text == "1" || text == "yes" || text == "on") {
          v.text = "true";
        } else if (text == "false" || text == "0" || text == "no" || text == "off") {
          v.text = "false";
        } else {
          throw fail("must be true or false, got " + quoted(text));
        }
        break;
      case Param::Type::Choice:
        if (std::find(p.choices.begin(), p.choices.end(), text) == p.choices.end()) {
          throw fail("must be one of " + join(p.choices) + ", got " + quoted(text));
        }
        break;
    }
    values.values_.emplace(p.key, std::move(v));
  }
  return values;
}

// ---- ParamValues ------------------------------------------------------------

const ParamValues::Value& ParamValues::at(std::string_view key, Param::Type type) const {
  const auto it = values_.find(key);
  // A lookup of a key the table lacks, or with the wrong type, is a bug in the
  // factory, not bad input.
  if (it == values_.end() || it->second.param->type != type) {
    throw std::logic_error(name_ + ": no parameter '" + std::string(key) + "' of the asked type");
  }
  return it->second;
}

long long ParamValues::integer(std::string_view key) const { return at(key, Param::Type::Integer).integer; }

double ParamValues::number(std::string_view key) const { return at(key, Param::Type::Number).number; }

bool ParamValues::flag(std::string_view key) const { return at(key, Param::Type::Flag).text == "true"; }

const std::string& ParamValues::choice(std::string_view key) const { return at(key, Param::Type::Choice).text; }

std::string ParamValues::canonical(Spelling spelling) const {
  std::string out = name_;
  for (const auto& [key, v] : values_) {
    const bool is_default = v.text == v.param->fallback;  // both canonical text
    if (spelling == Spelling::NonDefault && is_default) continue;
    out.append(":").append(key);
    if (spelling == Spelling::EveryKey || v.param->type != Param::Type::Flag || v.text != "true") {
      out.append("=").append(v.text);
    }
  }
  return out;
}

}  // namespace los
