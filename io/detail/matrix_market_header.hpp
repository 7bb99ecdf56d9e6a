#pragma once
// Internal to the Matrix Market reader: the banner and the size line (io/matrix_market_header.cpp).
#include <cstdint>
#include <string>
#include <string_view>

#include "io/detail/matrix_market_text.hpp"

namespace jitsparse::detail::mm_io {

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

// The banner (line 1) into format, field and symmetry; checks the combination.
void read_banner(std::string_view line, Header& h, const std::string& file);
// `scale`: scalars per entry side when the file is an expansion (blocks, quaternions), else 1.
// Reads the first line that is not blank or a comment; checks the sizes against the 32-bit limits.
void read_size_line(LineReader& in, Header& h, int scale, const std::string& file);

}  // namespace jitsparse::detail::mm_io
