// TetGen reader: the .node and .ele files of one stem.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/detail/mesh_parse.hpp"
#include "io/mesh.hpp"

namespace jitsparse {
namespace {

std::string tetgen_stem(const std::string& path) {
  const std::string ext = detail::mesh_io::extension_of(path);
  if (ext == "node" || ext == "ele") return path.substr(0, path.size() - ext.size() - 1);
  return path;
}

// The .ele text is fetched only once the .node file has been checked, so a bad .node file is reported
// first even when the .ele file is missing.
TetMesh read_tetgen_texts(const std::string& node_text, const std::function<std::string()>& ele_source,
                          const std::string& stem) {
  using namespace detail::mesh_io;
  const std::string node_file = stem + ".node", ele_file = stem + ".ele";
  TetMesh m;
  std::vector<std::string_view> t;
  int64_t base = 0;
  {
    const std::string& text = node_text;
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
    const std::string text = ele_source();
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

}  // namespace

TetMesh read_tetgen(const std::string& stem_or_path) {
  const std::string stem = tetgen_stem(stem_or_path);
  return read_tetgen_texts(detail::mesh_io::read_file(stem + ".node"),
                           [&] { return detail::mesh_io::read_file(stem + ".ele"); }, stem);
}

TetMesh read_tetgen_strings(const std::string& node_text, const std::string& ele_text, const std::string& stem) {
  return read_tetgen_texts(node_text, [&] { return ele_text; }, stem);
}

}  // namespace jitsparse
