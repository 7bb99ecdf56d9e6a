// Matrix Market writer: coordinate general, real / complex / quaternion directly, other entry types as
// their real expansion.
#include "io/matrix_market.hpp"

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "io/detail/matrix_market_entries.hpp"

namespace jitsparse::detail::mm_io {
namespace {

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
}  // namespace jitsparse::detail::mm_io

namespace jitsparse {

void write_matrix_market(const HostMatrix& a, const std::string& path) {
  using namespace detail::mm_io;
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
  using namespace detail::mm_io;
  std::string text;
  TextSink out(text, nullptr, "");
  write_matrix(a, write_form(a), out);
  return text;
}

}  // namespace jitsparse
