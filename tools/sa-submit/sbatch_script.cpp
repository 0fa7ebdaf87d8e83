#include "sbatch_script.hpp"

#include <cctype>

namespace los {

namespace {

// The words of one #SBATCH line's options.
std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (const char c : text) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '#') {
      break;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

bool blank(const std::string& line) {
  for (const char c : line) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> sbatch_script_options(std::istream& script) {
  std::vector<std::string> options;
  std::string line;
  std::getline(script, line);  // the interpreter line (#!/bin/bash)
  const std::string directive = "#SBATCH";
  while (std::getline(script, line)) {
    if (line.compare(0, directive.size(), directive) == 0 &&
        (line.size() == directive.size() || std::isspace(static_cast<unsigned char>(line[directive.size()])))) {
      for (std::string& w : split_words(line.substr(directive.size()))) options.push_back(std::move(w));
    } else if (!blank(line) && line[line.find_first_not_of(" \t")] != '#') {
      break;  // the first command ends the block
    }
  }
  return options;
}

std::string sbatch_option_value(const std::vector<std::string>& words, const std::string& long_name,
                                const std::string& short_name) {
  std::string value;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const bool has_next = i + 1 < words.size();
    if (w == long_name || (!short_name.empty() && w == short_name)) {
      if (has_next) value = words[++i];
    } else if (w.compare(0, long_name.size() + 1, long_name + "=") == 0) {
      value = w.substr(long_name.size() + 1);
    } else if (!short_name.empty() && w.size() > short_name.size() &&
               w.compare(0, short_name.size(), short_name) == 0 && w[1] != '-') {
      value = w.substr(short_name.size());
    }
  }
  return value;
}

}  // namespace los
