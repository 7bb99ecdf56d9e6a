#pragma once
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "core/precision.hpp"

namespace jitsparse::cli {

namespace po = boost::program_options;

// Parses a subcommand's arguments. `positional`, when given, names a hidden option that collects the free
// arguments (at most max_positional, -1: any number). Returns nothing after printing the help for --help.
std::optional<po::variables_map> parse_command_line(const std::vector<std::string>& args,
                                                    const po::options_description& opts,
                                                    const char* positional = nullptr, int max_positional = -1);
// The free arguments collected under `name` (empty if none).
std::vector<std::string> positional_values(const po::variables_map& vm, const char* name);
// Registers the entry types of every --entry-config file (option "entry-config", if present).
void add_entry_configs(const po::variables_map& vm);
// "f32", "f64" or "both".
std::vector<Precision> parse_precisions(const std::string& s);

}  // namespace jitsparse::cli
