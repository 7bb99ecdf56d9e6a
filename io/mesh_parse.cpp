// Helpers shared by the mesh readers (io/detail/mesh_parse.hpp).
#include "io/detail/mesh_parse.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"

namespace jitsparse::detail::mesh_io {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

[[noreturn]] void fail(const std::string& file, int64_t line, const std::string& what) {
  throw ParseError(file + ":" + std::to_string(line) + ": " + what);
}

[[noreturn]] void fail_at_byte(const std::string& file, int64_t offset, const std::string& what) {
  throw ParseError(file + ": byte " + std::to_string(offset) + ": " + what);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path + ": cannot open file (" + std::strerror(errno) + ")");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw ParseError(path + ": read error");
  return s.str();
}

std::string extension_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return lower(path.substr(dot + 1));
}

size_t capped(int64_t count, size_t file_bytes) {
  return static_cast<size_t>(std::min<int64_t>(count, file_bytes / 2 + 1));
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

bool LineReader::next(std::vector<std::string_view>& tokens) {
  while (pos_ < text_.size()) {
    size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    std::string_view l(text_.data() + pos_, end - pos_);
    pos_ = end + 1;
    ++line_;
    if (comments_) {
      auto hash = l.find('#');
      if (hash != std::string_view::npos) l = l.substr(0, hash);
    }
    tokens.clear();
    size_t i = 0;
    while (i < l.size()) {
      while (i < l.size() && is_space(l[i])) ++i;
      size_t b = i;
      while (i < l.size() && !is_space(l[i])) ++i;
      if (i > b) tokens.push_back(l.substr(b, i - b));
    }
    if (!tokens.empty()) return true;
  }
  ++line_;  // errors at the end of the file name the line after the last one
  return false;
}

bool parse_int(std::string_view t, int64_t& v) {
  if (t.empty() || t.size() > 40) return false;
  char buf[48];
  std::memcpy(buf, t.data(), t.size());
  buf[t.size()] = 0;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(buf, &end, 10);
  if (errno != 0 || end != buf + t.size()) return false;
  v = x;
  return true;
}

bool parse_double(std::string_view t, double& v) {
  if (t.empty() || t.size() > 80) return false;
  char buf[96];
  std::memcpy(buf, t.data(), t.size());
  buf[t.size()] = 0;
  char* end = nullptr;
  double x = std::strtod(buf, &end);
  if (end != buf + t.size() || !std::isfinite(x)) return false;
  v = x;
  return true;
}

std::string quoted(std::string_view t) { return "'" + std::string(t.substr(0, 40)) + "'"; }

int64_t int_token(const std::string& file, int64_t line, std::string_view t, const char* what) {
  int64_t v;
  if (!parse_int(t, v)) fail(file, line, std::string("expected an integer ") + what + ", got " + quoted(t));
  return v;
}

double coordinate_token(const std::string& file, int64_t line, std::string_view t) {
  double v;
  if (!parse_double(t, v)) fail(file, line, "expected a finite coordinate, got " + quoted(t));
  return v;
}

int64_t count_token(const std::string& file, int64_t line, std::string_view t, const char* what) {
  int64_t v = int_token(file, line, t, what);
  if (v < 0) fail(file, line, std::string("negative ") + what + " (" + std::to_string(v) + ")");
  if (v > std::numeric_limits<int32_t>::max() - 1)
    fail(file, line, std::string(what) + " " + std::to_string(v) + " exceeds the 32-bit index limit");
  return v;
}

void add_polygon(TriangleMesh& m, const std::vector<int64_t>& poly, const std::string& file, int64_t line) {
  if (poly.size() < 3)
    fail(file, line, "a face needs at least 3 vertices, this one has " + std::to_string(poly.size()));
  for (size_t i = 0; i < poly.size(); ++i)
    for (size_t j = i + 1; j < poly.size(); ++j)
      if (poly[i] == poly[j])
        fail(file, line, "face repeats vertex " + std::to_string(poly[i]) + " (a degenerate polygon)");
  for (size_t k = 1; k + 1 < poly.size(); ++k)
    m.triangles.push_back(
        {static_cast<int>(poly[0]), static_cast<int>(poly[k]), static_cast<int>(poly[k + 1])});
}

}  // namespace jitsparse::detail::mesh_io
