// Compound entries in a real matrix: the expansion form of an entry type, and grouping scalars into
// v x v blocks read back as entries.
#include "io/detail/matrix_market_entries.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace jitsparse::detail::mm_io {
namespace {

std::string num(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// "[w -x -y -z; x w -z y; ...]" for messages.
std::string form_text(const EntryType& e, const ExpansionForm& f) {
  std::string s = "[";
  for (int r = 0; r < f.v; ++r) {
    for (int c = 0; c < f.v; ++c) {
      const auto& terms = f.cell_terms[static_cast<size_t>(r) * f.v + c];
      std::string cell;
      for (const auto& [comp, coeff] : terms) {
        const std::string& name = e.components[comp];
        if (coeff == 1)
          cell += cell.empty() ? name : "+" + name;
        else if (coeff == -1)
          cell += "-" + name;
        else
          cell += (coeff > 0 && !cell.empty() ? "+" : "") + num(coeff) + "*" + name;
      }
      s += (c ? " " : "") + (cell.empty() ? std::string("0") : cell);
    }
    s += r + 1 < f.v ? "; " : "]";
  }
  return s;
}

}  // namespace

ExpansionForm expansion_form(const EntryType& e) {
  ExpansionForm f;
  f.v = e.num_vector_components();
  f.cell_terms.resize(static_cast<size_t>(f.v) * f.v);
  for (const auto& t : e.terms) {
    auto& cell = f.cell_terms[static_cast<size_t>(t.out) * f.v + t.x];
    auto it = std::find_if(cell.begin(), cell.end(), [&](const auto& p) { return p.first == t.a; });
    if (it == cell.end())
      cell.emplace_back(t.a, t.coeff);
    else
      it->second += t.coeff;
  }
  for (auto& cell : f.cell_terms)
    cell.erase(std::remove_if(cell.begin(), cell.end(), [](const auto& p) { return p.second == 0; }),
               cell.end());
  f.pivot_cell.assign(e.num_components(), -1);
  f.pivot_coeff.assign(e.num_components(), 0.0);
  for (size_t cell = 0; cell < f.cell_terms.size(); ++cell) {
    const auto& terms = f.cell_terms[cell];
    if (terms.size() == 1 && f.pivot_cell[terms[0].first] < 0) {
      f.pivot_cell[terms[0].first] = static_cast<int>(cell);
      f.pivot_coeff[terms[0].first] = terms[0].second;
    }
  }
  f.readable = f.v > 0 && std::none_of(f.pivot_cell.begin(), f.pivot_cell.end(), [](int p) { return p < 0; });
  return f;
}

HostMatrix build_from_expansion(const Header& h, const Scalars& s, const EntryType& e, const ExpansionForm& f,
                                double tolerance, const std::string& file) {
  const int64_t v = f.v, nbc = h.cols / v;
  const size_t cells = static_cast<size_t>(v * v);
  std::vector<std::pair<int64_t, int64_t>> order(s.rows.size());  // (block key, scalar index)
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = {(s.rows[i] / v) * nbc + s.cols[i] / v, static_cast<int64_t>(i)};
  std::sort(order.begin(), order.end());
  TripletList triplets(e, h.rows / v, h.cols / v);
  std::vector<double> block(cells), a(e.num_components());
  std::vector<int64_t> line_of(cells);
  const bool check = !std::all_of(f.cell_terms.begin(), f.cell_terms.end(), [](const auto& t) {
    return t.size() == 1 && t[0].second == 1;
  });  // plain blocks: every cell is its own component, nothing to check
  for (size_t g = 0; g < order.size();) {
    const int64_t key = order[g].first;
    std::fill(line_of.begin(), line_of.end(), 0);
    int64_t first_line = std::numeric_limits<int64_t>::max();
    for (; g < order.size() && order[g].first == key; ++g) {
      const int64_t i = order[g].second;
      const size_t cell = static_cast<size_t>((s.rows[i] % v) * v + s.cols[i] % v);
      if (line_of[cell])
        block[cell] += s.values[i];  // duplicates are summed
      else
        block[cell] = s.values[i], line_of[cell] = s.lines[i];
      first_line = std::min(first_line, s.lines[i]);
    }
    for (size_t cell = 0; cell < cells; ++cell)
      if (!line_of[cell]) block[cell] = 0.0;  // missing inside a block: zero
    for (int c = 0; c < e.num_components(); ++c) a[c] = block[f.pivot_cell[c]] / f.pivot_coeff[c];
    const int64_t br = key / nbc, bc = key % nbc;
    if (check) {
      double largest = 0;
      for (double x : block) largest = std::max(largest, std::abs(x));
      for (size_t cell = 0; cell < cells; ++cell) {
        const double want = cell_value(f, cell, a.data());
        if (std::abs(want - block[cell]) <= tolerance * largest) continue;
        const int64_t r0 = br * v + 1, c0 = bc * v + 1;
        fail(file, line_of[cell] ? line_of[cell] : first_line,
             "block (" + std::to_string(br + 1) + ", " + std::to_string(bc + 1) + ") (scalar rows " +
                 std::to_string(r0) + "-" + std::to_string(r0 + v - 1) + ", columns " + std::to_string(c0) +
                 "-" + std::to_string(c0 + v - 1) + ") is not a " + e.name + " expansion " + form_text(e, f) +
                 ": the value at (" + std::to_string(r0 + static_cast<int64_t>(cell) / v) + ", " +
                 std::to_string(c0 + static_cast<int64_t>(cell) % v) + ") is " + num(block[cell]) + " but " +
                 num(want) + " was expected (tolerance " + num(tolerance) +
                 " relative to the block's largest magnitude " + num(largest) + ")");
      }
    }
    triplets.add(br, bc, a.data());
  }
  return triplets.build();
}

}  // namespace jitsparse::detail::mm_io
