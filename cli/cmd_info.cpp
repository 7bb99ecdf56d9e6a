#include <iostream>

#include <boost/program_options.hpp>
#include <nvrtc.h>

#include "cli/commands.hpp"
#include "core/entry_type.hpp"
#include "runtime/device_info.hpp"

namespace po = boost::program_options;

namespace jitsparse::cli {

int run_info(const std::vector<std::string>& args) {
  po::options_description opts("jitsparse info: what this build and machine offer");
  opts.add_options()("help,h", "show this help")("device", po::value<int>()->default_value(0), "GPU ordinal");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  po::notify(vm);
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::cout << "jitsparse " JITSPARSE_VERSION "\nNVRTC " << major << "." << minor << "\nentry types:";
  for (const auto& n : EntryRegistry::instance().names()) std::cout << " " << n;
  std::cout << "\n";
  std::string why;
  int n = device_count(&why);
  if (n == 0) {
    std::cout << "GPU: none (" << why << ")\n";
    return 0;
  }
  DeviceInfo d = query_device(vm["device"].as<int>());
  std::cout << "GPU " << d.ordinal << ": " << d.name << ", " << d.arch() << ", " << d.sm_count << " SMs, "
            << d.global_memory / (1 << 20) << " MiB, L2 " << d.l2_bytes / (1 << 20) << " MiB, driver "
            << d.driver_version << "\n";
  return 0;
}

}  // namespace jitsparse::cli
