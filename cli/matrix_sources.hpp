#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"

namespace jitsparse::cli {

// A matrix to tune or benchmark, loaded only when needed (large ones are held one at a time).
struct MatrixSource {
  std::string name;
  std::string domain;  // matrices of one domain share an entry type and get one domain winner
  std::function<HostMatrix()> load;
};

// From command-line paths: files are matrices, folders are domain sets of their *.mtx files; all read
// with the given entry type, or the one after '@' ("data/complex@complex"). No paths: the built-in set ("small", "large", "all" or "train"), one domain per family
// ("builtin-<family>"; "train-<family>" for the training set).
// Throws InvalidArgument for a missing path or an empty folder.
std::vector<MatrixSource> matrix_sources(const std::vector<std::string>& paths, const std::string& entry,
                                         const std::string& builtin_which);

// "90", "90s", "10m", "1.5h" -> seconds; throws InvalidArgument.
double parse_duration(const std::string& s);
// "512M", "8G", "1000000" -> bytes; throws InvalidArgument.
int64_t parse_bytes(const std::string& s);

}  // namespace jitsparse::cli
