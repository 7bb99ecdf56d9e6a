// jitsparse export: the tuned variants (or the ones named) as sources for an offline nvcc/CMake build.
#include <filesystem>
#include <iostream>
#include <set>

#include <boost/program_options.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/file_util.hpp"
#include "generator/cubin_info.hpp"
#include "generator/export.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/source_gen.hpp"
#include "runtime/device_info.hpp"
#include "selection/database.hpp"

namespace fs = std::filesystem;

namespace jitsparse::cli {
namespace {

// This GPU's database; without a GPU, the only database in the cache (or an error naming them).
std::string find_database(int device) {
  if (device_count() > 0) return TuningDatabase::path_for(query_device(device), cache_root());
  std::vector<std::string> found;
  const std::string dir = cache_root() + "/tuning";
  if (fs::is_directory(dir))
    for (const auto& f : fs::directory_iterator(dir))
      if (f.path().extension() == ".json") found.push_back(f.path().string());
  if (found.size() == 1) return found[0];
  std::string list;
  for (const auto& f : found) list += "\n  " + f;
  throw InvalidArgument(found.empty() ? "no tuning database in " + dir + ": run `jitsparse tune` first, or name variants with --variant"
                                      : "several tuning databases; choose one with --database:" + list);
}

// Registers and stack frame of each variant's kernels (a two-kernel variant's first kernel too), compiled
// for `arch` through the cubin cache: what limits occupancy and whether ptxas spilled, without a GPU.
void print_resources(const std::vector<Variant>& variants, const std::string& arch) {
  KernelBuilder builder(arch, cache_root());
  std::cout << "kernel resources for " << arch << " (NVRTC " << nvrtc_version() << "): registers per thread, stack frame\n";
  for (const auto& o : builder.build_all(variants)) {
    if (!o.ok) {
      std::cout << "  " << o.variant.name() << ": not compiled: " << o.error.substr(0, o.error.find('\n')) << "\n";
      continue;
    }
    const auto info = cubin_kernel_info(o.program->cubin);
    for (const std::string& kernel : {o.variant.name(), prologue_name(o.variant)})
      for (size_t i = 0; i < o.program->variant_names.size(); ++i) {
        if (o.program->variant_names[i] != kernel) continue;
        const auto it = info.find(o.program->lowered_names[i]);
        std::cout << "  " << kernel << ": ";
        if (it == info.end()) {
          std::cout << "not recorded in the cubin\n";
          continue;
        }
        std::cout << it->second.registers << " registers, " << it->second.frame_bytes << " bytes of stack frame"
                  << (it->second.frame_bytes > 0 ? " (spills)" : "") << "\n";
      }
  }
}

}  // namespace

int run_export(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse export [options]\n\n"
      "Writes .cu/.cuh sources, a host header with one launch function per variant and a CMakeLists.txt that\n"
      "build with nvcc, without jitsparse at run time. By default exports the winners of this GPU's tuning\n"
      "database.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("variant,v", po::value<std::vector<std::string>>(), "a variant name such as quaternion.f64/sell32-soa-aos/static-256x8 (repeatable)")
      ("database", po::value<std::string>(), "tuning database file (default: this GPU's)")
      ("entry-config", po::value<std::vector<std::string>>(), "JSON file defining an entry type (repeatable)")
      ("arch", po::value<std::string>()->default_value("90"), "CUDA architecture for CMAKE_CUDA_ARCHITECTURES")
      ("output,o", po::value<std::string>()->default_value("jitsparse-export"), "output folder")
      ("device", po::value<int>()->default_value(0), "GPU whose database to use")
      ("resources", "also compile each variant with NVRTC for --arch (no GPU needed) and print the registers\n"
                    "and stack frame ptxas gave each kernel: a frame means registers spilled to local memory");
  const auto parsed = parse_command_line(args, opts);
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  add_entry_configs(vm);

  std::vector<Variant> variants;
  std::set<std::string> seen;
  std::vector<std::string> renumbered;  // winners that run on a renumbered matrix
  // A renumbered (@rcm, @degree) winner exports its kernel: the product on P A P^T; renumbering the matrix and
  // moving x and y is the caller's part there (README of the export).
  auto add = [&](const std::string& name) {
    if (name.empty()) return;
    const Variant v = Variant::parse(name);
    if (v.ordering != Ordering::none) renumbered.push_back(name);
    const Variant k = v.kernel_variant();
    if (seen.insert(k.name()).second) variants.push_back(k);
  };
  if (vm.count("variant")) {
    for (const auto& v : vm["variant"].as<std::vector<std::string>>()) add(v);
  } else {
    const std::string path = vm.count("database") ? vm["database"].as<std::string>() : find_database(vm["device"].as<int>());
    if (!fs::exists(path)) throw InvalidArgument("no tuning database at " + path + ": run `jitsparse tune` first");
    TuningDatabase db(path);
    if (!db.warning().empty()) throw InvalidArgument(db.warning());
    for (const MatrixRecord* r : db.records()) add(r->winner);
    for (const auto& d : db.domains()) add(d.winner);
    if (variants.empty()) throw InvalidArgument("the tuning database " + path + " holds no winner yet");
  }
  const std::string out = vm["output"].as<std::string>();
  ExportOptions o;
  o.arch = vm["arch"].as<std::string>();
  const auto units = export_variants(variants, out, o);
  std::cout << "exported " << units.size() << " variants to " << out << "/ (build: cmake -S " << out << " -B " << out
            << "/build && cmake --build " << out << "/build)\n";
  for (const auto& v : variants) std::cout << "  " << v.name() << "\n";
  if (vm.count("resources")) print_resources(variants, "sm_" + o.arch);
  for (const auto& name : renumbered)
    std::cout << "note: " << name << " runs on the matrix renumbered by "
              << (Variant::parse(name).ordering == Ordering::degree ? "decreasing degree (core/permutation.hpp)"
                                                                    : "reverse Cuthill-McKee")
              << ": its kernel was exported; give it P A P^T (and P x), and move the result back with P^T"
              << (Variant::parse(name).renumbered_y == RenumberedY::moved
                      ? " (a kernel of its own was faster than SpmvParams::y_map here: README of the export)\n"
                      : " (or let the kernel write it back: SpmvParams::y_map, README of the export)\n");
  return 0;
}

}  // namespace jitsparse::cli
