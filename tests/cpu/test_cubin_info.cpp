// The registers and stack frame ptxas records in a cubin, read without a GPU (generator/cubin_info.hpp).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "generator/cubin_info.hpp"
#include "generator/kernel_builder.hpp"

using namespace jitsparse;

TEST_CASE("cubin info: stage one's quaternion f64 kernel spills at 2048 threads per SM, not at 1024") {
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-cubin-info-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  // __launch_bounds__(256, 8) leaves 32 registers per thread: a quaternion f64 entry, its x and the row's
  // sum need more (CUDA 13.0: about 200 bytes spilled); 256 x 4 leaves 64 and nothing spills.
  const Variant crowded = Variant::parse("quaternion.f64/ell-aos-soa/static-256x8");
  const Variant roomy = Variant::parse("quaternion.f64/ell-aos-soa/static-256x4");
  const Variant light = Variant::parse("real.f32/ell-aos-aos/static-256x8");
  for (const Variant& v : {crowded, roomy, light}) {
    const CompiledKernel k = builder.build(v);
    const auto info = cubin_kernel_info(k.cubin);
    REQUIRE(k.lowered_names.size() == 1);
    REQUIRE(info.count(k.lowered_names[0]) == 1);
    const CubinKernelInfo& i = info.at(k.lowered_names[0]);
    INFO(v.name(), ": ", i.registers, " registers, frame ", i.frame_bytes, " bytes");
    CHECK(i.registers > 0);
    CHECK(i.registers <= (v.schedule.blocks_per_sm == 8 ? 32 : 64));
    CHECK(cubin_frame_bytes(k, v.name()) == i.frame_bytes);
    if (v == crowded)
      CHECK(i.frame_bytes > 0);
    else
      CHECK(i.frame_bytes == 0);
  }
  CHECK(cubin_frame_bytes(builder.build(light), "real.f32/csr-aos-aos/static-256x8") == -1);  // not in it
  std::filesystem::remove_all(dir);
}

TEST_CASE("cubin info: bytes that are not a cubin give nothing, never a crash") {
  CHECK(cubin_kernel_info({}).empty());
  CHECK(cubin_kernel_info(std::vector<char>(100, 'x')).empty());
  std::vector<char> elf(64, 0);
  const char magic[] = {0x7f, 'E', 'L', 'F', 2};
  std::copy(magic, magic + 5, elf.begin());
  elf[0x28] = 0x7f;  // section headers far past the end
  elf[0x3a] = 64;
  elf[0x3c] = 3;
  CHECK(cubin_kernel_info(elf).empty());
  // A real cubin cut short anywhere: no crash, and never more kernels than the whole cubin has.
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-cubin-cut-" + std::to_string(::getpid()));
  KernelBuilder builder("sm_90", dir);
  const CompiledKernel k = builder.build(Variant::parse("real.f32/ell-aos-aos/static-256x8"));
  REQUIRE(cubin_kernel_info(k.cubin).size() == 1);
  for (size_t n = 0; n < k.cubin.size(); n += 97) {
    const std::vector<char> cut(k.cubin.begin(), k.cubin.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK(cubin_kernel_info(cut).size() <= 1);
  }
  std::filesystem::remove_all(dir);
}
