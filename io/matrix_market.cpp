#include "io/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace jitsparse {
namespace {

// TripletList's limit: indices up to 2^31 - 2, so rows + 1 still fits in int32.
constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max() - 1;
constexpr int64_t kMaxEntries = std::numeric_limits<int32_t>::max();

enum class Format { coordinate, array };
enum class Field { real, integer, complex, pattern, quaternion };
enum class Symmetry { general, symmetric, skew, hermitian };

struct Header {
  Format format = Format::coordinate;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  int64_t rows = 0, cols = 0, entries = 0;  // entries: declared (coordinate) or stored values (array)
  int64_t size_line = 0;
};

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

[[noreturn]] void fail(const std::string& file, int64_t line, const std::string& what) {
  throw ParseError(file + ":" + std::to_string(std::max<int64_t>(line, 1)) + ": " + what);
}

// A token as it may appear in a message: short, printable.
std::string quote(std::string_view t) {
  std::string s = "'";
  for (size_t i = 0; i < t.size() && i < 40; ++i) s += (t[i] >= 32 && t[i] < 127) ? t[i] : '?';
  if (t.size() > 40) s += "...";
  return s + "'";
}

std::string num(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The text line by line; line() is the 1-based number of the line last returned.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_;
    return true;
  }
  int64_t line() const { return line_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 0;
};

class Tokens {
 public:
  explicit Tokens(std::string_view s) : s_(s) {}
  bool next(std::string_view& t) {
    while (p_ < s_.size() && is_space(s_[p_])) ++p_;
    if (p_ == s_.size()) return false;
    size_t start = p_;
    while (p_ < s_.size() && !is_space(s_[p_])) ++p_;
    t = s_.substr(start, p_ - start);
    return true;
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

// Blank lines and % comments may appear anywhere after the banner (files in the wild have them).
bool is_skippable(std::string_view line) {
  for (char c : line) {
    if (c == '%') return true;
    if (!is_space(c)) return false;
  }
  return true;
}

bool parse_int(std::string_view t, int64_t& out) {
  if (t.empty()) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// Finite or not is the caller's business; false for anything that is not one whole number.
bool parse_double(std::string_view t, double& out) {
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (t.empty() || t[0] == '-' || t[0] == '+') return false;
  }
  if (t.empty()) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), out, std::chars_format::general);
  if (r.ptr != t.data() + t.size()) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // Under- or overflow: strtod gives the denormal / zero / inf that the caller then judges.
    std::string copy(t);
    out = std::strtod(copy.c_str(), nullptr);
    return true;
  }
  return r.ec == std::errc();
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// A banner word (case-insensitive) from its allowed values; the error lists them.
template <class T>
T pick(std::string_view word, std::initializer_list<std::pair<const char*, T>> options, const char* what,
       const std::string& file) {
  std::string allowed;
  for (const auto& [name, value] : options) {
    if (iequals(word, name)) return value;
    allowed += (allowed.empty() ? "" : ", ") + std::string(name);
  }
  fail(file, 1, "unknown " + std::string(what) + " " + quote(word) + " (expected one of " + allowed + ")");
}

void read_banner(std::string_view line, Header& h, const std::string& file) {
  Tokens tok(line);
  std::string_view w[5], extra;
  int n = 0;
  while (n < 5 && tok.next(w[n])) ++n;
  if (n == 0 || !iequals(w[0], "%%MatrixMarket"))
    fail(file, 1, "expected the banner '%%MatrixMarket matrix <format> <field> <symmetry>'");
  if (n < 5 || tok.next(extra))
    fail(file, 1, "the banner must be '%%MatrixMarket matrix <format> <field> <symmetry>' (4 words)");
  if (!iequals(w[1], "matrix"))
    fail(file, 1, "unknown object " + quote(w[1]) + " (only 'matrix' is supported)");
  h.format =
      pick<Format>(w[2], {{"coordinate", Format::coordinate}, {"array", Format::array}}, "format", file);
  h.field = pick<Field>(w[3],
                        {{"real", Field::real},
                         {"integer", Field::integer},
                         {"complex", Field::complex},
                         {"pattern", Field::pattern},
                         {"quaternion", Field::quaternion}},
                        "field", file);
  h.symmetry = pick<Symmetry>(w[4],
                              {{"general", Symmetry::general},
                               {"symmetric", Symmetry::symmetric},
                               {"skew-symmetric", Symmetry::skew},
                               {"hermitian", Symmetry::hermitian}},
                              "symmetry", file);
  if (h.format == Format::array && h.field == Field::pattern)
    fail(file, 1, "'array pattern' is not a valid combination (a pattern needs the coordinate format)");
  if (h.symmetry == Symmetry::hermitian && h.field != Field::complex && h.field != Field::quaternion)
    fail(file, 1, "'hermitian' needs a complex or quaternion field (a real one is 'symmetric')");
  if (h.symmetry == Symmetry::skew && h.field == Field::pattern)
    fail(file, 1, "'pattern skew-symmetric' is not valid (a pattern has no signs)");
}

// `scale`: scalars per entry side when the file is an expansion (blocks, quaternions), else 1.
void read_size_line(LineReader& in, Header& h, int scale, const std::string& file) {
  std::string_view line;
  do {
    if (!in.next(line)) fail(file, in.line(), "the file ends before the size line");
  } while (is_skippable(line));
  h.size_line = in.line();
  const bool coord = h.format == Format::coordinate;
  const char* expected = coord ? "'rows columns entries'" : "'rows columns'";
  Tokens tok(line);
  std::string_view t;
  int64_t v[3] = {0, 0, 0};
  const int want = coord ? 3 : 2;
  for (int i = 0; i < want; ++i) {
    if (!tok.next(t)) fail(file, in.line(), std::string("the size line must hold ") + expected);
    if (!parse_int(t, v[i])) {
      const bool digits = t.find_first_not_of("-0123456789") == std::string_view::npos;
      fail(file, in.line(),
           digits ? "size " + quote(t) + " is too large"
                  : "bad size " + quote(t) + " (expected " + expected + ")");
    }
    if (v[i] < 0) fail(file, in.line(), "negative size " + std::to_string(v[i]));
  }
  if (tok.next(t))
    fail(file, in.line(), "extra token " + quote(t) + " on the size line (expected " + expected + ")");
  h.rows = v[0];
  h.cols = v[1];
  if (h.symmetry != Symmetry::general && h.rows != h.cols)
    fail(file, in.line(),
         "a symmetric, skew-symmetric or Hermitian matrix must be square, not " + std::to_string(h.rows) +
             " x " + std::to_string(h.cols));
  if (h.rows % scale != 0 || h.cols % scale != 0)
    fail(file, in.line(),
         "size " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
             " is not a multiple of the entry size " + std::to_string(scale));
  if (h.rows / scale > kMaxDim || h.cols / scale > kMaxDim)
    fail(file, in.line(),
         "size " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
             " exceeds the 32-bit index limit (" + std::to_string(kMaxDim) + " entry rows/columns)");
  const int64_t n = h.rows;
  const int64_t limit = kMaxEntries * scale * scale;
  // A dense size is checked in double first: rows * cols may not fit in 64 bits.
  const double dense =
      h.symmetry == Symmetry::general ? double(h.rows) * double(h.cols) : double(n) * double(n) / 2;
  if (!coord && dense > 2.0 * limit)
    fail(file, in.line(),
         "a dense " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
             " matrix exceeds the 32-bit index limit (" + std::to_string(kMaxEntries) + " stored entries)");
  if (coord)
    h.entries = v[2];
  else if (h.symmetry == Symmetry::general)
    h.entries = h.rows * h.cols;
  else if (h.symmetry == Symmetry::skew)
    h.entries = n > 0 ? n * (n - 1) / 2 : 0;
  else
    h.entries = n * (n + 1) / 2;
  if (h.entries > limit)
    fail(file, in.line(),
         std::to_string(h.entries) + " entries exceed the 32-bit index limit (" +
             std::to_string(kMaxEntries) + " stored entries)");
}

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

// How an entry type sits in a real (v n) x (v n) matrix: each v x v block is M(a). A component can be
// read back if some cell of M holds it alone (its pivot); blocks and quaternions have one for each.
struct ExpansionForm {
  int v = 0;
  std::vector<std::vector<std::pair<int, double>>> cell_terms;  // per cell: (component, coefficient)
  std::vector<int> pivot_cell;
  std::vector<double> pivot_coeff;
  bool readable = false;
};

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

// M(a) at one cell; the first product starts the sum, so 1 * a is a exactly (signed zeros included).
double cell_value(const ExpansionForm& f, size_t cell, const double* a) {
  const auto& terms = f.cell_terms[cell];
  if (terms.empty()) return 0.0;
  double s = terms[0].second * a[terms[0].first];
  for (size_t i = 1; i < terms.size(); ++i) s += terms[i].second * a[terms[i].first];
  return s;
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

// Groups scalars into v x v blocks, reads each block's entry through the pivots and checks the rest.
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

// Text goes to `out`; with a FILE it is flushed in large pieces, so big matrices need no full copy.
class TextSink {
 public:
  TextSink(std::string& out, FILE* file, std::string path) : out_(out), file_(file), path_(std::move(path)) {}
  void text(std::string_view s) { out_.append(s); }
  void number(double v) { put(std::to_chars(buf_, buf_ + sizeof buf_, v).ptr); }
  void end_line() {
    out_ += '\n';
    if (file_ && out_.size() > (1u << 20)) flush();
  }
  void flush() {
    if (!file_) return;
    if (std::fwrite(out_.data(), 1, out_.size(), file_) != out_.size())
      throw Error("cannot write '" + path_ + "': " + std::strerror(errno));
    out_.clear();
  }

 private:
  void put(char* end) {
    out_ += ' ';
    out_.append(buf_, static_cast<size_t>(end - buf_));
  }
  std::string& out_;
  FILE* file_;
  std::string path_;
  char buf_[40];
};

void write_header(const HostMatrix& a, const char* field, int64_t rows, int64_t cols, int64_t entries,
                  TextSink& out) {
  out.text("%%MatrixMarket matrix coordinate ");
  out.text(field);
  out.text(" general\n% written by jitsparse: entry type ");
  out.text(a.entry.name);
  if (!a.name.empty() && a.name.find_first_of("\r\n") == std::string::npos) {
    out.text(", matrix ");
    out.text(a.name);
  }
  out.text("\n");
  char buf[80];
  std::snprintf(buf, sizeof buf, "%lld %lld %lld\n", static_cast<long long>(rows),
                static_cast<long long>(cols), static_cast<long long>(entries));
  out.text(buf);
}

void write_index_pair(int64_t r, int64_t c, TextSink& out) {
  char buf[48];
  auto p = std::to_chars(buf, buf + 20, r + 1).ptr;
  *p++ = ' ';
  p = std::to_chars(p, buf + sizeof buf, c + 1).ptr;
  out.text(std::string_view(buf, p - buf));
}

// real, complex, quaternion: one line per entry with its components.
void write_direct(const HostMatrix& a, const char* field, TextSink& out) {
  write_header(a, field, a.rows, a.cols, a.nnz(), out);
  const int k = a.components();
  for (int32_t r = 0; r < a.rows; ++r)
    for (int32_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
      write_index_pair(r, a.col_idx[p], out);
      for (int i = 0; i < k; ++i) out.number(a.values[static_cast<size_t>(p) * k + i]);
      out.end_line();
    }
}

// Blocks and other readable types: the real expansion, every cell of a stored block (zeros too), so
// reading it back with the same entry gives the same structure. Written row by row of scalars.
void write_expansion(const HostMatrix& a, const ExpansionForm& f, TextSink& out) {
  const int64_t v = f.v;
  write_header(a, "real", a.rows * v, a.cols * v, a.nnz() * v * v, out);
  for (int32_t r = 0; r < a.rows; ++r)
    for (int64_t i = 0; i < v; ++i)
      for (int32_t p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p)
        for (int64_t j = 0; j < v; ++j) {
          write_index_pair(r * v + i, a.col_idx[p] * v + j, out);
          out.number(cell_value(f, static_cast<size_t>(i * v + j), a.entry_values(p)));
          out.end_line();
        }
}

enum class WriteForm { real, complex, quaternion, expansion };

// Checked before anything is written, so a failure leaves no file behind.
WriteForm write_form(const HostMatrix& a) {
  a.validate();
  const std::string& n = a.entry.name;
  if (n == "real" && a.components() == 1) return WriteForm::real;
  if (n == "complex" && a.components() == 2) return WriteForm::complex;
  if (n == "quaternion" && a.components() == 4) return WriteForm::quaternion;
  if (!expansion_form(a.entry).readable)
    throw InvalidArgument("entry type '" + n +
                          "' has no Matrix Market form: its real expansion could not be " +
                          "read back (some component has no cell of its own)");
  return WriteForm::expansion;
}

void write_matrix(const HostMatrix& a, WriteForm form, TextSink& out) {
  switch (form) {
    case WriteForm::real:
      return write_direct(a, "real", out);
    case WriteForm::complex:
      return write_direct(a, "complex", out);
    case WriteForm::quaternion:
      return write_direct(a, "quaternion", out);
    case WriteForm::expansion:
      return write_expansion(a, expansion_form(a.entry), out);
  }
}

}  // namespace

HostMatrix read_matrix_market(const std::string& path, const ReadOptions& options) {
  const std::string text = read_whole_file(path);
  return parse(text, path, std::filesystem::path(path).stem().string(), options);
}

HostMatrix read_matrix_market_string(const std::string& text, const std::string& name,
                                     const ReadOptions& options) {
  return parse(text, name, name, options);
}

void write_matrix_market(const HostMatrix& a, const std::string& path) {
  const WriteForm form = write_form(a);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw Error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  std::string buffer;
  TextSink out(buffer, f.get(), path);
  write_matrix(a, form, out);
  out.flush();
  if (std::fclose(f.release()) != 0) throw Error("cannot write '" + path + "': " + std::strerror(errno));
}

std::string write_matrix_market_string(const HostMatrix& a) {
  std::string text;
  TextSink out(text, nullptr, "");
  write_matrix(a, write_form(a), out);
  return text;
}

}  // namespace jitsparse
