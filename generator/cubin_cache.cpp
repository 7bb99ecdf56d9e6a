#include "generator/cubin_cache.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/file_util.hpp"
#include "generator/hash.hpp"

namespace jitsparse {
namespace {
constexpr const char* kMagic = "JITSPARSE-CUBIN-1\n";
}

CubinCache::CubinCache(std::string root) {
  dir_ = (root.empty() ? cache_root() : root) + "/cubins";
  make_private_dirs(dir_);
}

std::string CubinCache::key(const GeneratedSource& source, const CompileOptions& options) const {
  Sha1 h;
  h.update(source.source);
  for (const auto& e : source.kernel_expressions) h.update(e);
  h.update(device_headers().digest);
  for (const auto& o : nvrtc_options(options)) h.update(o);
  h.update(nvrtc_version());
  return h.hex();
}

std::string CubinCache::path_of(const std::string& key) const { return dir_ + "/" + key + ".cubin"; }

// File: magic line, one JSON line {lowered_names, variants, arch, size, sha1}, then the cubin bytes.
std::optional<CompiledKernel> CubinCache::load(const std::string& key, const GeneratedSource& source) const {
  const std::string path = path_of(key);
  auto content = read_file(path);
  if (!content) return std::nullopt;
  auto corrupt = [&](const std::string& why) -> std::optional<CompiledKernel> {
    std::cerr << "jitsparse: cache entry " << path << " is corrupt (" << why << "); rebuilding it\n";
    std::remove(path.c_str());
    return std::nullopt;
  };
  const std::string magic = kMagic;
  if (content->compare(0, magic.size(), magic) != 0) return corrupt("bad header");
  const size_t eol = content->find('\n', magic.size());
  if (eol == std::string::npos) return corrupt("no metadata line");
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(content->substr(magic.size(), eol - magic.size()));
  } catch (const std::exception&) {
    return corrupt("unreadable metadata");
  }
  if (!meta.is_object() || !meta.contains("size") || !meta.contains("sha1") || !meta.contains("lowered_names"))
    return corrupt("incomplete metadata");
  const size_t size = meta["size"].get<size_t>();
  if (content->size() - eol - 1 != size) return corrupt("size mismatch (truncated?)");
  const char* payload = content->data() + eol + 1;
  if (sha1_hex(payload, size) != meta["sha1"].get<std::string>()) return corrupt("checksum mismatch");
  CompiledKernel k;
  k.name = source.name;
  k.variant_names = source.variant_names;
  try {
    k.lowered_names = meta["lowered_names"].get<std::vector<std::string>>();
  } catch (const std::exception&) {
    return corrupt("unreadable kernel names");
  }
  if (k.lowered_names.size() != k.variant_names.size()) return corrupt("kernel count mismatch");
  k.arch = meta.value("arch", "");
  k.cubin.assign(payload, payload + size);
  k.from_cache = true;
  return k;
}

void CubinCache::store(const std::string& key, const CompiledKernel& k) const {
  nlohmann::json meta = {{"lowered_names", k.lowered_names},
                         {"arch", k.arch},
                         {"variants", k.variant_names},
                         {"size", k.cubin.size()},
                         {"sha1", sha1_hex(k.cubin.data(), k.cubin.size())}};
  std::string content = kMagic + meta.dump() + "\n";
  content.append(k.cubin.data(), k.cubin.size());
  // No fsync: hundreds of programs per tune, and a torn entry fails its checksum and is rebuilt (load()).
  write_file_atomically(path_of(key), content, /*durable=*/false);
}

}  // namespace jitsparse
