#pragma once
#include <optional>
#include <string>

#include "generator/nvrtc_compiler.hpp"

namespace jitsparse {

// Content-addressed store of compiled kernels under <cache root>/cubins/. The key hashes the generated
// source, every device header, the NVRTC options (arch included) and the NVRTC version. Each file carries
// a header with the payload's size and SHA-1: a truncated or corrupted file is reported, removed and
// rebuilt, never loaded.
class CubinCache {
 public:
  explicit CubinCache(std::string root = "");  // "" = cache_root()
  std::string key(const GeneratedSource& source, const CompileOptions& options) const;
  std::optional<CompiledKernel> load(const std::string& key, const GeneratedSource& source) const;
  void store(const std::string& key, const CompiledKernel& kernel) const;
  std::string path_of(const std::string& key) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace jitsparse
