// libFuzzer target: the OBJ mesh reader (io/mesh.hpp), one input = one .obj file.
#include <cstddef>
#include <cstdint>

#include "fuzz/mesh_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  jitsparse::fuzz::fuzz_triangle_mesh(data, size, "fuzz.obj");
  return 0;
}
