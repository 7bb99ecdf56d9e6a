#pragma once
#include <array>
#include <string>
#include <vector>

namespace jitsparse {

struct TriangleMesh {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::array<int, 3>> triangles;  // 0-based
};

struct TetMesh {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::array<int, 4>> tets;  // 0-based
};

// OFF, OBJ, PLY (ascii, binary little/big endian): polygons are fan-triangulated. Throws ParseError
// with file and line (or byte offset for binary PLY).
TriangleMesh read_triangle_mesh(const std::string& path);
// TetGen: path may name the .node or .ele file (or the stem); both are read. Throws ParseError.
TetMesh read_tetgen(const std::string& stem_or_path);

}  // namespace jitsparse
