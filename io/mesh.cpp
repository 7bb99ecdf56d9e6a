#include "io/mesh.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "core/error.hpp"

namespace jitsparse {
namespace {

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

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string extension_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return lower(path.substr(dot + 1));
}

// Reserve for a count read from a header, but no more than the file could hold: a corrupt count must give
// a "truncated file" error, not a failed multi-gigabyte allocation.
size_t capped(int64_t count, size_t file_bytes) {
  return static_cast<size_t>(std::min<int64_t>(count, file_bytes / 2 + 1));
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// Walks a text file line by line, splitting each line into whitespace-separated tokens. Lines that are
// empty (after cutting a '#' comment, where the format has them) are skipped; line() is 1-based.
class LineReader {
 public:
  LineReader(const std::string& text, bool hash_comments, size_t start = 0, int64_t first_line = 0)
      : text_(text), pos_(start), line_(first_line), comments_(hash_comments) {}

  bool next(std::vector<std::string_view>& tokens) {
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
  int64_t line() const { return line_; }

 private:
  const std::string& text_;
  size_t pos_;
  int64_t line_;
  bool comments_;
};

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

// A count from a header: non-negative and small enough for 32-bit indices.
int64_t count_token(const std::string& file, int64_t line, std::string_view t, const char* what) {
  int64_t v = int_token(file, line, t, what);
  if (v < 0) fail(file, line, std::string("negative ") + what + " (" + std::to_string(v) + ")");
  if (v > std::numeric_limits<int32_t>::max() - 1)
    fail(file, line, std::string(what) + " " + std::to_string(v) + " exceeds the 32-bit index limit");
  return v;
}

// A polygon of 0-based vertex indices; fan-triangulated into the mesh. Indices were checked by the caller.
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

void require_nonempty(const TriangleMesh& m, const std::string& file, int64_t line) {
  if (m.vertices.empty()) fail(file, line, "the mesh has no vertices");
  if (m.triangles.empty()) fail(file, line, "the mesh has no faces");
}

// ---------------------------------------------------------------- OFF

TriangleMesh read_off(const std::string& file, const std::string& text) {
  LineReader r(text, true);
  std::vector<std::string_view> t;
  if (!r.next(t)) fail(file, r.line(), "empty file: expected the OFF header");
  std::string head(t[0]);
  // Variants: [ST][C][N]OFF (texture, colour, normal values follow the coordinates and are skipped).
  std::string rest = head;
  if (rest.compare(0, 2, "ST") == 0) rest = rest.substr(2);
  if (!rest.empty() && rest[0] == 'C') rest = rest.substr(1);
  if (!rest.empty() && rest[0] == 'N') rest = rest.substr(1);
  if (rest != "OFF") {
    if (rest.size() > 3 && rest.compare(rest.size() - 3, 3, "OFF") == 0)
      fail(file, r.line(), "unsupported OFF variant '" + head + "' (only 3-D [ST][C][N]OFF)");
    fail(file, r.line(), "expected the header 'OFF', got " + quoted(t[0]));
  }
  std::vector<std::string_view> counts(t.begin() + 1, t.end());
  int64_t count_line = r.line();
  if (counts.empty()) {
    if (!r.next(t)) fail(file, r.line(), "unexpected end of file: expected the vertex and face counts");
    counts = t;
    count_line = r.line();
  }
  if (counts.size() < 2) fail(file, count_line, "expected '<vertices> <faces> [<edges>]'");
  int64_t nv = count_token(file, count_line, counts[0], "vertex count");
  int64_t nf = count_token(file, count_line, counts[1], "face count");
  if (nv == 0) fail(file, count_line, "the mesh has no vertices");
  if (nf == 0) fail(file, count_line, "the mesh has no faces");

  TriangleMesh m;
  m.vertices.reserve(capped(nv, text.size()));
  for (int64_t i = 0; i < nv; ++i) {
    if (!r.next(t))
      fail(file, r.line(),
           "unexpected end of file after " + std::to_string(i) + " of " + std::to_string(nv) + " vertices");
    if (t.size() < 3)
      fail(file, r.line(), "a vertex needs 3 coordinates, this line has " + std::to_string(t.size()));
    m.vertices.push_back({coordinate_token(file, r.line(), t[0]), coordinate_token(file, r.line(), t[1]),
                          coordinate_token(file, r.line(), t[2])});
  }
  m.triangles.reserve(capped(nf, text.size()));
  std::vector<int64_t> poly;
  for (int64_t i = 0; i < nf; ++i) {
    if (!r.next(t))
      fail(file, r.line(),
           "unexpected end of file after " + std::to_string(i) + " of " + std::to_string(nf) + " faces");
    int64_t n = int_token(file, r.line(), t[0], "vertex count of a face");
    if (n < 3) fail(file, r.line(), "a face needs at least 3 vertices, this one has " + std::to_string(n));
    if (static_cast<int64_t>(t.size()) < n + 1)
      fail(file, r.line(),
           "face announces " + std::to_string(n) + " vertices but lists " + std::to_string(t.size() - 1));
    poly.clear();
    for (int64_t k = 1; k <= n; ++k) {
      int64_t v = int_token(file, r.line(), t[k], "vertex index");
      if (v < 0 || v >= nv)
        fail(file, r.line(),
             "vertex index " + std::to_string(v) + " out of range (the mesh has " + std::to_string(nv) +
                 " vertices, numbered from 0)");
      poly.push_back(v);
    }
    add_polygon(m, poly, file, r.line());  // further values on the line (colours) are skipped
  }
  return m;
}

// ---------------------------------------------------------------- OBJ

TriangleMesh read_obj(const std::string& file, const std::string& text) {
  LineReader r(text, true);
  std::vector<std::string_view> t;
  TriangleMesh m;
  struct Face {
    std::vector<int64_t> idx;  // as resolved; positive ones may point past the vertices read so far
    int64_t line;
  };
  std::vector<Face> faces;  // checked once all vertices are read: positive indices may point forward
  while (r.next(t)) {
    if (t[0] == "v") {
      if (t.size() < 4)
        fail(file, r.line(), "a vertex needs 3 coordinates, this line has " + std::to_string(t.size() - 1));
      m.vertices.push_back({coordinate_token(file, r.line(), t[1]), coordinate_token(file, r.line(), t[2]),
                            coordinate_token(file, r.line(), t[3])});
    } else if (t[0] == "f") {
      Face f{{}, r.line()};
      for (size_t k = 1; k < t.size(); ++k) {
        // v, v/vt, v//vn, v/vt/vn: only the position index matters.
        std::string_view tok = t[k].substr(0, t[k].find('/'));
        int64_t v = int_token(file, r.line(), tok, "vertex index");
        if (v == 0) fail(file, r.line(), "vertex index 0 (OBJ indices start at 1; negative ones count back)");
        if (v < 0) {
          int64_t resolved = static_cast<int64_t>(m.vertices.size()) + v;
          if (resolved < 0)
            fail(file, r.line(),
                 "relative vertex index " + std::to_string(v) + " reaches before the first vertex (" +
                     std::to_string(m.vertices.size()) + " defined so far)");
          f.idx.push_back(resolved);
        } else {
          f.idx.push_back(v - 1);
        }
      }
      if (f.idx.size() < 3)
        fail(file, r.line(),
             "a face needs at least 3 vertices, this one has " + std::to_string(f.idx.size()));
      faces.push_back(std::move(f));
    }
    // Everything else (vt, vn, g, o, s, usemtl, mtllib, l, p, ...) does not shape the triangle mesh.
  }
  int64_t end_line = r.line();
  const int64_t nv = static_cast<int64_t>(m.vertices.size());
  if (nv > std::numeric_limits<int32_t>::max() - 1)
    fail(file, end_line, "too many vertices for 32-bit indices");
  for (const auto& f : faces) {
    for (int64_t v : f.idx)
      if (v >= nv)
        fail(file, f.line,
             "vertex index " + std::to_string(v + 1) + " out of range (the file has " + std::to_string(nv) +
                 " vertices)");
    add_polygon(m, f.idx, file, f.line);
  }
  require_nonempty(m, file, end_line);
  return m;
}

// ---------------------------------------------------------------- PLY

enum class PlyType { i8, u8, i16, u16, i32, u32, f32, f64 };

bool parse_ply_type(std::string_view s, PlyType& t) {
  static const std::pair<const char*, PlyType> names[] = {
      {"char", PlyType::i8},    {"int8", PlyType::i8},     {"uchar", PlyType::u8},
      {"uint8", PlyType::u8},   {"short", PlyType::i16},   {"int16", PlyType::i16},
      {"ushort", PlyType::u16}, {"uint16", PlyType::u16},  {"int", PlyType::i32},
      {"int32", PlyType::i32},  {"uint", PlyType::u32},    {"uint32", PlyType::u32},
      {"float", PlyType::f32},  {"float32", PlyType::f32}, {"double", PlyType::f64},
      {"float64", PlyType::f64}};
  for (const auto& n : names)
    if (s == n.first) {
      t = n.second;
      return true;
    }
  return false;
}

int ply_size(PlyType t) {
  switch (t) {
    case PlyType::i8:
    case PlyType::u8:
      return 1;
    case PlyType::i16:
    case PlyType::u16:
      return 2;
    case PlyType::i32:
    case PlyType::u32:
    case PlyType::f32:
      return 4;
    case PlyType::f64:
      return 8;
  }
  return 0;
}

bool ply_is_float(PlyType t) { return t == PlyType::f32 || t == PlyType::f64; }

struct PlyProperty {
  std::string name;
  bool is_list = false;
  PlyType count_type = PlyType::u8;
  PlyType type = PlyType::f32;
};

struct PlyElement {
  std::string name;
  int64_t count = 0;
  std::vector<PlyProperty> props;
};

enum class PlyFormat { ascii, little, big };

// Binary reader with bounds checks; errors name the byte offset.
class PlyBinary {
 public:
  PlyBinary(const std::string& file, const std::string& text, size_t pos, bool big)
      : file_(file), text_(text), pos_(pos), big_(big) {}

  double read(PlyType t, const std::string& context) {
    const int n = ply_size(t);
    if (pos_ + n > text_.size())
      fail_at_byte(file_, static_cast<int64_t>(pos_), "unexpected end of file in " + context);
    unsigned char b[8];
    std::memcpy(b, text_.data() + pos_, n);
    pos_ += n;
    if (big_ != host_big()) std::reverse(b, b + n);
    switch (t) {
      case PlyType::i8:
        return static_cast<int8_t>(b[0]);
      case PlyType::u8:
        return b[0];
      case PlyType::i16: {
        int16_t v;
        std::memcpy(&v, b, 2);
        return v;
      }
      case PlyType::u16: {
        uint16_t v;
        std::memcpy(&v, b, 2);
        return v;
      }
      case PlyType::i32: {
        int32_t v;
        std::memcpy(&v, b, 4);
        return v;
      }
      case PlyType::u32: {
        uint32_t v;
        std::memcpy(&v, b, 4);
        return v;
      }
      case PlyType::f32: {
        float v;
        std::memcpy(&v, b, 4);
        return v;
      }
      case PlyType::f64: {
        double v;
        std::memcpy(&v, b, 8);
        return v;
      }
    }
    return 0;
  }
  void skip(int64_t bytes, const std::string& context) {
    if (pos_ + bytes > text_.size())
      fail_at_byte(file_, static_cast<int64_t>(pos_), "unexpected end of file in " + context);
    pos_ += bytes;
  }
  size_t pos() const { return pos_; }

 private:
  static bool host_big() {
    const uint16_t one = 1;
    unsigned char c;
    std::memcpy(&c, &one, 1);
    return c == 0;
  }
  const std::string& file_;
  const std::string& text_;
  size_t pos_;
  bool big_;
};

// ASCII data: a stream of tokens that may wrap lines (the format does not tie elements to lines).
class PlyAscii {
 public:
  PlyAscii(const std::string& file, const std::string& text, size_t pos, int64_t line)
      : file_(file), r_(text, false, pos, line) {}

  double read(PlyType t, const std::string& context) {
    std::string_view tok = next(context);
    if (ply_is_float(t)) {
      double v;
      if (!parse_double(tok, v))
        fail(file_, r_.line(), "expected a finite number in " + context + ", got " + quoted(tok));
      return v;
    }
    int64_t v;
    if (!parse_int(tok, v))
      fail(file_, r_.line(), "expected an integer in " + context + ", got " + quoted(tok));
    return static_cast<double>(v);
  }
  int64_t line() const { return r_.line(); }

 private:
  std::string_view next(const std::string& context) {
    while (i_ >= tokens_.size()) {
      if (!r_.next(tokens_)) fail(file_, r_.line(), "unexpected end of file in " + context);
      i_ = 0;
    }
    return tokens_[i_++];
  }
  const std::string& file_;
  LineReader r_;
  std::vector<std::string_view> tokens_;
  size_t i_ = 0;
};

TriangleMesh read_ply(const std::string& file, const std::string& text) {
  // Header: text lines up to end_header.
  size_t pos = 0;
  int64_t line = 0;
  auto next_line = [&](std::string& out) {
    if (pos >= text.size()) return false;
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out.assign(text, pos, end - pos);
    if (!out.empty() && out.back() == '\r') out.pop_back();
    pos = end + 1;
    ++line;
    return true;
  };
  std::string l;
  if (!next_line(l) || l != "ply") fail(file, 1, "expected the magic line 'ply'");
  PlyFormat format = PlyFormat::ascii;
  bool have_format = false, have_end = false;
  std::vector<PlyElement> elements;
  while (next_line(l)) {
    std::istringstream s(l);
    std::string key;
    s >> key;
    if (key.empty() || key == "comment" || key == "obj_info") continue;
    if (key == "end_header") {
      have_end = true;
      break;
    }
    if (key == "format") {
      std::string f, version;
      s >> f >> version;
      if (f == "ascii")
        format = PlyFormat::ascii;
      else if (f == "binary_little_endian")
        format = PlyFormat::little;
      else if (f == "binary_big_endian")
        format = PlyFormat::big;
      else
        fail(file, line, "unknown PLY format '" + f + "' (ascii, binary_little_endian, binary_big_endian)");
      if (version != "1.0") fail(file, line, "unsupported PLY version '" + version + "' (only 1.0)");
      have_format = true;
    } else if (key == "element") {
      std::string name, count;
      s >> name >> count;
      if (name.empty() || count.empty()) fail(file, line, "expected 'element <name> <count>'");
      PlyElement e;
      e.name = name;
      e.count = count_token(file, line, count, "element count");
      elements.push_back(e);
    } else if (key == "property") {
      if (elements.empty()) fail(file, line, "property before any element");
      std::string a, b, c, d;
      s >> a >> b >> c >> d;
      PlyProperty p;
      if (a == "list") {
        p.is_list = true;
        if (!parse_ply_type(b, p.count_type) || !parse_ply_type(c, p.type) || d.empty())
          fail(file, line, "expected 'property list <count type> <index type> <name>'");
        if (ply_is_float(p.count_type))
          fail(file, line, "a list count must have an integer type, not '" + b + "'");
        p.name = d;
      } else {
        if (!parse_ply_type(a, p.type) || b.empty())
          fail(file, line, "expected 'property <type> <name>' with a PLY type, got '" + l + "'");
        p.name = b;
      }
      elements.back().props.push_back(p);
    } else {
      fail(file, line, "unknown header line '" + l.substr(0, 60) + "'");
    }
  }
  if (!have_end) fail(file, line + 1, "unexpected end of file: no 'end_header'");
  if (!have_format) fail(file, line, "the header has no 'format' line");

  // Which element and properties make the mesh.
  int vertex_el = -1, face_el = -1;
  int px = -1, py = -1, pz = -1, pf = -1;
  for (size_t e = 0; e < elements.size(); ++e) {
    const auto& el = elements[e];
    if (el.name == "vertex") {
      vertex_el = static_cast<int>(e);
      for (size_t k = 0; k < el.props.size(); ++k) {
        const auto& p = el.props[k];
        if (p.is_list) continue;
        if (p.name == "x") px = static_cast<int>(k);
        if (p.name == "y") py = static_cast<int>(k);
        if (p.name == "z") pz = static_cast<int>(k);
      }
    } else if (el.name == "face") {
      face_el = static_cast<int>(e);
      for (size_t k = 0; k < el.props.size(); ++k) {
        const auto& p = el.props[k];
        if (p.is_list && (p.name == "vertex_indices" || p.name == "vertex_index")) {
          if (ply_is_float(p.type)) fail(file, line, "face vertex indices must have an integer type");
          pf = static_cast<int>(k);
        }
      }
    }
  }
  if (vertex_el < 0) fail(file, line, "the header declares no 'vertex' element");
  if (px < 0 || py < 0 || pz < 0) fail(file, line, "the vertex element lacks one of the properties x, y, z");
  if (face_el < 0) fail(file, line, "the header declares no 'face' element");
  if (pf < 0) fail(file, line, "the face element has no list property 'vertex_indices' (or 'vertex_index')");
  const int64_t nv = elements[vertex_el].count;
  if (nv == 0) fail(file, line, "the mesh has no vertices");
  if (elements[face_el].count == 0) fail(file, line, "the mesh has no faces");

  TriangleMesh m;
  m.vertices.reserve(capped(nv, text.size()));  // grown as read: a corrupt count meets the end of the file
  struct Face {
    std::vector<int64_t> idx;
    int64_t where;  // line (ascii) or byte offset (binary) for messages
  };
  const bool binary = format != PlyFormat::ascii;
  PlyBinary bin(file, text, pos, format == PlyFormat::big);
  PlyAscii asc(file, text, pos, line);
  auto read = [&](PlyType t, const std::string& ctx) { return binary ? bin.read(t, ctx) : asc.read(t, ctx); };
  auto where = [&]() { return binary ? static_cast<int64_t>(bin.pos()) : asc.line(); };
  auto fail_here = [&](int64_t at, const std::string& what) {
    if (binary) fail_at_byte(file, at, what);
    fail(file, at, what);
  };
  // Faces are triangulated once all vertices are known (a face element may precede the vertices).
  std::vector<Face> faces;
  faces.reserve(capped(elements[face_el].count, text.size()));
  for (size_t e = 0; e < elements.size(); ++e) {
    const auto& el = elements[e];
    for (int64_t i = 0; i < el.count; ++i) {
      const std::string ctx =
          "element '" + el.name + "' " + std::to_string(i) + " of " + std::to_string(el.count);
      Face f;
      f.where = where();
      if (static_cast<int>(e) == vertex_el) m.vertices.push_back({0, 0, 0});
      for (size_t k = 0; k < el.props.size(); ++k) {
        const auto& p = el.props[k];
        if (!p.is_list) {
          // Skipping a binary scalar needs no decoding.
          if (binary && static_cast<int>(e) != vertex_el) {
            bin.skip(ply_size(p.type), ctx);
            continue;
          }
          int64_t at = where();
          double v = read(p.type, ctx);
          if (static_cast<int>(e) == vertex_el &&
              (static_cast<int>(k) == px || static_cast<int>(k) == py || static_cast<int>(k) == pz)) {
            if (!std::isfinite(v)) fail_here(at, "non-finite coordinate in " + ctx);
            m.vertices[i][k == static_cast<size_t>(px) ? 0 : k == static_cast<size_t>(py) ? 1 : 2] = v;
          }
          continue;
        }
        int64_t at = where();
        double count = read(p.count_type, ctx);
        if (count < 0) fail_here(at, "negative list length in " + ctx);
        const int64_t n = static_cast<int64_t>(count);
        const bool indices = static_cast<int>(e) == face_el && static_cast<int>(k) == pf;
        if (!indices && binary) {
          bin.skip(n * ply_size(p.type), ctx);
          continue;
        }
        for (int64_t j = 0; j < n; ++j) {
          int64_t at_j = where();
          double v = read(p.type, ctx);
          if (!indices) continue;
          if (v < 0 || v >= static_cast<double>(nv))
            fail_here(at_j, "vertex index " + std::to_string(static_cast<int64_t>(v)) + " out of range in " +
                                ctx + " (the mesh has " + std::to_string(nv) + " vertices, numbered from 0)");
          f.idx.push_back(static_cast<int64_t>(v));
        }
      }
      if (static_cast<int>(e) == face_el) faces.push_back(std::move(f));
    }
  }
  for (const auto& f : faces) {
    if (f.idx.size() < 3)
      fail_here(f.where, "a face needs at least 3 vertices, this one has " + std::to_string(f.idx.size()));
    for (size_t i = 0; i < f.idx.size(); ++i)
      for (size_t j = i + 1; j < f.idx.size(); ++j)
        if (f.idx[i] == f.idx[j])
          fail_here(f.where, "face repeats vertex " + std::to_string(f.idx[i]) + " (a degenerate polygon)");
    add_polygon(m, f.idx, file, 0);
  }
  return m;
}

// ---------------------------------------------------------------- TetGen

std::string tetgen_stem(const std::string& path) {
  const std::string ext = extension_of(path);
  if (ext == "node" || ext == "ele") return path.substr(0, path.size() - ext.size() - 1);
  return path;
}

}  // namespace

TriangleMesh read_triangle_mesh(const std::string& path) {
  const std::string text = read_file(path);
  std::string ext = extension_of(path);
  if (ext != "off" && ext != "obj" && ext != "ply") {
    // Unknown extension: recognise the format by its first bytes.
    size_t b = 0;
    while (b < text.size() && is_space(text[b])) ++b;
    if (text.compare(b, 3, "ply") == 0)
      ext = "ply";
    else if (text.find("OFF", b) != std::string::npos && text.find("OFF", b) < b + 8)
      ext = "off";
    else
      throw ParseError(path + ": unknown mesh format (expected a .off, .obj or .ply file)");
  }
  TriangleMesh m = ext == "off"   ? read_off(path, text)
                   : ext == "obj" ? read_obj(path, text)
                                  : read_ply(path, text);
  if (static_cast<int64_t>(m.triangles.size()) > std::numeric_limits<int32_t>::max() - 1)
    throw ParseError(path + ": too many triangles for 32-bit indices");
  return m;
}

TetMesh read_tetgen(const std::string& stem_or_path) {
  const std::string stem = tetgen_stem(stem_or_path);
  const std::string node_file = stem + ".node", ele_file = stem + ".ele";
  TetMesh m;
  std::vector<std::string_view> t;
  int64_t base = 0;
  {
    const std::string text = read_file(node_file);
    LineReader r(text, true);
    if (!r.next(t))
      fail(node_file, r.line(), "empty file: expected '<points> 3 <attributes> <boundary markers>'");
    if (t.size() < 2)
      fail(node_file, r.line(), "expected '<points> <dimension> [<attributes> <boundary markers>]'");
    const int64_t header_line = r.line();
    const int64_t n = count_token(node_file, r.line(), t[0], "point count");
    const int64_t dim = int_token(node_file, r.line(), t[1], "dimension");
    const int64_t attrs = t.size() > 2 ? count_token(node_file, r.line(), t[2], "attribute count") : 0;
    const int64_t markers = t.size() > 3 ? int_token(node_file, r.line(), t[3], "boundary marker flag") : 0;
    if (dim != 3)
      fail(node_file, r.line(), "dimension " + std::to_string(dim) + ": only 3-D meshes are supported");
    if (markers != 0 && markers != 1) fail(node_file, r.line(), "the boundary marker flag must be 0 or 1");
    if (n == 0) fail(node_file, header_line, "the mesh has no points");
    const size_t need = static_cast<size_t>(4 + attrs + markers);
    m.vertices.reserve(capped(n, text.size()));
    for (int64_t i = 0; i < n; ++i) {
      if (!r.next(t))
        fail(node_file, r.line(),
             "unexpected end of file after " + std::to_string(i) + " of " + std::to_string(n) + " points");
      if (t.size() < need)
        fail(node_file, r.line(),
             "a point line needs " + std::to_string(need) + " values (index, x, y, z, " +
                 std::to_string(attrs) + " attributes, " + std::to_string(markers) +
                 " marker), this one has " + std::to_string(t.size()));
      const int64_t idx = int_token(node_file, r.line(), t[0], "point index");
      if (i == 0) {
        if (idx != 0 && idx != 1)
          fail(node_file, r.line(), "the first point must be numbered 0 or 1, not " + std::to_string(idx));
        base = idx;
      } else if (idx != base + i) {
        fail(node_file, r.line(),
             "point numbered " + std::to_string(idx) + ", expected " + std::to_string(base + i) +
                 " (points must be numbered consecutively)");
      }
      m.vertices.push_back({coordinate_token(node_file, r.line(), t[1]),
                            coordinate_token(node_file, r.line(), t[2]),
                            coordinate_token(node_file, r.line(), t[3])});
    }
  }
  {
    const std::string text = read_file(ele_file);
    LineReader r(text, true);
    if (!r.next(t))
      fail(ele_file, r.line(), "empty file: expected '<tetrahedra> <nodes per tetrahedron> <attributes>'");
    if (t.size() < 2)
      fail(ele_file, r.line(), "expected '<tetrahedra> <nodes per tetrahedron> [<attributes>]'");
    const int64_t header_line = r.line();
    const int64_t n = count_token(ele_file, r.line(), t[0], "tetrahedron count");
    const int64_t per = int_token(ele_file, r.line(), t[1], "nodes per tetrahedron");
    const int64_t attrs = t.size() > 2 ? count_token(ele_file, r.line(), t[2], "attribute count") : 0;
    if (per != 4 && per != 10)
      fail(ele_file, r.line(),
           std::to_string(per) + " nodes per tetrahedron: expected 4 (or 10, corners used)");
    if (n == 0) fail(ele_file, header_line, "the mesh has no tetrahedra");
    const size_t need = static_cast<size_t>(1 + per + attrs);
    const int64_t nv = static_cast<int64_t>(m.vertices.size());
    int64_t ele_base = 0;
    m.tets.reserve(capped(n, text.size()));
    for (int64_t i = 0; i < n; ++i) {
      if (!r.next(t))
        fail(
            ele_file, r.line(),
            "unexpected end of file after " + std::to_string(i) + " of " + std::to_string(n) + " tetrahedra");
      if (t.size() < need)
        fail(ele_file, r.line(),
             "a tetrahedron line needs " + std::to_string(need) + " values, this one has " +
                 std::to_string(t.size()));
      const int64_t idx = int_token(ele_file, r.line(), t[0], "tetrahedron index");
      if (i == 0) {
        if (idx != 0 && idx != 1)
          fail(ele_file, r.line(),
               "the first tetrahedron must be numbered 0 or 1, not " + std::to_string(idx));
        ele_base = idx;
      } else if (idx != ele_base + i) {
        fail(ele_file, r.line(),
             "tetrahedron numbered " + std::to_string(idx) + ", expected " + std::to_string(ele_base + i) +
                 " (numbered consecutively)");
      }
      std::array<int, 4> tet{};
      for (int k = 0; k < 4; ++k) {
        const int64_t v = int_token(ele_file, r.line(), t[1 + k], "node index");
        if (v < base || v >= base + nv)
          fail(ele_file, r.line(),
               "node " + std::to_string(v) + " out of range (" + node_file + " numbers its " +
                   std::to_string(nv) + " points from " + std::to_string(base) + ")");
        tet[k] = static_cast<int>(v - base);
        for (int j = 0; j < k; ++j)
          if (tet[j] == tet[k]) fail(ele_file, r.line(), "tetrahedron repeats node " + std::to_string(v));
      }
      m.tets.push_back(tet);
    }
  }
  return m;
}

}  // namespace jitsparse
