#pragma once
// A user entry type whose JSON snippet does not compile, for the tests of NVRTC's error path.
#include <functional>
#include <string>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "generator/nvrtc_compiler.hpp"
#include "generator/source_gen.hpp"
#include "generator/variant.hpp"

namespace jitsparse::test {

// complex, renamed broken_complex (as read from /home/user/broken_complex.json), whose mac names x.nope.
inline GeneratedSource broken_entry_source() {
  EntryType bad = EntryRegistry::instance().get("complex");
  bad.name = "broken_complex";
  bad.source = "/home/user/broken_complex.json";
  bad.mac_snippet = "acc.re += a.re * x.nope;";
  Variant v = Variant::parse("complex.f64/csr-aos-aos/static-256x2");
  v.entry = bad.name;
  return generate_source(v, bad);
}

// The message of the CompileError that compile throws, "" when it throws none.
inline std::string compile_error(const std::function<CompiledKernel()>& compile) {
  try {
    compile();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

}  // namespace jitsparse::test
