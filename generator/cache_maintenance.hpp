#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace jitsparse {

// What a cache folder (core/file_util.hpp cache_root(): cubins/ and tuning/) holds, and its clean-up. The
// cubin cache never evicts by itself: every kernel ever compiled stays until `jitsparse cache clean`.
struct CacheFiles {
  size_t cubins = 0;              // compiled programs (cubins/*.cubin)
  uintmax_t cubin_bytes = 0;
  size_t leftovers = 0;           // temporary files of writers that were killed (*.tmp.*)
  uintmax_t leftover_bytes = 0;
  struct Database {
    std::string path;
    uintmax_t bytes = 0;
  };
  std::vector<Database> databases;  // tuning/*.json: one per GPU
};

CacheFiles cache_files(const std::string& root);

struct CleanOptions {
  // Compiled programs written (compiled or rebuilt) less than this many seconds ago stay; 0: all go.
  double older_than_seconds = 0;
  bool databases = false;  // also the tuning databases: every tuning result on this machine is lost
};
// Removes compiled programs (they are compiled again when needed), temporary files left by killed writers
// (only those older than an hour: a running tuner may be writing one) and, when asked, the tuning
// databases. Safe beside a running tuner: a program it no longer finds is compiled again. Returns what
// was removed. Throws Error for a folder that is not a jitsparse cache.
CacheFiles clean_cache(const std::string& root, const CleanOptions& options);

}  // namespace jitsparse
