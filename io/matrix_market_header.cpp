// Matrix Market banner and size line.
#include "io/detail/matrix_market_header.hpp"

#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace jitsparse::detail::mm_io {
namespace {

// TripletList's limit: indices up to 2^31 - 2, so rows + 1 still fits in int32.
constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max() - 1;
constexpr int64_t kMaxEntries = std::numeric_limits<int32_t>::max();

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

}  // namespace

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

}  // namespace jitsparse::detail::mm_io
