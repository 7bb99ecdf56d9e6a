#include "selection/load.hpp"

#include <sys/stat.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "selection/database.hpp"
#include "selection/model.hpp"

namespace jitsparse {

namespace {

std::optional<FileVersion> file_version(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileVersion{static_cast<uint64_t>(st.st_ino), st.st_mtim.tv_sec * int64_t{1000000000} + st.st_mtim.tv_nsec,
                     static_cast<int64_t>(st.st_size)};
}

}  // namespace

LoadedDatabase::LoadedDatabase(const std::string& path, long long l2_bytes, FileVersion read_from)
    : version(read_from), db(path), model(db, l2_bytes) {
  model.prepare();
}

std::shared_ptr<const LoadedDatabase> loaded_database(const std::string& path, long long l2_bytes) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, long long>, std::shared_ptr<const LoadedDatabase>> loaded;
  const std::optional<FileVersion> version = file_version(path);
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = loaded[{path, l2_bytes}];
  if (!version) {  // no database (yet): nothing to keep
    slot.reset();
    return std::make_shared<const LoadedDatabase>(path, l2_bytes, FileVersion{});
  }
  if (!slot || !(slot->version == *version)) slot = std::make_shared<const LoadedDatabase>(path, l2_bytes, *version);
  return slot;
}

Selection load_tuned(Context& ctx, const HostMatrix& a, Precision precision, Op op, bool deterministic) {
  const auto loaded = loaded_database(TuningDatabase::path_for(ctx.device(), ctx.cache_root()), ctx.device().l2_bytes);
  Selection s = select_variant(loaded->db, a, precision, ctx.device(), op, deterministic, &ctx.builder(), &loaded->model);
  ctx.kernel(s.variant);
  return s;
}

DeviceMatrix pack_selected(Context& ctx, const HostMatrix& a, const Selection& s, int64_t memory_cap_bytes) {
  return DeviceMatrix::for_variant(ctx, a, s.variant, s.permutation.get(), memory_cap_bytes);
}

}  // namespace jitsparse
