// NVRTC in worker processes (generator/nvrtc_workers.hpp): the jitsparse command serves as the worker.
#include <doctest/doctest.h>

#include <signal.h>

#include <string>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "generator/nvrtc_workers.hpp"
#include "generator/source_gen.hpp"
#include "generator/variant.hpp"
#include "broken_entry_util.hpp"

using namespace jitsparse;

namespace {

GeneratedSource program_of(const std::vector<std::string>& names) {
  std::vector<Variant> vs;
  for (const auto& n : names) vs.push_back(Variant::parse(n));
  return generate_program(vs, EntryRegistry::instance().get(vs.front().entry));
}

}  // namespace

TEST_CASE("nvrtc workers: a worker process compiles what this thread compiles, survives deaths, reports errors") {
#ifndef __linux__
  return;
#endif
  enable_nvrtc_workers(JITSPARSE_CLI_PATH, kNvrtcWorkerSubcommand);
  REQUIRE(nvrtc_workers_enabled());
  const GeneratedSource src = program_of({"complex.f32/ell-aos-aos/static-256x8", "complex.f32/csr-soa-aos/static-128x8-tpr4"});
  const CompiledKernel here = compile_with_nvrtc(src, CompileOptions{});
  const CompiledKernel there = compile_anywhere(src, CompileOptions{});
  REQUIRE(nvrtc_worker_pids().size() == 1);  // it ran in a worker, which is idle again
  CHECK(there.lowered_names == here.lowered_names);
  CHECK(there.variant_names == here.variant_names);
  CHECK(there.cubin == here.cubin);  // NVRTC is deterministic: the same bytes
  CHECK(there.compile_seconds > 0);

  SUBCASE("a killed worker is replaced and the program compiled in a new one") {
    const int dead = nvrtc_worker_pids().front();
    REQUIRE(::kill(dead, SIGKILL) == 0);
    const CompiledKernel again = compile_anywhere(src, CompileOptions{});
    CHECK(again.cubin == here.cubin);
    const auto pids = nvrtc_worker_pids();
    REQUIRE(pids.size() == 1);
    CHECK(pids.front() != dead);
  }
  SUBCASE("NVRTC's log comes back as the same CompileError") {
    const std::string what = test::compile_error([] { return compile_anywhere(test::broken_entry_source(), CompileOptions{}); });
    CHECK(what.find("broken_complex.json") != std::string::npos);
    CHECK(what.find("nope") != std::string::npos);
    CHECK(nvrtc_worker_pids().size() == 1);  // a compile error does not cost the worker
  }
}
