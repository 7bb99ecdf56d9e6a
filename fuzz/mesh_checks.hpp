#pragma once
// What an accepted mesh promises: finite coordinates, at least one element, every index in range and no
// element that repeats a vertex.
#include <cmath>
#include <string>

#include "fuzz/fuzz_util.hpp"
#include "io/mesh.hpp"

namespace jitsparse::fuzz {

template <class Elements>
void check_elements(const Elements& elements, size_t vertices, const std::string& what) {
  require(!elements.empty(), what + ": accepted without elements");
  for (const auto& el : elements)
    for (size_t k = 0; k < el.size(); ++k) {
      require(el[k] >= 0 && static_cast<size_t>(el[k]) < vertices, what + ": vertex index out of range");
      for (size_t j = 0; j < k; ++j) require(el[j] != el[k], what + ": an element repeats a vertex");
    }
}

template <class Mesh>
void check_mesh(const Mesh& m, const std::string& what) {
  for (const auto& v : m.vertices)
    for (double c : v) require(std::isfinite(c), what + ": non-finite coordinate accepted");
}

inline void check_triangle_mesh(const TriangleMesh& m, const std::string& what) {
  check_mesh(m, what);
  check_elements(m.triangles, m.vertices.size(), what);
}

inline void check_tet_mesh(const TetMesh& m, const std::string& what) {
  check_mesh(m, what);
  check_elements(m.tets, m.vertices.size(), what);
}

// One fuzz input as one triangle-mesh file named `name` (its extension picks the reader).
inline void fuzz_triangle_mesh(const uint8_t* data, size_t size, const std::string& name) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  TriangleMesh m;
  if (accepted([&] { m = read_triangle_mesh_string(text, name); },
               [&](const std::string& msg) { return names_file_and_line(msg, name, true); }))
    check_triangle_mesh(m, name);
}

}  // namespace jitsparse::fuzz
