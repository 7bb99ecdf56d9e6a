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

// Which file a path holds now: the database is written to a new file renamed over the old one
// (write_file_atomically), so a tuner's write changes the inode even within one timestamp tick.
struct FileVersion {
  ino_t inode = 0;
  long long modified_ns = 0;
  off_t bytes = 0;
  bool operator==(const FileVersion& o) const {
    return inode == o.inode && modified_ns == o.modified_ns && bytes == o.bytes;
  }
};
std::optional<FileVersion> file_version(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileVersion{st.st_ino, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, st.st_size};
}

// A database file as read, with its selection model prepared: reading takes 0.2-0.3 s for the training
// database and preparing the model's profiles some 10 ms, so a process that loads several matrices pays
// them once, and a later tune's write is read again.
struct LoadedDatabase {
  FileVersion version;
  TuningDatabase db;
  SelectionModel model;
  LoadedDatabase(const std::string& path, long long l2_bytes, FileVersion v) : version(v), db(path), model(db, l2_bytes) {
    model.prepare();
  }
};

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

}  // namespace

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
