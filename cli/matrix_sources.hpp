#pragma once
#include <exception>
#include <functional>
#include <memory>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"
#include "runtime/permuted_matrix.hpp"

namespace jitsparse::cli {

// A matrix to tune or benchmark, loaded only when needed (large ones are held one at a time).
struct MatrixSource {
  std::string name;
  std::string domain;  // matrices of one domain share an entry type and get one domain winner
  std::string entry;   // its entry type's name, known before loading (the tuner compiles ahead by it)
  std::function<HostMatrix()> load;
};

// From command-line paths: files are matrices, folders are domain sets of their *.mtx files; all read
// with the given entry type, or the one after '@' ("data/complex@complex"). No paths: the built-in set ("small", "large", "all" or "train"), one domain per family
// ("builtin-<family>"; "train-<family>" for the training set).
// Throws InvalidArgument for a missing path or an empty folder.
std::vector<MatrixSource> matrix_sources(const std::vector<std::string>& paths, const std::string& entry,
                                         const std::string& builtin_which);

// One matrix as a command runs it: a loaded source or its reordering, with the domain it is tuned in.
struct LoadedMatrix {
  HostMatrix matrix;
  std::string domain;
};

// Hands out the matrices of a source list one at a time. While one is in use, the next source loads on
// a background thread (generating or reading a large matrix takes seconds of one core that tuning the
// previous one hides), so at most two are held: the current one and the next. With Ordering::rcm each square matrix is followed by its reverse Cuthill-McKee renumbering
// P A P^T, named "<name>@rcm" (its own database record) in domain "<domain>@rcm" (so reordering never
// changes the winner of the original matrices' domain); the time and the bandwidth before and after go to
// stderr. A non-square matrix is not reordered and a note says so.
class MatrixQueue {
 public:
  MatrixQueue(std::vector<MatrixSource> sources, Ordering ordering);
  // The next matrix, valid until the following call; nullptr after the last.
  const LoadedMatrix* next();
  // The matrix the next call to next() hands out, if it is loaded already (never waits; nullptr
  // otherwise, and before a reordering, which next() makes then). The pointer stays valid through that
  // call to next(), which returns the same matrix, and until the call after it.
  const HostMatrix* loaded_next();
  // How many matrices it hands out at most (for progress estimates).
  int planned() const;
  // The entry types of the matrices it hands out, each once, in the order they come.
  std::vector<std::string> entries() const;

 private:
  std::vector<MatrixSource> sources_;
  Ordering ordering_;
  size_t next_source_ = 0;
  std::unique_ptr<LoadedMatrix> current_;  // held by pointer: loaded_next's address stays the matrix's
  std::future<HostMatrix> prefetch_;  // sources_[next_source_], loading in the background (when valid)
  std::unique_ptr<LoadedMatrix> loaded_;  // sources_[next_source_], taken from prefetch_ by loaded_next()
  std::exception_ptr load_error_;         // its load failed: rethrown when next() reaches it
  bool reorder_next_ = false;  // current_ is a square original whose reordering comes next
};

// The value of --reorder: none, rcm or degree; throws InvalidArgument naming the option.
Ordering parse_reorder_option(const std::string& s);
// The help text of --reorder, shared by tune and bench.
extern const char* const kReorderHelp;

// "90", "90s", "10m", "1.5h", "30d" -> seconds; throws InvalidArgument.
double parse_duration(const std::string& s);
// "512M", "8G", "1000000" -> bytes; throws InvalidArgument.
int64_t parse_bytes(const std::string& s);

}  // namespace jitsparse::cli
