// PLY reader: ascii and binary (little/big endian) data, header up to end_header.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/detail/mesh_parse.hpp"

namespace jitsparse::detail::mesh_io {
namespace {

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

}  // namespace

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
      // A second 'vertex' or 'face' element would leave the mesh's properties pointing into the wrong one.
      if ((name == "vertex" || name == "face") &&
          std::any_of(elements.begin(), elements.end(), [&](const PlyElement& e) { return e.name == name; }))
        fail(file, line, "a second '" + name + "' element (a mesh has one)");
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
    // An element without properties holds no data: a count of 2 billion must not spin for minutes.
    if (el.props.empty()) continue;
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

}  // namespace jitsparse::detail::mesh_io
