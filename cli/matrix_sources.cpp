#include "cli/matrix_sources.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "io/matrix_market.hpp"
#include "tuner/builtin_matrices.hpp"

namespace fs = std::filesystem;

namespace jitsparse::cli {

std::vector<MatrixSource> matrix_sources(const std::vector<std::string>& paths, const std::string& entry,
                                         const std::string& builtin_which) {
  std::vector<MatrixSource> out;
  if (paths.empty()) {
    for (const auto& spec : builtin_specs(builtin_which))
      // The training set gets domains of its own, so that its winners never mix with the built-in set's.
      out.push_back({spec.name, (spec.size == "train" ? "train-" : "builtin-") + spec.family,
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
      return MatrixSource{p.stem().string(), domain, [p, o] { return read_matrix_market(p.string(), o); }};
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

double parse_duration(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  const std::string unit = end ? end : "";
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "m" || unit == "min") scale = 60;
  else if (unit == "h") scale = 3600;
  if (end == s.c_str() || scale == 0 || !(v >= 0))
    throw InvalidArgument("cannot read the duration '" + s + "' (e.g. 90s, 10m, 1h)");
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
