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

}  // namespace jitsparse
