#pragma once
// Internal to the Matrix Market reader (io/matrix_market*.cpp), not part of the public API: errors, lines
// and whitespace-separated tokens, number tokens. Inline: they run for every line and token of a file.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include "core/error.hpp"

namespace jitsparse::detail::mm_io {

// "<file>:<line>: <what>" as a ParseError (line 1 at the least).
[[noreturn]] inline void fail(const std::string& file, int64_t line, const std::string& what) {
  throw ParseError(file + ":" + std::to_string(std::max<int64_t>(line, 1)) + ": " + what);
}

// A token as it may appear in a message: short, printable.
inline std::string quote(std::string_view t) {
  std::string s = "'";
  for (size_t i = 0; i < t.size() && i < 40; ++i) s += (t[i] >= 32 && t[i] < 127) ? t[i] : '?';
  if (t.size() > 40) s += "...";
  return s + "'";
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The text line by line; line() is the 1-based number of the line last returned.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_;
    return true;
  }
  int64_t line() const { return line_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 0;
};

class Tokens {
 public:
  explicit Tokens(std::string_view s) : s_(s) {}
  bool next(std::string_view& t) {
    while (p_ < s_.size() && is_space(s_[p_])) ++p_;
    if (p_ == s_.size()) return false;
    size_t start = p_;
    while (p_ < s_.size() && !is_space(s_[p_])) ++p_;
    t = s_.substr(start, p_ - start);
    return true;
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

// Blank lines and % comments may appear anywhere after the banner (files in the wild have them).
inline bool is_skippable(std::string_view line) {
  for (char c : line) {
    if (c == '%') return true;
    if (!is_space(c)) return false;
  }
  return true;
}

inline bool parse_int(std::string_view t, int64_t& out) {
  if (t.empty()) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// Finite or not is the caller's business; false for anything that is not one whole number.
inline bool parse_double(std::string_view t, double& out) {
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (t.empty() || t[0] == '-' || t[0] == '+') return false;
  }
  if (t.empty()) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), out, std::chars_format::general);
  if (r.ptr != t.data() + t.size()) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // Under- or overflow: strtod gives the denormal / zero / inf that the caller then judges.
    std::string copy(t);
    out = std::strtod(copy.c_str(), nullptr);
    return true;
  }
  return r.ec == std::errc();
}

}  // namespace jitsparse::detail::mm_io
