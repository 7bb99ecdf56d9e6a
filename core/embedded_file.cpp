#include "core/embedded_file.hpp"

namespace jitsparse {

extern const EmbeddedFile embedded_templates[];
extern const int embedded_templates_count;
extern const EmbeddedFile embedded_configs[];
extern const int embedded_configs_count;

const std::vector<EmbeddedFile>& embedded_templates_list() {
  static const std::vector<EmbeddedFile> files(embedded_templates, embedded_templates + embedded_templates_count);
  return files;
}

const std::vector<EmbeddedFile>& embedded_configs_list() {
  static const std::vector<EmbeddedFile> files(embedded_configs, embedded_configs + embedded_configs_count);
  return files;
}

}  // namespace jitsparse
