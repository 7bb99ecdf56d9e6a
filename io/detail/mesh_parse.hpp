#pragma once
// Internal to the mesh readers (io/mesh*.cpp), not part of the public API: errors, whole-file and
// line/token reading, number tokens and fan triangulation, shared by the OFF, OBJ, PLY and TetGen readers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/mesh.hpp"

namespace jitsparse::detail::mesh_io {

// "<file>:<line>: <what>" as a ParseError.
[[noreturn]] void fail(const std::string& file, int64_t line, const std::string& what);
// "<file>: byte <offset>: <what>" as a ParseError (binary PLY data).
[[noreturn]] void fail_at_byte(const std::string& file, int64_t offset, const std::string& what);

std::string read_file(const std::string& path);
// Lower-case, without the dot; "" when the file name has none.
std::string extension_of(const std::string& path);

// Reserve for a count read from a header, but no more than the file could hold: a corrupt count must give
// a "truncated file" error, not a failed multi-gigabyte allocation.
size_t capped(int64_t count, size_t file_bytes);

bool is_space(char c);

// Walks a text file line by line, splitting each line into whitespace-separated tokens. Lines that are
// empty (after cutting a '#' comment, where the format has them) are skipped; line() is 1-based.
class LineReader {
 public:
  LineReader(const std::string& text, bool hash_comments, size_t start = 0, int64_t first_line = 0)
      : text_(text), pos_(start), line_(first_line), comments_(hash_comments) {}

  bool next(std::vector<std::string_view>& tokens);
  int64_t line() const { return line_; }

 private:
  const std::string& text_;
  size_t pos_;
  int64_t line_;
  bool comments_;
};

bool parse_int(std::string_view t, int64_t& v);
bool parse_double(std::string_view t, double& v);  // finite only
std::string quoted(std::string_view t);

int64_t int_token(const std::string& file, int64_t line, std::string_view t, const char* what);
double coordinate_token(const std::string& file, int64_t line, std::string_view t);
// A count from a header: non-negative and small enough for 32-bit indices.
int64_t count_token(const std::string& file, int64_t line, std::string_view t, const char* what);

// A polygon of 0-based vertex indices; fan-triangulated into the mesh. Indices were checked by the caller.
void add_polygon(TriangleMesh& m, const std::vector<int64_t>& poly, const std::string& file, int64_t line);

// The triangle-mesh formats; `file` names the file in messages, `text` is its whole content.
TriangleMesh read_off(const std::string& file, const std::string& text);  // io/mesh_off.cpp
TriangleMesh read_obj(const std::string& file, const std::string& text);  // io/mesh_obj.cpp
TriangleMesh read_ply(const std::string& file, const std::string& text);  // io/mesh_ply.cpp

}  // namespace jitsparse::detail::mesh_io
