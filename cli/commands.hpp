#pragma once
#include <string>
#include <vector>

namespace jitsparse::cli {

// One subcommand of the `jitsparse` tool. run() gets the arguments after the subcommand's name and
// returns the exit code; it may throw jitsparse::Error (printed by main, exit 1).
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& commands();

int run_info(const std::vector<std::string>& args);
int run_tune(const std::vector<std::string>& args);
int run_export(const std::vector<std::string>& args);
int run_bench(const std::vector<std::string>& args);
int run_bench_add(const std::vector<std::string>& args);
int run_memory(const std::vector<std::string>& args);
int run_inspect(const std::vector<std::string>& args);
int run_generate(const std::vector<std::string>& args);
int run_predict(const std::vector<std::string>& args);
int run_evaluate(const std::vector<std::string>& args);
int run_cache(const std::vector<std::string>& args);

}  // namespace jitsparse::cli
