// jitsparse cache: what the cache folder holds (compiled kernels, tuning databases) and its clean-up.
// Needs no GPU.
#include <cstdio>

#include <boost/program_options.hpp>

#include "cli/commands.hpp"
#include "cli/matrix_sources.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/file_util.hpp"
#include "generator/cache_maintenance.hpp"

namespace jitsparse::cli {
namespace {

double megabytes(uintmax_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

void print_files(const CacheFiles& f) {
  std::printf("  compiled programs: %zu (%.1f MB)\n", f.cubins, megabytes(f.cubin_bytes));
  if (f.leftovers > 0)
    std::printf("  temporary files of interrupted writes: %zu (%.1f MB)\n", f.leftovers, megabytes(f.leftover_bytes));
  if (f.databases.empty()) std::printf("  tuning databases: none\n");
  for (const auto& d : f.databases) std::printf("  tuning database: %s (%.1f MB)\n", d.path.c_str(), megabytes(d.bytes));
}

}  // namespace

int run_cache(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse cache [info|clean] [options]\n\n"
      "info (the default): where the cache is ($JITSPARSE_CACHE, else $XDG_CACHE_HOME/jitsparse, else\n"
      "~/.cache/jitsparse) and what it holds: the compiled kernels (cubins/, one file per NVRTC program) and the\n"
      "tuning databases (tuning/, one per GPU). The kernel cache never evicts by itself.\n"
      "clean: removes compiled kernels (each is compiled again when next needed: a tune or a first load takes\n"
      "longer) and temporary files left by interrupted writes; the tuning databases stay unless --databases.\n"
      "Safe beside a running tuner. Needs no GPU.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("older-than", po::value<std::string>(), "clean: only kernels compiled longer ago than this (e.g. 30d, 12h, 90m)")
      ("databases", "clean: also delete the tuning databases (every tuning result of this machine is lost)")
      ("cache", po::value<std::string>(), "the cache folder (default: as above)");
  const auto parsed = parse_command_line(args, opts, "action", 1);
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  const auto actions = positional_values(vm, "action");
  const std::string action = actions.empty() ? "info" : actions.front();
  if (action != "info" && action != "clean")
    throw InvalidArgument("unknown cache action '" + action + "' (expected info or clean)");
  if (action == "info" && (vm.count("older-than") || vm.count("databases")))
    throw InvalidArgument("--older-than and --databases belong to 'jitsparse cache clean'");
  const std::string root = vm.count("cache") ? vm["cache"].as<std::string>() : cache_root();
  if (action == "info") {
    const CacheFiles files = cache_files(root);
    std::printf("cache %s\n", root.c_str());
    print_files(files);
    return 0;
  }
  CleanOptions o;
  if (vm.count("older-than")) o.older_than_seconds = parse_duration(vm["older-than"].as<std::string>());
  o.databases = vm.count("databases") > 0;
  const CacheFiles removed = clean_cache(root, o);
  std::printf("cache %s: removed\n", root.c_str());
  print_files(removed);
  std::printf("left\n");
  print_files(cache_files(root));
  return 0;
}

}  // namespace jitsparse::cli
