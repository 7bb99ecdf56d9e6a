#pragma once
// Internal to the Matrix Market reader and writer: how a compound entry type sits in a real matrix, and
// grouping a real file's scalars into such entries (io/matrix_market_entries.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/host_matrix.hpp"
#include "io/detail/matrix_market_header.hpp"

namespace jitsparse::detail::mm_io {

// The file's own matrix, scalar by scalar (a scalar has stored_values(field) numbers).
struct Scalars {
  int k = 1;
  std::vector<int64_t> rows, cols, lines;
  std::vector<double> values;
  void add(int64_t r, int64_t c, const double* v, int64_t line) {
    rows.push_back(r);
    cols.push_back(c);
    lines.push_back(line);
    values.insert(values.end(), v, v + k);
  }
};

// How an entry type sits in a real (v n) x (v n) matrix: each v x v block is M(a). A component can be
// read back if some cell of M holds it alone (its pivot); blocks and quaternions have one for each.
struct ExpansionForm {
  int v = 0;
  std::vector<std::vector<std::pair<int, double>>> cell_terms;  // per cell: (component, coefficient)
  std::vector<int> pivot_cell;
  std::vector<double> pivot_coeff;
  bool readable = false;
};

ExpansionForm expansion_form(const EntryType& e);

// M(a) at one cell; the first product starts the sum, so 1 * a is a exactly (signed zeros included).
inline double cell_value(const ExpansionForm& f, size_t cell, const double* a) {
  const auto& terms = f.cell_terms[cell];
  if (terms.empty()) return 0.0;
  double s = terms[0].second * a[terms[0].first];
  for (size_t i = 1; i < terms.size(); ++i) s += terms[i].second * a[terms[i].first];
  return s;
}

// Groups scalars into v x v blocks, reads each block's entry through the pivots and checks the rest.
// `tolerance` is relative to each block's largest magnitude; a cell off its form is a ParseError.
HostMatrix build_from_expansion(const Header& h, const Scalars& s, const EntryType& e, const ExpansionForm& f,
                                double tolerance, const std::string& file);

}  // namespace jitsparse::detail::mm_io
