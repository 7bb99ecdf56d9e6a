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
// The same from a file's content; `name` picks the format by extension (else the first bytes decide) and
// names the file in messages.
TriangleMesh read_triangle_mesh_string(const std::string& text, const std::string& name);
// TetGen: path may name the .node or .ele file (or the stem); both are read. Throws ParseError.
TetMesh read_tetgen(const std::string& stem_or_path);
// The same from the two files' contents; messages name <stem>.node and <stem>.ele.
TetMesh read_tetgen_strings(const std::string& node_text, const std::string& ele_text, const std::string& stem);

}  // namespace jitsparse
