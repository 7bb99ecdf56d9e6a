#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/source_gen.hpp"
#include "generator/variant.hpp"

using namespace jitsparse;

TEST_CASE("generator: variant names round-trip") {
  for (const char* n : {"quaternion.f64/ell-soa-aos/static-256x2", "real.f32/sell32-aos-soa/dynamic-96x6-tpr4",
                        "block3.f64/csr-soa-soa/static-1024x2-tpr32", "dual_quaternion.f32/sell16-aos-aos/static-64x8"}) {
    CHECK(Variant::parse(n).name() == n);
  }
  CHECK(Variant::parse("complex.f64/sell-32-soa-aos/static-128x4").name() == "complex.f64/sell32-soa-aos/static-128x4");
  CHECK_THROWS_AS(Variant::parse("real.f16/csr-aos-aos/static-256x2"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/coo-aos-aos/static-256x2"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/csr-aos-aos/static-100x2"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/csr-aos-aos/static-1024x4"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/csr-aos-aos/static-256x2-tpr3"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("nonsense"), InvalidArgument);
}

TEST_CASE("generator: NVRTC compiles a variant and the cache returns it") {
  const std::string dir = std::filesystem::temp_directory_path() / "jitsparse-gen-test";
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  Variant v = Variant::parse("quaternion.f32/csr-aos-aos/static-256x2");
  CompiledKernel k = builder.build(v);
  CHECK_FALSE(k.from_cache);
  CHECK(k.cubin.size() > 100);
  CHECK(k.lowered_name.find("spmv") != std::string::npos);
  CompiledKernel again = builder.build(v);
  CHECK(again.from_cache);
  CHECK(again.cubin == k.cubin);
  CHECK(again.lowered_name == k.lowered_name);

  SUBCASE("a corrupted cache entry is rebuilt, not loaded") {
    const auto src = generate_source(v, EntryRegistry::instance().get("quaternion"));
    CompileOptions o;
    o.arch = "sm_90";
    const std::string path = builder.cache().path_of(builder.cache().key(src, o));
    REQUIRE(std::filesystem::exists(path));
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(-10, std::ios::end);
      f.write("XXXXXXXXXX", 10);
    }
    CompiledKernel rebuilt = builder.build(v);
    CHECK_FALSE(rebuilt.from_cache);
    CHECK(rebuilt.cubin == k.cubin);
    std::filesystem::resize_file(path, 50);  // truncated
    CHECK_FALSE(builder.build(v).from_cache);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("generator: a bad user entry type gets the NVRTC log and its file name") {
  EntryType bad = EntryRegistry::instance().get("complex");
  bad.name = "broken_complex";
  bad.source = "/home/user/broken_complex.json";
  bad.mac_snippet = "acc.re += a.re * x.nope;";
  Variant v = Variant::parse("complex.f64/csr-aos-aos/static-256x2");
  v.entry = bad.name;
  try {
    compile_with_nvrtc(generate_source(v, bad), CompileOptions{});
    FAIL("expected a compile error");
  } catch (const CompileError& e) {
    const std::string what = e.what();
    CHECK(what.find("broken_complex.json") != std::string::npos);
    CHECK(what.find("nope") != std::string::npos);
  }
}

TEST_CASE("generator: clamp_arch") {
  CHECK(clamp_arch(9, 0) == "sm_90");
  CHECK_THROWS_AS(clamp_arch(3, 0), DeviceError);
  const auto archs = nvrtc_supported_archs();
  REQUIRE_FALSE(archs.empty());
  CHECK(clamp_arch(99, 9) == "sm_" + std::to_string(archs.back()));
}
