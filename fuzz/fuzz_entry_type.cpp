// libFuzzer target: the entry-type JSON loader (core/entry_type.hpp). An accepted type must be usable:
// term indices in range, finite coefficients, and the products and expansion computable.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/entry_type.hpp"
#include "fuzz/fuzz_util.hpp"
#include "io/detail/matrix_market_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitsparse;
  const std::string text(reinterpret_cast<const char*>(data), size);
  EntryType e;
  if (!fuzz::accepted([&] { e = load_entry_type_string(text, "fuzz.json"); },
                      [](const std::string& msg) { return msg.rfind("fuzz.json: ", 0) == 0; }))
    return 0;
  const int c = e.num_components(), v = e.num_vector_components();
  fuzz::require(c > 0 && v > 0 && !e.terms.empty(), "accepted an entry type without components or terms");
  fuzz::require(!e.mac_snippet.empty() && !e.zero_snippet.empty(), "accepted an entry type without device code");
  for (const auto& t : e.terms) {
    fuzz::require(t.out >= 0 && t.out < v && t.x >= 0 && t.x < v && t.a >= 0 && t.a < c,
                  "a multiply term indexes outside the components");
    fuzz::require(std::isfinite(t.coeff), "accepted a non-finite coefficient");
  }
  // The uses the library makes of a type: products, the expansion, the Matrix Market expansion form.
  const std::vector<double> a(c, 1.0), x(v, 1.0);
  std::vector<double> y(v, 0.0);
  e.multiply_add(a.data(), x.data(), y.data());
  e.adjoint_multiply_add(a.data(), x.data(), y.data());
  fuzz::require(e.expansion(a.data()).size() == static_cast<size_t>(v) * v, "expansion of the wrong size");
  const auto form = detail::mm_io::expansion_form(e);
  if (form.readable)
    for (int k = 0; k < c; ++k)
      fuzz::require(form.pivot_cell[k] >= 0 && form.pivot_cell[k] < v * v && form.pivot_coeff[k] != 0,
                    "a readable expansion form with a bad pivot");
  return 0;
}
