#include "generator/cache_maintenance.hpp"

#include <chrono>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"

namespace jitsparse {
namespace {

namespace fs = std::filesystem;

bool is_leftover(const fs::path& p) { return p.filename().string().find(".tmp.") != std::string::npos; }

double age_seconds(const fs::directory_entry& e) {
  std::error_code ec;
  const auto written = e.last_write_time(ec);
  if (ec) return 0;
  return std::chrono::duration<double>(fs::file_time_type::clock::now() - written).count();
}

// Calls f(entry) for every regular file of root/sub (none when the folder is missing).
template <class F>
void each_file(const std::string& root, const char* sub, F&& f) {
  std::error_code ec;
  const fs::path dir = fs::path(root) / sub;
  if (!fs::is_directory(dir, ec)) return;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) f(e);
}

void check_root(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw InvalidArgument("no cache folder '" + root + "'");
  // A folder with other files but neither part is not ours: refuse rather than touch it. An empty one is
  // a cache nothing was written to yet (cache_root() makes the folder).
  if (!fs::is_directory(fs::path(root) / "cubins", ec) && !fs::is_directory(fs::path(root) / "tuning", ec) &&
      !fs::is_empty(root, ec))
    throw InvalidArgument("'" + root + "' holds no cubins/ or tuning/ folder: not a jitsparse cache");
}

}  // namespace

CacheFiles cache_files(const std::string& root) {
  check_root(root);
  CacheFiles out;
  std::error_code ec;
  each_file(root, "cubins", [&](const fs::directory_entry& e) {
    const uintmax_t size = e.file_size(ec);
    if (is_leftover(e.path())) {
      ++out.leftovers;
      out.leftover_bytes += ec ? 0 : size;
    } else if (e.path().extension() == ".cubin") {
      ++out.cubins;
      out.cubin_bytes += ec ? 0 : size;
    }
  });
  each_file(root, "tuning", [&](const fs::directory_entry& e) {
    if (is_leftover(e.path())) {
      ++out.leftovers;
      out.leftover_bytes += e.file_size(ec);
    } else if (e.path().extension() == ".json") {
      out.databases.push_back({e.path().string(), e.file_size(ec)});
    }
  });
  return out;
}

CacheFiles clean_cache(const std::string& root, const CleanOptions& options) {
  check_root(root);
  constexpr double kLeftoverAge = 3600;  // a temporary file younger than this may belong to a running writer
  CacheFiles removed;
  std::error_code ec;
  auto remove = [&](const fs::directory_entry& e, size_t& count, uintmax_t& bytes) {
    const uintmax_t size = e.file_size(ec);
    if (fs::remove(e.path(), ec)) {
      ++count;
      bytes += size;
    }
  };
  each_file(root, "cubins", [&](const fs::directory_entry& e) {
    if (is_leftover(e.path())) {
      if (age_seconds(e) > kLeftoverAge) remove(e, removed.leftovers, removed.leftover_bytes);
    } else if (e.path().extension() == ".cubin" && age_seconds(e) >= options.older_than_seconds) {
      remove(e, removed.cubins, removed.cubin_bytes);
    }
  });
  each_file(root, "tuning", [&](const fs::directory_entry& e) {
    if (is_leftover(e.path())) {
      if (age_seconds(e) > kLeftoverAge) remove(e, removed.leftovers, removed.leftover_bytes);
    } else if (options.databases && e.path().extension() == ".json") {
      const std::string path = e.path().string();
      const uintmax_t size = e.file_size(ec);
      if (fs::remove(e.path(), ec)) removed.databases.push_back({path, size});
    }
  });
  return removed;
}

}  // namespace jitsparse
