// The `jitsparse` command-line tool: dispatches to one subcommand (cli/cmd_*.cpp).
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options/errors.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "generator/nvrtc_workers.hpp"

namespace {

void print_usage() {
  std::cout << "jitsparse " JITSPARSE_VERSION
               ": a code-generating autotuner for sparse matrix-vector products of compound entries\n\n"
               "usage: jitsparse <command> [options]     (jitsparse <command> --help for its options)\n\n"
               "commands:\n";
  for (const auto& c : jitsparse::cli::commands()) std::printf("  %-10s %s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage();
    return 2;
  }
  std::string name = argv[1];
  // Hidden: the NVRTC worker processes this command starts (generator/nvrtc_workers.hpp).
  if (name == jitsparse::kNvrtcWorkerSubcommand) return jitsparse::nvrtc_worker_main(argc, argv);
  jitsparse::enable_nvrtc_workers("/proc/self/exe", jitsparse::kNvrtcWorkerSubcommand);
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage();
    return 0;
  }
  if (name == "--version") {
    std::cout << "jitsparse " JITSPARSE_VERSION "\n";
    return 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : jitsparse::cli::commands()) {
    if (name != c.name) continue;
    try {
      return c.run(args);
    } catch (const boost::program_options::error& e) {
      std::cerr << "jitsparse " << name << ": " << e.what() << " (see jitsparse " << name << " --help)\n";
      return 2;
    } catch (const jitsparse::Error& e) {
      std::cerr << "jitsparse " << name << ": error: " << e.what() << "\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "jitsparse " << name << ": unexpected error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "jitsparse: unknown command '" << name << "'\n\n";
  print_usage();
  return 2;
}
