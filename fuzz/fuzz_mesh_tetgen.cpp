// libFuzzer target: the TetGen reader (io/mesh.hpp). One input holds both files: the .node text, a line
// "##ele", then the .ele text (no such line: the .ele file is empty).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/mesh_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitsparse;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string separator = "\n##ele\n";
  const size_t at = input.find(separator);
  const std::string node = input.substr(0, at);
  const std::string ele = at == std::string::npos ? "" : input.substr(at + separator.size());
  TetMesh m;
  if (fuzz::accepted([&] { m = read_tetgen_strings(node, ele, "fuzz"); },
                     [](const std::string& msg) {
                       return fuzz::names_file_and_line(msg, "fuzz.node") || fuzz::names_file_and_line(msg, "fuzz.ele");
                     }))
    fuzz::check_tet_mesh(m, "tetgen");
  return 0;
}
