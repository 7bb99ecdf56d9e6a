#include "cli/commands.hpp"

namespace jitsparse::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"info", "version, entry types and the GPU found (or why none)", run_info},
  };
  return list;
}

}  // namespace jitsparse::cli
