// jitsparse cache (generator/cache_maintenance.hpp): what a cache folder holds and its clean-up.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "cli/matrix_sources.hpp"
#include "core/error.hpp"
#include "generator/cache_maintenance.hpp"

using namespace jitsparse;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text, std::chrono::hours age = std::chrono::hours(0)) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  fs::last_write_time(p, fs::file_time_type::clock::now() - age);
}

}  // namespace

TEST_CASE("cache: info counts kernels, interrupted writes and databases; clean keeps what it should") {
  const fs::path root = fs::temp_directory_path() / ("jitsparse-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  write(root / "cubins" / "old.cubin", "0123456789", std::chrono::hours(24 * 40));
  write(root / "cubins" / "new.cubin", "01234");
  write(root / "cubins" / "old.cubin.tmp.12.34.0", "abc", std::chrono::hours(3));   // a killed writer's
  write(root / "cubins" / "new.cubin.tmp.56.78.1", "abcd");                         // maybe a running one's
  write(root / "tuning" / "NVIDIA_H100_sm_90_132sm.json", "{}");
  write(root / "tuning" / "NVIDIA_H100_sm_90_132sm.json.tmp.9.9.9", "{", std::chrono::hours(2));

  const CacheFiles before = cache_files(root.string());
  CHECK(before.cubins == 2);
  CHECK(before.cubin_bytes == 15);
  CHECK(before.leftovers == 3);
  REQUIRE(before.databases.size() == 1);
  CHECK(before.databases[0].bytes == 2);

  CleanOptions older;
  older.older_than_seconds = cli::parse_duration("30d");
  const CacheFiles first = clean_cache(root.string(), older);
  CHECK(first.cubins == 1);       // the 40-day-old one
  CHECK(first.cubin_bytes == 10);
  CHECK(first.leftovers == 2);    // the two older than an hour, not the young one
  CHECK(first.databases.empty());
  CHECK(fs::exists(root / "cubins" / "new.cubin"));
  CHECK(fs::exists(root / "cubins" / "new.cubin.tmp.56.78.1"));

  const CacheFiles second = clean_cache(root.string(), {});
  CHECK(second.cubins == 1);
  CHECK(cache_files(root.string()).cubins == 0);
  REQUIRE(cache_files(root.string()).databases.size() == 1);  // tuning results stay unless asked

  CleanOptions all;
  all.databases = true;
  CHECK(clean_cache(root.string(), all).databases.size() == 1);
  CHECK(cache_files(root.string()).databases.empty());
  fs::remove_all(root);
}

TEST_CASE("cache: a folder that is not a cache is refused; an empty one is an empty cache") {
  const fs::path root = fs::temp_directory_path() / ("jitsparse-cache-refuse-" + std::to_string(::getpid()));
  fs::remove_all(root);
  CHECK_THROWS_AS(cache_files(root.string()), InvalidArgument);  // missing
  fs::create_directories(root);
  CHECK(cache_files(root.string()).cubins == 0);  // empty: nothing written yet
  write(root / "notes.txt", "mine");
  CHECK_THROWS_WITH_AS(clean_cache(root.string(), {}), doctest::Contains("not a jitsparse cache"), InvalidArgument);
  CHECK(fs::exists(root / "notes.txt"));
  fs::remove_all(root);
}
