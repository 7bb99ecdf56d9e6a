#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <set>
#include <algorithm>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/source_gen.hpp"
#include "generator/variant.hpp"
#include "broken_entry_util.hpp"
#include <nlohmann/json.hpp>

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
  // renumbered variants: the same kernel, run on P A P^T
  for (const char* n : {"real.f32/ell-aos-aos-d16/static-512x4@rcm", "complex.f64/csr-aos-aos/static-256x8-tpr4/h-atomic@rcm",
                        "real.f64/hola-aos-soa/hola-64x32-ept8@rcm"}) {
    const Variant v = Variant::parse(n);
    CHECK(v.name() == n);
    CHECK(v.ordering == Ordering::rcm);
    CHECK(v.kernel_variant().ordering == Ordering::none);
    CHECK(v.kernel_variant().name() + "@rcm" == n);
    CHECK_FALSE(v == v.kernel_variant());
  }
  // hisparse packings that run one kernel compile once: the COO width and the big-strip threshold are read
  // by the packing and the launch only, d and the setup are template numbers
  const Variant c2 = Variant::parse("real.f32/hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1/t-tree");
  const Variant c4 = Variant::parse("real.f32/hisparse64c4-aos-aos/hisparse-128x8-g32-big256-u1/t-tree");
  CHECK(c2.compiled_variant() == c4.compiled_variant());
  CHECK_FALSE(c2.kernel_variant() == c4.kernel_variant());  // packed differently
  CHECK_FALSE(Variant::parse("real.f32/hisparse32c2-aos-aos/hisparse-128x8-g32-big4096-u1/t-tree").compiled_variant() ==
              c2.compiled_variant());
  CHECK_FALSE(Variant::parse("real.f32/hisparse64c2-aos-aos/hisparse-128x8-g32-big4096/t-tree").compiled_variant() ==
              c2.compiled_variant());
  CHECK(Variant::parse(c4.compiled_variant().name()) == c4.compiled_variant());  // a name that parses
  const Variant ell = Variant::parse("real.f32/ell-aos-aos-d16/static-512x4@rcm");
  CHECK(ell.compiled_variant() == ell.kernel_variant());
  CHECK_THROWS_WITH_AS(Variant::parse("real.f32/csr-aos-aos/static-256x2@none"), doctest::Contains("@rcm"), InvalidArgument);
  CHECK_THROWS_WITH_AS(Variant::parse("real.f32/csr-aos-aos/static-256x2@amd"), doctest::Contains("unknown ordering"), InvalidArgument);
  // the y form of a renumbered product: the same kernel, y moved back by a kernel of its own
  const Variant moved = Variant::parse("real.f64/sell32s256-soa-soa-d16/dynamic-256x8@rcm-ymove");
  CHECK(moved.renumbered_y == RenumberedY::moved);
  CHECK(moved.ordering == Ordering::rcm);
  CHECK(moved.name() == "real.f64/sell32s256-soa-soa-d16/dynamic-256x8@rcm-ymove");
  CHECK(moved.compiled_variant() == Variant::parse("real.f64/sell32s256-soa-soa-d16/dynamic-256x8@rcm").compiled_variant());
  CHECK_FALSE(moved == Variant::parse("real.f64/sell32s256-soa-soa-d16/dynamic-256x8@rcm"));
  CHECK(Variant::parse("real.f32/hola-aos-aos/hola-128x8-ept4@degree-ymove").renumbered_y == RenumberedY::moved);
  CHECK(Variant::parse("real.f32/hola-aos-aos/hola-128x8-ept4@degree").renumbered_y == RenumberedY::mapped);
  Variant plain_moved = Variant::parse("real.f64/csr-aos-aos/static-256x2");
  plain_moved.renumbered_y = RenumberedY::moved;  // not renumbered: nothing to move, the name says so
  CHECK(plain_moved.name() == "real.f64/csr-aos-aos/static-256x2");
  CHECK_THROWS_WITH_AS(Variant::parse("real.f32/csr-aos-aos/static-256x2@ymove"), doctest::Contains("@rcm-ymove"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f32/csr-aos-aos/static-256x2@-ymove"), InvalidArgument);
}

TEST_CASE("generator: NVRTC compiles a variant and the cache returns it") {
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-gen-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  Variant v = Variant::parse("quaternion.f32/csr-aos-aos/static-256x2");
  CompiledKernel k = builder.build(v);
  CHECK_FALSE(k.from_cache);
  CHECK(k.cubin.size() > 100);
  // NVRTC's own cache (12.9+) is off, and NVRTC took the option: ours holds the kernels.
  CompileOptions defaults;
  defaults.arch = "sm_90";
  const auto opts = nvrtc_options(defaults);
  CHECK((std::find(opts.begin(), opts.end(), "--no-cache") != opts.end()) == nvrtc_has_own_cache());
  REQUIRE(k.lowered_names.size() == 1);
  CHECK(k.lowered_names[0].find("spmv") != std::string::npos);
  CHECK(k.variant_names[0] == v.name());
  CompiledKernel again = builder.build(v);
  CHECK(again.from_cache);
  CHECK(again.cubin == k.cubin);
  CHECK(again.lowered_names == k.lowered_names);

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
  const std::string what = test::compile_error([] { return compile_with_nvrtc(test::broken_entry_source(), CompileOptions{}); });
  CHECK(what.find("broken_complex.json") != std::string::npos);
  CHECK(what.find("nope") != std::string::npos);
}

TEST_CASE("generator: clamp_arch") {
  CHECK(clamp_arch(9, 0) == "sm_90");
  CHECK_THROWS_AS(clamp_arch(3, 0), DeviceError);
  const auto archs = nvrtc_supported_archs();
  REQUIRE_FALSE(archs.empty());
  CHECK(clamp_arch(99, 9) == "sm_" + std::to_string(archs.back()));
}

#include "generator/search_space.hpp"

TEST_CASE("generator: every structural variant compiles for sm_90, and a second pass hits the cache") {
  // entry x precision x outer x inner x vector x schedule kind, for the four built-ins and two
  // JSON-only types (a block2 and a dual quaternion) to prove the user path.
  // Row layouts in both schedule kinds, hola layouts with one hola schedule.
  const auto variants =
      structural_variants({"real", "complex", "quaternion", "block3", "block2", "dual_quaternion"});
  REQUIRE(variants.size() == 6 * 2 * (20 * 2 + 4));
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-structural-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  auto t0 = std::chrono::steady_clock::now();
  auto cold = builder.build_all(variants);
  double cold_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t ok = 0;
  for (const auto& o : cold) {
    if (!o.ok) MESSAGE(o.variant.name() << ": " << o.error);
    ok += o.ok;
  }
  CHECK(ok == variants.size());
  t0 = std::chrono::steady_clock::now();
  auto warm = builder.build_all(variants);
  double warm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t hits = 0;
  for (const auto& o : warm) hits += o.ok && o.program->from_cache;
  CHECK(hits == variants.size());
  std::cout << "compiled " << variants.size() << " structural variants: cold " << cold_s << " s ("
            << variants.size() / cold_s << "/s), cached " << warm_s << " s (" << variants.size() / warm_s
            << "/s) on " << std::thread::hardware_concurrency() << " cores\n";
  std::filesystem::remove_all(dir);
}

TEST_CASE("generator: every transposed-product kernel compiles (atomic scatter, adjoint gather, hola)") {
  // Op t and h in both kinds for every layout, on two types whose adjoint differs from the entry
  // (complex: conjugate; dual quaternion: derived from its JSON "multiply") and a real one.
  std::vector<Variant> variants;
  for (Op op : {Op::t, Op::h})
    for (const auto& v : structural_variants({"real", "complex", "dual_quaternion"}, Schedule{}, op))
      variants.push_back(v);
  REQUIRE(variants.size() == 2 * 3 * 2 * (20 * 2 + 4) * 2);
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-transpose-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  size_t ok = 0, two_kernels = 0;
  for (const auto& o : builder.build_all(variants)) {
    if (!o.ok) MESSAGE(o.variant.name() << ": " << o.error);
    ok += o.ok;
    if (!o.ok) continue;
    const auto& names = o.program->variant_names;
    const bool has_prologue = std::find(names.begin(), names.end(), prologue_name(o.variant)) != names.end();
    CHECK(has_prologue == o.variant.has_prologue());
    two_kernels += has_prologue;
  }
  CHECK(ok == variants.size());
  CHECK(two_kernels > 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("generator: variant names with an operation and hola schedules read back; bad ones are refused") {
  for (const char* n : {"complex.f32/csr-aos-aos/static-256x8-tpr4/h-atomic", "real.f64/hola-soa-aos/hola-512x4-ept8",
                        "quaternion.f64/sell32-soa-aos/dynamic-128x4/t-copy", "block3.f32/hola-aos-aos/hola-256x8-ept2/t-atomic"}) {
    const Variant v = Variant::parse(n);
    CHECK(v.name() == n);
    nlohmann::json j = v;
    CHECK(j.get<Variant>() == v);
  }
  CHECK(Variant::parse("real.f64/csr-aos-aos/static-256x8").deterministic());
  CHECK(Variant::parse("real.f64/csr-aos-aos/static-256x8/t-copy").deterministic());
  CHECK_FALSE(Variant::parse("real.f64/csr-aos-aos/static-256x8/t-atomic").deterministic());
  CHECK_FALSE(Variant::parse("real.f64/hola-aos-aos/hola-256x8-ept4").deterministic());
  for (const char* bad : {"real.f64/hola-aos-aos/static-256x8", "real.f64/csr-aos-aos/hola-256x8-ept4",
                          "real.f64/csr-aos-aos/static-256x8/n-atomic", "real.f64/csr-aos-aos/static-256x8/t-fast",
                          "real.f64/csr-aos-aos/static-256x8/t", "real.f64/hola-aos-aos/hola-256x8-ept3",
                          "real.f64/hola-aos-aos/hola-256x8-ept64"})
    CHECK_THROWS_AS(Variant::parse(bad), InvalidArgument);
  // Shared memory is checked against the entry type: a quaternion f64 hola block of 4096 entries is too big.
  const EntryType& q = EntryRegistry::instance().get("quaternion");
  CHECK_THROWS_AS(generate_source(Variant::parse("quaternion.f64/hola-aos-aos/hola-512x4-ept8"), q), InvalidArgument);
  CHECK_NOTHROW(generate_source(Variant::parse("quaternion.f64/hola-aos-aos/hola-256x8-ept4"), q));
}

TEST_CASE("generator: schedule names are read exactly: every part in order, digit counts bounded, nothing after") {
  for (const char* good : {"static-256x2", "dynamic-128x4-tpr8", "static-256x8-tpr2-u4-cached", "static-64x16-u8",
                           "static-256x8-cached", "hola-256x4-ept4", "hisparse-128x8-g16-big4096",
                           "hisparse-128x8-g16-big0-s", "hisparse-128x8-g16-big0-u4-s", "hisparse-64x8-g8-big64-u1",
                           "hisparse-128x4-g32-big4096-u1-b", "hisparse-128x8-g16-big0-u4-s-b",
                           "static-512x4-even", "static-256x8-tpr4-u4-cached-even"}) {
    INFO(good);
    CHECK(Schedule::parse(good).name() == good);
  }
  const Schedule s = Schedule::parse("dynamic-128x4-tpr8-u4-cached");
  CHECK(s.kind == ScheduleKind::dynamic);
  CHECK(s.threads == 128);
  CHECK(s.blocks_per_sm == 4);
  CHECK(s.threads_per_row == 8);
  CHECK(s.unroll == 4);
  CHECK(s.cached_matrix);
  for (const char* bad : {"", "static", "static-", "static-256", "static-256x", "static-x2", "static-123456x2",
                          "static-256x1000", "static-256x2-tpr", "static-256x2-tpr1024", "static-256x2-u",
                          "static-256x2-u100", "static-256x2-cached-tpr2", "static-256x2-u4-tpr2",
                          "static-256x2-cachedx", "static-256x2 ", " static-256x2", "Static-256x2", "hola-256x4",
                          "hola-256x4-ept", "hola-256x4-ept4-tpr2", "hisparse-128x8-g16", "hisparse-128x8-g16-big",
                          "hisparse-128x8-g16-big4096-s-s", "hisparse-128x8-g16-big4096-s-u4",
                          "hisparse-128x8-g16-big4096-b-s", "hisparse-128x8-g16-big4096-b-b", "static-256x2-b",
                          "hisparse-128x8-g16-big4096-u3", "hola-256x4-ept4-u4", "static-+256x2", "static-25a6x2",
                          "static-256x2-even-cached", "static-256x2-even-even", "dynamic-256x2-even",
                          "hola-256x4-ept4-even", "hisparse-128x8-g16-big0-even"}) {
    INFO("'" << bad << "'");
    CHECK_THROWS_AS(Schedule::parse(bad), InvalidArgument);
  }
}

TEST_CASE("generator: the adjoint product is derived from the JSON multiply, or refused when a type says so") {
  const EntryType& c = EntryRegistry::instance().get("complex");
  CHECK(c.has_adjoint);
  // conj(a) x: re = a.re x.re + a.im x.im, im = a.re x.im - a.im x.re
  CHECK(c.adjoint_mac_snippet == "acc.re += a.re * x.re + a.im * x.im; acc.im += -a.im * x.re + a.re * x.im; ");
  const EntryType no = parse_entry_type(nlohmann::json::parse(R"({"name": "noadj", "components": ["v"],
      "vector_components": ["v"], "multiply": [["v"]], "mac": "acc.v += a.v * x.v;", "adjoint": false})"), "test");
  CHECK_FALSE(no.has_adjoint);
  Variant v = Variant::parse("real.f64/csr-aos-aos/static-256x8/h-atomic");
  v.entry = "noadj";
  CHECK_THROWS_WITH_AS(generate_source(v, no), doctest::Contains("has no adjoint"), InvalidArgument);
  v.op = Op::t;
  CHECK_NOTHROW(generate_source(v, no));
  CHECK_THROWS_AS(parse_entry_type(nlohmann::json::parse(R"({"name": "x", "components": ["v"],
      "vector_components": ["v"], "multiply": [["v"]], "mac": "acc.v += a.v * x.v;", "adjoint": "no"})"), "test"),
                  ParseError);
}

TEST_CASE("generator: variants of one entry type share programs, split when cores would idle") {
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-grid-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  std::vector<Variant> grid;
  for (const auto& s : all_schedules(ScheduleLimits{}, {4}))
    if (s.threads <= 128) grid.push_back(Variant{"complex", Precision::f32, Layout::parse("sell32-soa-aos"), s});
  REQUIRE(grid.size() > 64);
  auto programs_of = [&](const std::vector<KernelBuilder::Outcome>& out) {
    std::set<const CompiledKernel*> programs;
    for (const auto& o : out) {
      REQUIRE_MESSAGE(o.ok, o.error);
      programs.insert(o.program.get());
      const auto& names = o.program->variant_names;
      CHECK(std::find(names.begin(), names.end(), o.variant.name()) != names.end());
    }
    return programs;
  };
  const auto t0 = std::chrono::steady_clock::now();
  const auto built_one = builder.build_all(grid, 1);  // the outcomes own the programs
  const auto one_thread = programs_of(built_one);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "compiled a schedule grid of " << grid.size() << " variants in " << s << " s (" << grid.size() / s
            << "/s)\n";
  CHECK(one_thread.size() == (grid.size() + 63) / 64);  // static and dynamic together, 64 kernels at most
  // With 4 threads the largest are halved until there is one per thread.
  const auto built_four = builder.build_all(grid, 4);
  CHECK(programs_of(built_four).size() == 4);
  // HiSparse kernels (the slowest to compile) never share a program, whatever the grouping allows.
  std::vector<Variant> mixed(grid.begin(), grid.begin() + 4);
  for (const char* name : {"complex.f32/hisparse64c2-aos-aos/hisparse-128x8-g16-big4096",
                           "complex.f32/hisparse32c2-aos-aos/hisparse-128x8-g16-big4096"})
    mixed.push_back(Variant::parse(name));
  const auto built_mixed = builder.build_all(mixed, 1);
  CHECK(programs_of(built_mixed).size() == 3);  // the four row kernels together, each hisparse alone
  for (const auto& o : built_mixed)
    if (o.variant.layout.outer == OuterLayout::hisparse) CHECK(o.program->variant_names.size() == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("generator: a program that fails is retried one variant at a time") {
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-retry-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  // Two good variants and a hola schedule whose shared memory is over the limit: one program, which fails.
  const std::vector<Variant> variants = {Variant::parse("quaternion.f64/csr-aos-aos/static-256x8-tpr2"),
                                         Variant::parse("quaternion.f64/hola-aos-aos/hola-1024x2-ept32"),
                                         Variant::parse("quaternion.f64/ell-soa-aos/static-128x8")};
  const auto out = builder.build_all(variants, 1);
  REQUIRE(out.size() == 3);
  CHECK(out[0].ok);
  CHECK(out[2].ok);
  CHECK_FALSE(out[1].ok);
  CHECK(out[1].error.find("shared memory") != std::string::npos);
  if (out[0].ok && out[2].ok) CHECK(out[0].program != out[2].program);  // each alone after the retry
  std::filesystem::remove_all(dir);
}

TEST_CASE("generator: the H100 search space") {
  ScheduleLimits h100;  // 1024 threads/block, 2048 threads/SM, 32 blocks/SM
  CHECK(thread_counts(h100) == std::vector<int>{32, 64, 96, 128, 192, 256, 384, 512, 768, 1024});
  CHECK(block_counts(h100) == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32});
  for (const auto& s : all_schedules(h100)) CHECK_NOTHROW(check_schedule(s));
  MESSAGE("search space per entry type and precision on an H100: " << full_space_size(h100));
}

#include <cstdlib>
#include <iterator>

#include "generator/export.hpp"

TEST_CASE("generator: exported sources compile with nvcc on a machine without a GPU") {
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-export-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  // One-kernel variants, then two-kernel ones: hola (op n, op h by atomics) and op t by atomics on a row
  // layout, which launch a first kernel (hola_prepare or scale_y) before the main one.
  const std::vector<Variant> variants = {Variant::parse("quaternion.f64/sell32-soa-aos/dynamic-256x2"),
                                         Variant::parse("block3.f32/csr-aos-aos/static-128x4-tpr4"),
                                         Variant::parse("complex.f64/ell-aos-soa/static-96x3"),
                                         Variant::parse("complex.f32/sell16-aos-aos/static-128x4/h-copy"),
                                         Variant::parse("real.f64/hola-aos-aos/hola-256x8-ept4"),
                                         Variant::parse("complex.f32/csr-aos-aos/static-256x8/t-atomic"),
                                         Variant::parse("quaternion.f64/hola-soa-aos/hola-256x8-ept2/h-atomic")};
  for (size_t i = 4; i < variants.size(); ++i) REQUIRE(variants[i].has_prologue());
  const auto units = export_variants(variants, dir);
  REQUIRE(units.size() == variants.size());
  CHECK(std::filesystem::exists(dir + "/CMakeLists.txt"));
  CHECK(std::filesystem::exists(dir + "/jitsparse_exported.h"));
  CHECK(std::filesystem::exists(dir + "/include/jitsparse/spmv.cuh"));
  CHECK(std::filesystem::exists(dir + "/include/jitsparse/hola.cuh"));
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  // The two-kernel units launch the first kernel, then the main one; hola asks for its workspace.
  const std::string hola = read(units[4]), scatter = read(units[5]);
  CHECK(hola.find("jitsparse::hola_prepare<") != std::string::npos);
  CHECK(hola.find("jitsparse::hola_spmv<") != std::string::npos);
  CHECK(hola.find("block_row == nullptr") != std::string::npos);
  CHECK(scatter.find("jitsparse::scale_y<") != std::string::npos);
  CHECK(scatter.find("jitsparse::spmv_scatter<") != std::string::npos);
  CHECK(hola.find("jitsparse::hola_prepare<") < hola.find("return launch_kernel("));
  const std::string header = read(dir + "/jitsparse_exported.h");
  CHECK(header.find("long long jitsparse_workspace_ints_real_f64_hola_aos_aos_hola_256x8_ept4(long long nnz);") !=
        std::string::npos);
  CHECK(read(dir + "/README.md").find("x has `rows` elements") != std::string::npos);
  std::string objects;
  for (const auto& u : units) {
    const std::string cmd = std::string(JITSPARSE_NVCC) + " -std=c++17 -arch=sm_90 -Xcompiler -fPIC -c -I" + dir +
                            " -I" + dir + "/include " + u + " -o " + u + ".o 2>&1";
    INFO(cmd);
    CHECK(std::system(cmd.c_str()) == 0);
    CHECK(std::filesystem::exists(u + ".o"));
    objects += " " + u + ".o";
  }
  // All units in one shared library, as the GPU test builds them: no symbol defined twice.
  const std::string link = std::string(JITSPARSE_NVCC) + " -shared -arch=sm_90" + objects + " -o " + dir +
                           "/libexported.so 2>&1";
  INFO(link);
  CHECK(std::system(link.c_str()) == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("generator: export refuses what it cannot write") {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("jitsparse-export-refused-" + std::to_string(::getpid()));
  const Variant v = Variant::parse("real.f64/hola-aos-aos/hola-256x8-ept4");
  CHECK_THROWS_WITH_AS(export_variants({v, v}, dir), doctest::Contains("given twice"), InvalidArgument);
  CHECK_THROWS_AS(export_variants({}, dir), InvalidArgument);
  // Too much shared memory for a hola block: generate_source's message, and nothing written.
  const Variant big = Variant::parse("quaternion.f64/hola-aos-aos/hola-1024x1-ept8");
  CHECK_THROWS_WITH_AS(export_variants({big}, dir), doctest::Contains("shared memory"), InvalidArgument);
  CHECK_FALSE(std::filesystem::exists(dir));
}

#include <nlohmann/json.hpp>

TEST_CASE("generator: variants round-trip through JSON") {
  const Variant v = Variant::parse("block3.f32/sell16-soa-aos/dynamic-192x4-tpr8");
  const nlohmann::json j = v;
  CHECK(j["threads_per_row"] == 8);
  CHECK(j["layout"] == "sell16-soa-aos");
  CHECK(j.get<Variant>() == v);
  CHECK(nlohmann::json("real.f64/csr-aos-aos/static-256x8").get<Variant>().layout.name() == "csr-aos-aos");
  CHECK_THROWS_AS(nlohmann::json({{"threads", 3}}).get<Variant>(), InvalidArgument);
}

TEST_CASE("generator: both load policies and the sorted sell compile, op n and op t by atomics") {
  std::vector<Variant> variants;
  for (const char* name : {"real.f64/sell32s256-aos-aos/static-256x8-cached", "real.f32/csr-soa-soa/dynamic-128x4-tpr4-cached",
                           "complex.f64/sell16s64-soa-aos/dynamic-256x4-tpr2-u8", "quaternion.f32/ell-aos-aos/static-256x8-u1-cached",
                           "block3.f64/sell32s1024-aos-soa/static-128x8-tpr4-cached/t-atomic",
                           "complex.f32/sell32s256-aos-aos/static-256x8/h-copy",
                           "real.f32/sell32s256-aos-aos-d16/static-256x8-u4", "complex.f64/csr-soa-aos-d16/static-128x8-tpr4/t-atomic",
                           "block3.f32/ell-aos-soa-d16/dynamic-256x4-cached/h-copy"})
    variants.push_back(Variant::parse(name));
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-policy-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  for (const auto& o : builder.build_all(variants)) {
    INFO(o.variant.name() << ": " << o.error);
    CHECK(o.ok);
  }
  // the policy and the sorted outer layout are in the instantiation
  const std::string cached = kernel_expression(variants[0], EntryRegistry::instance().get("real"));
  CHECK(cached.find("jitsparse::SellSorted<32>") != std::string::npos);
  CHECK(cached.find("jitsparse::LoadCached") != std::string::npos);
  const std::string streaming = kernel_expression(variants[2], EntryRegistry::instance().get("complex"));
  CHECK(streaming.find("jitsparse::LoadStreaming") != std::string::npos);
  const std::string narrow = kernel_expression(variants[6], EntryRegistry::instance().get("real"));
  CHECK(narrow.find("jitsparse::Narrow<jitsparse::SellSorted<32>>") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("generator: the vector move of renumbered variants compiles for every vector width and layout") {
  // permute_vector (templates/jitsparse/permute.cuh) is compiled at run time only on a GPU; this catches
  // a template error without one. Widths: real, complex, block3, quaternion, block8 / dual quaternion.
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-permute-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  for (Precision p : {Precision::f32, Precision::f64})
    for (int components : {1, 2, 3, 4, 8})
      for (VectorLayout layout : {VectorLayout::aos, VectorLayout::soa}) {
        const GeneratedSource s = permute_source(p, components, layout);
        INFO(s.name);
        CHECK(s.kernel_expressions.at(0).find("permute_vector<") != std::string::npos);
        CHECK_NOTHROW(builder.build(s));
      }
  std::filesystem::remove_all(dir);
}
