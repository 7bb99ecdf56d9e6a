#pragma once
#include <string>
#include <vector>

namespace jitsparse {

// A file compiled into the binary (device headers, entry-type configs): see cmake/embed_files.cmake.
struct EmbeddedFile {
  const char* path;     // relative to its base folder, e.g. "jitsparse/spmv.cuh"
  const char* content;
};

// The device headers under templates/ that NVRTC compiles.
const std::vector<EmbeddedFile>& embedded_templates_list();
// The built-in entry-type definitions under configs/.
const std::vector<EmbeddedFile>& embedded_configs_list();

}  // namespace jitsparse
