// Wavefront OBJ reader: v and f lines (relative and forward indices); everything else is skipped.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "io/detail/mesh_parse.hpp"

namespace jitsparse::detail::mesh_io {
namespace {

void require_nonempty(const TriangleMesh& m, const std::string& file, int64_t line) {
  if (m.vertices.empty()) fail(file, line, "the mesh has no vertices");
  if (m.triangles.empty()) fail(file, line, "the mesh has no faces");
}

}  // namespace

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

}  // namespace jitsparse::detail::mesh_io
