#pragma once
// Golden files: one switch to regenerate them, and a review of what moved.
//   UPDATE_GOLDEN=1  rewrite the golden files (then review `git diff`);
//   unset            compare; any other value (0, true, yes) is an error, not a silent rewrite.
// A mismatch prints which figures changed and by how much, so a reviewer sees "step 21.84 s ->
// 22.10 s (+1.2%)" rather than two walls of text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace pplan::testing {

/// Whether to rewrite golden files; fails the test for a value other than "1".
inline bool update_golden() {
  const char* value = std::getenv("UPDATE_GOLDEN");
  if (!value) return false;
  if (std::string(value) == "1") return true;
  ADD_FAILURE() << "UPDATE_GOLDEN=" << value << ": set it to 1 to rewrite the golden files, or unset it";
  return false;
}

namespace detail {

struct Tokens {
  std::string skeleton;              ///< the text with every number replaced by '#'
  std::vector<std::string> numbers;  ///< the numbers, in order, as written
};

inline Tokens tokenize(const std::string& text) {
  static const std::regex number(R"([-+]?\d[\d,]*(\.\d+)?([eE][-+]?\d+)?)");
  Tokens t;
  std::size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    t.skeleton += text.substr(last, static_cast<std::size_t>(it->position()) - last) + "#";
    t.numbers.push_back(it->str());
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  t.skeleton += text.substr(last);
  return t;
}

inline double value_of(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  return std::strtod(s.c_str(), nullptr);
}

}  // namespace detail

/**
 * What changed between a golden text and the new one: each figure that moved, with its line
 * and relative change, when the words are the same; else the first line that differs.
 */
inline std::string golden_review(const std::string& golden, const std::string& actual) {
  const detail::Tokens a = detail::tokenize(golden), b = detail::tokenize(actual);
  std::ostringstream out;
  if (a.skeleton == b.skeleton && a.numbers.size() == b.numbers.size()) {
    // Same words: list the figures that moved, with the line each stands on.
    std::vector<std::size_t> line_of;
    {
      std::size_t line = 1, k = 0;
      for (char c : a.skeleton) {
        if (c == '\n') ++line;
        if (c == '#' && k < a.numbers.size()) line_of.push_back(line), ++k;
      }
    }
    int moved = 0;
    for (std::size_t i = 0; i < a.numbers.size(); ++i) {
      if (a.numbers[i] == b.numbers[i]) continue;
      const double x = detail::value_of(a.numbers[i]), y = detail::value_of(b.numbers[i]);
      if (++moved > 40) continue;
      out << "  line " << line_of[i] << ": " << a.numbers[i] << " -> " << b.numbers[i];
      if (x != 0) {
        char change[32];
        std::snprintf(change, sizeof change, " (%+.2f%%)", 100.0 * (y / x - 1.0));
        out << change;
      }
      out << "\n";
    }
    return std::to_string(moved) + " figure(s) changed, the text is the same:\n" + out.str() +
           (moved > 40 ? "  ...\n" : "");
  }
  std::istringstream x(golden), y(actual);
  std::string lx, ly;
  for (int line = 1;; ++line) {
    const bool more_x = static_cast<bool>(std::getline(x, lx));
    const bool more_y = static_cast<bool>(std::getline(y, ly));
    if (!more_x && !more_y) break;
    if (lx != ly || more_x != more_y) {
      out << "the text changed; first at line " << line << ":\n  golden: " << (more_x ? lx : "(end)")
          << "\n  now:    " << (more_y ? ly : "(end)") << "\n";
      break;
    }
  }
  return out.str();
}

}  // namespace pplan::testing
