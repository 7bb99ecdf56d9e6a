// OFF reader: [ST][C][N]OFF, 3-D.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/detail/mesh_parse.hpp"

namespace jitsparse::detail::mesh_io {

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
    if (n > static_cast<int64_t>(t.size()) - 1)  // not n + 1 > size: n may be INT64_MAX
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

}  // namespace jitsparse::detail::mesh_io
