#include "cli/matrix_sources.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "core/error.hpp"
#include "core/permutation.hpp"
#include "io/matrix_market.hpp"
#include "tuner/builtin_matrices.hpp"

namespace fs = std::filesystem;

namespace jitsparse::cli {

std::vector<MatrixSource> matrix_sources(const std::vector<std::string>& paths, const std::string& entry,
                                         const std::string& builtin_which) {
  std::vector<MatrixSource> out;
  if (paths.empty()) {
    for (const auto& spec : builtin_specs_or_named(builtin_which))
      // The training and irregular sets get domains of their own, so that their winners never mix with
      // the built-in set's.
      out.push_back({spec.name,
                     (spec.size == "train" || spec.size == "irregular" ? spec.size + "-" : std::string("builtin-")) +
                         spec.family,
                     spec.entry,
                     [make = spec.make, name = spec.name] {
                       HostMatrix m = make();
                       m.name = name;
                       return m;
                     }});
    return out;
  }
  for (const auto& arg : paths) {
    // "folder@complex": a path with its own entry type
    const auto at = arg.rfind('@');
    const std::string path = at == std::string::npos ? arg : arg.substr(0, at);
    const std::string path_entry = at == std::string::npos ? entry : arg.substr(at + 1);
    auto file_source = [&](const fs::path& p, const std::string& domain) {
      ReadOptions o;
      o.entry = path_entry;
      return MatrixSource{p.stem().string(), domain, path_entry, [p, o] { return read_matrix_market(p.string(), o); }};
    };
    const fs::path p(path);
    if (fs::is_directory(p)) {
      std::vector<fs::path> files;
      for (const auto& f : fs::directory_iterator(p))
        if (f.is_regular_file() && f.path().extension() == ".mtx") files.push_back(f.path());
      if (files.empty()) throw InvalidArgument("folder '" + path + "' holds no .mtx file");
      std::sort(files.begin(), files.end());
      const std::string domain = fs::absolute(p).lexically_normal().filename().string();
      for (const auto& f : files) out.push_back(file_source(f, domain.empty() ? path : domain));
    } else if (fs::is_regular_file(p)) {
      out.push_back(file_source(p, "files-" + path_entry));
    } else {
      throw InvalidArgument("no such matrix file or folder: '" + path + "'");
    }
  }
  return out;
}

MatrixQueue::MatrixQueue(std::vector<MatrixSource> sources, Ordering ordering)
    : sources_(std::move(sources)), ordering_(ordering) {}

std::vector<std::string> MatrixQueue::entries() const {
  std::vector<std::string> out;
  for (const auto& s : sources_)
    if (std::find(out.begin(), out.end(), s.entry) == out.end()) out.push_back(s.entry);
  return out;
}

int MatrixQueue::planned() const {
  return static_cast<int>(sources_.size()) * (ordering_ == Ordering::none ? 1 : 2);
}

const LoadedMatrix* MatrixQueue::next() {
  if (reorder_next_) {
    reorder_next_ = false;
    const HostMatrix& a = current_->matrix;
    const auto start = std::chrono::steady_clock::now();
    PermutedMatrix p = reorder(a, ordering_);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "reordered " << a.name << " by " << to_string(ordering_) << " in " << seconds
              << " s: bandwidth " << bandwidth(a) << " -> " << bandwidth(p.matrix) << "\n";
    current_ = std::make_unique<LoadedMatrix>(
        LoadedMatrix{std::move(p.matrix), current_->domain + ordering_suffix(ordering_)});
    return current_.get();
  }
  current_.reset();  // the one handed out last is done with: at most this and the prefetched one are held
  if (next_source_ == sources_.size()) return nullptr;
  const MatrixSource& src = sources_[next_source_++];
  // A failed load rethrows here, when its matrix is reached, as a load on this thread would.
  if (load_error_) {
    const std::exception_ptr e = load_error_;
    load_error_ = nullptr;
    std::rethrow_exception(e);
  }
  if (loaded_)
    current_ = std::move(loaded_);
  else
    current_ = std::make_unique<LoadedMatrix>(LoadedMatrix{prefetch_.valid() ? prefetch_.get() : src.load(), src.domain});
  if (next_source_ < sources_.size())
    prefetch_ = std::async(std::launch::async, sources_[next_source_].load);
  const HostMatrix& a = current_->matrix;
  if (ordering_ != Ordering::none) {
    reorder_next_ = a.rows == a.cols;
    if (!reorder_next_)
      std::cerr << "note: " << a.name << " is " << a.rows << " x " << a.cols << ", not square: not reordered by "
                << to_string(ordering_) << "\n";
  }
  return current_.get();
}

const HostMatrix* MatrixQueue::loaded_next() {
  if (reorder_next_ || load_error_) return nullptr;
  if (!loaded_) {
    if (!prefetch_.valid() || prefetch_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return nullptr;
    try {
      loaded_ = std::make_unique<LoadedMatrix>(LoadedMatrix{prefetch_.get(), sources_[next_source_].domain});
    } catch (...) {
      load_error_ = std::current_exception();
      return nullptr;
    }
  }
  return &loaded_->matrix;
}

Ordering parse_reorder_option(const std::string& s) {
  try {
    return parse_ordering(s);
  } catch (const InvalidArgument&) {
    throw InvalidArgument("--reorder must be none, rcm or degree, got '" + s + "'");
  }
}

const char* const kReorderHelp =
    "none, rcm or degree: each square matrix also runs renumbered (P A P^T) by reverse Cuthill-McKee (a smaller "
    "bandwidth) or by decreasing degree (a graph's hubs together), as '<name>@rcm' (or '@degree') with its own "
    "database record and domain '<domain>@rcm' (or '@degree')";

double parse_duration(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  const std::string unit = end ? end : "";
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "m" || unit == "min") scale = 60;
  else if (unit == "h") scale = 3600;
  else if (unit == "d") scale = 86400;
  if (end == s.c_str() || scale == 0 || !(v >= 0))
    throw InvalidArgument("cannot read the duration '" + s + "' (e.g. 90s, 10m, 1h, 30d)");
  return v * scale;
}

int64_t parse_bytes(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  std::string unit = end ? end : "";
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  double scale = 0;
  if (unit.empty()) scale = 1;
  else if (unit == "K" || unit == "k") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  if (end == s.c_str() || scale == 0 || !(v > 0)) throw InvalidArgument("cannot read the size '" + s + "' (e.g. 512M, 8G)");
  return static_cast<int64_t>(v * scale);
}

}  // namespace jitsparse::cli
