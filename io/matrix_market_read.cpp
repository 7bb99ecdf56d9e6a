// Matrix Market reader: the body (coordinate or array), symmetry mirrors, and the conversion to the
// requested entry type.
#include "io/matrix_market.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "io/detail/matrix_market_entries.hpp"
#include "io/detail/matrix_market_header.hpp"
#include "io/detail/matrix_market_text.hpp"

namespace jitsparse::detail::mm_io {
namespace {

// Numbers per entry in the file (pattern: none) and per stored scalar (pattern: 1.0).
int file_values(Field f) {
  switch (f) {
    case Field::pattern:
      return 0;
    case Field::complex:
      return 2;
    case Field::quaternion:
      return 4;
    default:
      return 1;
  }
}
int stored_values(Field f) { return f == Field::pattern ? 1 : file_values(f); }

// The mirror of an off-diagonal entry in a symmetric, skew-symmetric or Hermitian file.
void mirror_value(Symmetry s, Field f, const double* v, double* out) {
  const int k = stored_values(f);
  for (int i = 0; i < k; ++i) out[i] = v[i];
  if (s == Symmetry::skew) {
    for (int i = 0; i < k; ++i) out[i] = -v[i];
  } else if (s == Symmetry::hermitian) {
    for (int i = 1; i < k; ++i) out[i] = -v[i];  // conjugate: imaginary parts negated
  }
}

// Reads the values of one entry from `tok`; pattern gives 1.0.
void read_values(Tokens& tok, const Header& h, int64_t line, const std::string& file, double* out) {
  const int n = file_values(h.field);
  if (n == 0) {
    out[0] = 1.0;
    return;
  }
  std::string_view t;
  for (int i = 0; i < n; ++i) {
    if (!tok.next(t))
      fail(file, line,
           "missing value: a " +
               std::string(n == 1   ? "real"
                           : n == 2 ? "complex"
                                    : "quaternion") +
               " entry needs " + std::to_string(n) + (n == 1 ? " number" : " numbers"));
    if (h.field == Field::integer) {
      int64_t iv;
      if (!parse_int(t, iv)) fail(file, line, "bad integer " + quote(t));
      out[i] = static_cast<double>(iv);
    } else {
      if (!parse_double(t, out[i])) fail(file, line, "bad number " + quote(t));
      if (!std::isfinite(out[i])) fail(file, line, "non-finite value " + quote(t));
    }
  }
}

void no_more_tokens(Tokens& tok, int64_t line, const std::string& file) {
  std::string_view t;
  if (tok.next(t)) fail(file, line, "extra token " + quote(t) + " after the entry");
}

int64_t read_index(Tokens& tok, int64_t limit, const char* what, int64_t line, const std::string& file) {
  std::string_view t;
  if (!tok.next(t)) fail(file, line, std::string("missing ") + what + " index");
  int64_t v;
  if (!parse_int(t, v)) fail(file, line, std::string("bad ") + what + " index " + quote(t));
  if (v < 1 || v > limit)
    fail(file, line,
         std::string(what) + " index " + std::to_string(v) + " outside 1.." + std::to_string(limit));
  return v - 1;
}

// Calls sink(row, col, values, line) for every scalar, mirrors included.
template <class ScalarSink>
void emit(const Header& h, int64_t r, int64_t c, const double* v, int64_t line, ScalarSink& sink) {
  sink(r, c, v, line);
  if (h.symmetry != Symmetry::general && r != c) {
    double m[4];
    mirror_value(h.symmetry, h.field, v, m);
    sink(c, r, m, line);
  }
}

template <class ScalarSink>
void read_coordinate(LineReader& in, const Header& h, const std::string& file, ScalarSink& sink) {
  std::string_view line;
  int64_t count = 0;
  double v[4];
  while (in.next(line)) {
    if (is_skippable(line)) continue;
    const int64_t ln = in.line();
    if (count == h.entries)
      fail(file, ln,
           "more entries than the " + std::to_string(h.entries) + " declared on line " +
               std::to_string(h.size_line));
    Tokens tok(line);
    int64_t r = read_index(tok, h.rows, "row", ln, file);
    int64_t c = read_index(tok, h.cols, "column", ln, file);
    read_values(tok, h, ln, file, v);
    no_more_tokens(tok, ln, file);
    if (h.symmetry != Symmetry::general && r < c)
      fail(file, ln,
           "entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) +
               ") is above the diagonal: a symmetric, skew-symmetric or Hermitian file stores only the lower "
               "triangle");
    if (h.symmetry == Symmetry::skew && r == c)
      fail(file, ln,
           "diagonal entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) +
               ") in a skew-symmetric file (its diagonal is zero and not stored)");
    emit(h, r, c, v, ln, sink);
    ++count;
  }
  if (count < h.entries)
    fail(file, in.line(),
         "the file ends after " + std::to_string(count) + " entries, but line " +
             std::to_string(h.size_line) + " declares " + std::to_string(h.entries));
}

// Column-major; symmetric kinds store the lower triangle (skew: without the diagonal). One entry a line.
template <class ScalarSink>
void read_array(LineReader& in, const Header& h, const std::string& file, ScalarSink& sink) {
  std::string_view line;
  int64_t count = 0, r = 0, c = 0;
  const int64_t first_row_offset = h.symmetry == Symmetry::general ? -1
                                   : h.symmetry == Symmetry::skew  ? 1
                                                                   : 0;
  auto first_row = [&](int64_t col) { return first_row_offset < 0 ? 0 : col + first_row_offset; };
  r = first_row(0);
  double v[4];
  while (in.next(line)) {
    if (is_skippable(line)) continue;
    const int64_t ln = in.line();
    if (count == h.entries)
      fail(file, ln,
           "more values than the " + std::to_string(h.entries) + " that the size on line " +
               std::to_string(h.size_line) + " calls for");
    Tokens tok(line);
    read_values(tok, h, ln, file, v);
    no_more_tokens(tok, ln, file);
    emit(h, r, c, v, ln, sink);
    ++count;
    if (++r >= h.rows) r = first_row(++c);
  }
  if (count < h.entries)
    fail(file, in.line(),
         "the file ends after " + std::to_string(count) + " values, but the size on line " +
             std::to_string(h.size_line) + " calls for " + std::to_string(h.entries));
}

template <class ScalarSink>
void read_body(LineReader& in, const Header& h, const std::string& file, ScalarSink& sink) {
  if (h.format == Format::coordinate)
    read_coordinate(in, h, file, sink);
  else
    read_array(in, h, file, sink);
}

enum class Conversion { direct, real_to_complex, expansion };

Conversion plan(const Header& h, const EntryType& e, const std::string& file) {
  if (h.field == Field::complex) {
    if (e.name == "complex") return Conversion::direct;
    fail(file, 1, "a complex file cannot be read as entry '" + e.name + "' (read it with entry 'complex')");
  }
  if (h.field == Field::quaternion) {
    if (e.name == "quaternion") return Conversion::direct;
    fail(file, 1,
         "a quaternion file cannot be read as entry '" + e.name + "' (read it with entry 'quaternion')");
  }
  if (e.name == "real" && e.num_components() == 1) return Conversion::direct;
  if (e.name == "complex" && e.num_components() == 2) return Conversion::real_to_complex;
  if (!expansion_form(e).readable)
    fail(file, 1,
         "entry type '" + e.name + "' cannot be read from a real matrix: some component has no cell " +
             "of its own in the " + std::to_string(e.num_vector_components()) + "x" +
             std::to_string(e.num_vector_components()) + " expansion");
  return Conversion::expansion;
}

// TripletList's own checks (the 32-bit entry count) become parse errors on the size line.
template <class F>
HostMatrix build_checked(const Header& h, const std::string& file, F&& build) {
  try {
    return build();
  } catch (const InvalidArgument& err) {
    fail(file, h.size_line, err.what());
  } catch (const std::bad_alloc&) {
    fail(file, h.size_line,
         "not enough memory for a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
             " matrix with " + std::to_string(h.entries) + " entries");
  }
}

// Every value was checked to be finite, but duplicates are summed afterwards and a sum can overflow
// (1e308 + 1e308). The first such entry is reported with the lines it was summed from (the body is read
// again: this runs only on the error path).
void check_finite_sums(const HostMatrix& m, const std::string& text, const Header& h, int scale,
                       const std::string& file) {
  const int c = m.components();
  size_t bad = m.values.size();
  for (size_t i = 0; i < m.values.size(); ++i)
    if (!std::isfinite(m.values[i])) {
      bad = i;
      break;
    }
  if (bad == m.values.size()) return;
  const int64_t k = static_cast<int64_t>(bad) / c;
  const int64_t row = std::upper_bound(m.row_ptr.begin(), m.row_ptr.end(), k) - m.row_ptr.begin() - 1;
  const int64_t col = m.col_idx[k];
  LineReader in(text);
  std::string_view line;
  while (in.line() < h.size_line && in.next(line)) {
  }
  std::string lines;
  int64_t last = h.size_line, count = 0;
  auto sink = [&](int64_t r, int64_t cl, const double*, int64_t ln) {
    if (r / scale != row || cl / scale != col || ln == last) return;
    if (++count <= 8) lines += (lines.empty() ? "" : ", ") + std::to_string(ln);
    last = ln;
  };
  read_body(in, h, file, sink);
  const std::string what = std::string(scale > 1 ? "block" : "entry") + " (" + std::to_string(row + 1) + ", " +
                           std::to_string(col + 1) + ")";
  if (count > 1)
    fail(file, last,
         what + ": the duplicates on lines " + lines + (count > 8 ? ", ..." : "") + " sum to a non-finite value");
  // One line, yet not finite: a user entry type whose expansion divides (a coefficient below 1).
  fail(file, last, what + ": its value is not finite as a '" + m.entry.name + "' entry");
}

HostMatrix parse(const std::string& text, const std::string& file, const std::string& name,
                 const ReadOptions& options) {
  const EntryType& entry = EntryRegistry::instance().get(options.entry);
  LineReader in(text);
  std::string_view line;
  if (!in.next(line)) fail(file, 1, "empty file: expected the banner '%%MatrixMarket matrix ...'");
  Header h;
  read_banner(line, h, file);
  const Conversion conv = plan(h, entry, file);
  const int scale = conv == Conversion::expansion ? entry.num_vector_components() : 1;
  read_size_line(in, h, scale, file);
  // Reserve no more than the text can hold (a lying header must not allocate terabytes).
  const size_t reserve =
      static_cast<size_t>(std::min<int64_t>(h.entries, static_cast<int64_t>(text.size() / 4 + 1)));
  HostMatrix m;
  if (conv == Conversion::expansion) {
    Scalars s;
    s.k = 1;
    s.rows.reserve(reserve), s.cols.reserve(reserve), s.lines.reserve(reserve), s.values.reserve(reserve);
    auto sink = [&s](int64_t r, int64_t c, const double* v, int64_t ln) { s.add(r, c, v, ln); };
    read_body(in, h, file, sink);
    const ExpansionForm f = expansion_form(entry);
    m = build_checked(
        h, file, [&] { return build_from_expansion(h, s, entry, f, options.quaternion_tolerance, file); });
  } else {
    TripletList triplets(entry, h.rows, h.cols);
    const bool widen = conv == Conversion::real_to_complex;
    auto sink = [&triplets, widen](int64_t r, int64_t c, const double* v, int64_t) {
      if (!widen) return triplets.add(r, c, v);
      const double z[2] = {v[0], 0.0};
      triplets.add(r, c, z);
    };
    read_body(in, h, file, sink);
    m = build_checked(h, file, [&] { return triplets.build(); });
  }
  check_finite_sums(m, text, h, scale, file);
  m.name = name;
  return m;
}

std::string read_whole_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw ParseError(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  if (std::ferror(f.get())) throw ParseError(path + ": cannot read: " + std::strerror(errno));
  return text;
}

}  // namespace
}  // namespace jitsparse::detail::mm_io

namespace jitsparse {

HostMatrix read_matrix_market(const std::string& path, const ReadOptions& options) {
  using namespace detail::mm_io;
  const std::string text = read_whole_file(path);
  return parse(text, path, std::filesystem::path(path).stem().string(), options);
}

HostMatrix read_matrix_market_string(const std::string& text, const std::string& name,
                                     const ReadOptions& options) {
  using namespace detail::mm_io;
  return parse(text, name, name, options);
}

}  // namespace jitsparse
