#include "io/mesh.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "io/detail/mesh_parse.hpp"

namespace jitsparse {

// Picks the format by extension (or, failing that, by the first bytes) and hands off to its reader.
TriangleMesh read_triangle_mesh(const std::string& path) {
  return read_triangle_mesh_string(detail::mesh_io::read_file(path), path);
}

TriangleMesh read_triangle_mesh_string(const std::string& text, const std::string& path) {
  using namespace detail::mesh_io;
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

}  // namespace jitsparse
