#include "cli/options.hpp"

#include <iostream>

#include "core/entry_type.hpp"

namespace jitsparse::cli {

std::optional<po::variables_map> parse_command_line(const std::vector<std::string>& args,
                                                    const po::options_description& opts, const char* positional,
                                                    int max_positional) {
  po::options_description all;
  all.add(opts);
  po::positional_options_description pos;
  if (positional) {
    po::options_description hidden;
    hidden.add_options()(positional, po::value<std::vector<std::string>>(), "");
    all.add(hidden);
    pos.add(positional, max_positional);
  }
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return std::nullopt;
  }
  po::notify(vm);
  return vm;
}

std::vector<std::string> positional_values(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

void add_entry_configs(const po::variables_map& vm) {
  if (!vm.count("entry-config")) return;
  for (const auto& f : vm["entry-config"].as<std::vector<std::string>>())
    EntryRegistry::mutable_instance().add(load_entry_type_file(f));
}

std::vector<Precision> parse_precisions(const std::string& s) {
  if (s == "both") return {Precision::f32, Precision::f64};
  return {parse_precision(s)};
}

}  // namespace jitsparse::cli
