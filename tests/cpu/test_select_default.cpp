// The default variant (nothing tuned for an entry type) compiled without spilling registers, for every
// entry type jitsparse ships; NVRTC and the cubin reader need no GPU.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "core/entry_type.hpp"
#include "core/random_matrix.hpp"
#include "generator/cubin_info.hpp"
#include "generator/kernel_builder.hpp"
#include "selection/select.hpp"

using namespace jitsparse;

TEST_CASE("select: the default variant keeps every value in registers, for every entry type shipped") {
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-default-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const KernelBuilder builder("sm_90", dir);
  const ScheduleLimits h100;  // 2048 threads per SM: default_variant's 8 blocks of 256 leave 32 registers
  int halved = 0, checked = 0;
  for (const std::string& name : EntryRegistry::instance().names()) {
    const EntryType& entry = EntryRegistry::instance().get(name);
    RandomMatrixOptions o;
    o.rows = o.cols = 300;
    o.mean_row = 8;
    const HostMatrix a = random_matrix(entry, o);
    for (Precision p : {Precision::f32, Precision::f64}) {
      if (!entry.supports(to_string(p))) continue;
      const Variant plain = default_variant(a, p, h100);
      const Variant v = without_spills(plain, builder);
      const Variant k = v.compiled_variant();
      INFO(plain.name(), " -> ", v.name());
      CHECK(cubin_frame_bytes(builder.build(k), k.name()) == 0);
      CHECK(v.schedule.blocks_per_sm <= plain.schedule.blocks_per_sm);
      CHECK(v.schedule.threads == plain.schedule.threads);
      halved += v.schedule.blocks_per_sm < plain.schedule.blocks_per_sm;
      ++checked;
      if (name == "real") CHECK(v == plain);  // a scalar never needed more than 32 registers
      if (name == "quaternion" && p == Precision::f64) CHECK(v.schedule.blocks_per_sm == plain.schedule.blocks_per_sm / 2);
    }
  }
  CHECK(checked >= 20);
  CHECK(halved > 0);
  std::filesystem::remove_all(dir);
}
