#pragma once
#include <optional>
#include <string>

namespace jitsparse {

// The cache root: $JITSPARSE_CACHE, else $XDG_CACHE_HOME/jitsparse, else ~/.cache/jitsparse.
// Created (mode 0700) on first use; throws Error when it cannot be.
std::string cache_root();
// Creates a folder and its parents with mode 0700; throws Error naming the path.
void make_private_dirs(const std::string& path);
// Writes to a temporary file beside `path`, then renames it into place, so a killed or concurrent writer
// never leaves a half-written file. `durable` also fsyncs before the rename, so that a power loss cannot
// leave the new name on unwritten data: for what cannot be rebuilt (the tuning database, reports), not
// for the cubin cache, whose entries carry a checksum and are rebuilt when torn. Throws Error.
void write_file_atomically(const std::string& path, const std::string& content, bool durable = true);
// Whole file, or nothing if it does not exist or cannot be read.
std::optional<std::string> read_file(const std::string& path);

// What tells one version of a file from another without reading it: a file replaced by rename (every
// writer of write_file_atomically) is a new inode, one edited in place has another size or times (ns).
struct FileIdentity {
  unsigned long long device = 0, inode = 0;
  long long size = 0, modified_ns = 0, changed_ns = 0;
  bool operator==(const FileIdentity& o) const {
    return device == o.device && inode == o.inode && size == o.size && modified_ns == o.modified_ns &&
           changed_ns == o.changed_ns;
  }
  bool operator!=(const FileIdentity& o) const { return !(*this == o); }
};
// nullopt where there is no such file (or it cannot be examined).
std::optional<FileIdentity> file_identity(const std::string& path);

}  // namespace jitsparse
