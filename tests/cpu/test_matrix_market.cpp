#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "parse_error_util.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/host_matrix.hpp"
#include "io/matrix_market.hpp"

using namespace jitsparse;
using jitsparse::test::contains;
using jitsparse::test::parse_error;

namespace {

std::string data_path(const std::string& rel) { return std::string(JITSPARSE_TEST_DATA) + "/" + rel; }

ReadOptions with_entry(const std::string& entry) {
  ReadOptions o;
  o.entry = entry;
  return o;
}

// The entry at (r, c) (0-based), or nullptr when it is not stored.
const double* find_entry(const HostMatrix& a, int32_t r, int32_t c) {
  auto first = a.col_idx.begin() + a.row_ptr[r], last = a.col_idx.begin() + a.row_ptr[r + 1];
  auto it = std::lower_bound(first, last, c);
  return it != last && *it == c ? a.entry_values(it - a.col_idx.begin()) : nullptr;
}

double value_at(const HostMatrix& a, int32_t r, int32_t c, int component = 0) {
  const double* v = find_entry(a, r, c);
  return v ? v[component] : 0.0;
}

// Same structure and bit-identical values.
void check_identical(const HostMatrix& a, const HostMatrix& b) {
  CHECK(a.entry.name == b.entry.name);
  CHECK(a.rows == b.rows);
  CHECK(a.cols == b.cols);
  CHECK(a.row_ptr == b.row_ptr);
  CHECK(a.col_idx == b.col_idx);
  REQUIRE(a.values.size() == b.values.size());
  CHECK(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) == 0);
}

// A random-ish matrix with awkward values (signed zero, denormals, long mantissas, huge and tiny).
HostMatrix sample_matrix(const std::string& entry, int32_t rows, int32_t cols) {
  const EntryType& e = EntryRegistry::instance().get(entry);
  TripletList t(e, rows, cols);
  const double specials[] = {-0.0, 4.9e-324, 0.1, -1.0 / 3.0, 1e300, -2.2250738585072014e-308, 12345678.9};
  uint64_t state = 12345;
  auto next = [&state] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  std::vector<double> v(e.num_components());
  for (int32_t r = 0; r < rows; ++r)
    for (int k = 0; k < 3; ++k) {
      for (auto& x : v) {
        uint64_t s = next();
        x = (s >> 60) < 4 ? specials[(s >> 20) % 7]
                          : static_cast<double>(static_cast<int64_t>(s >> 11)) / 7.0e15;
      }
      t.add(r, static_cast<int64_t>(next() >> 33) % cols, v.data());
    }
  HostMatrix m = t.build();
  m.name = "sample";
  return m;
}

std::string temp_file(const std::string& stem) {
  auto dir = std::filesystem::temp_directory_path();
  return (dir / (stem + "_" + std::to_string(std::hash<std::string>{}(JITSPARSE_TEST_DATA)) + ".mtx"))
      .string();
}

}  // namespace

// Every file in parser/: its result or its error (file name and line).
TEST_CASE("matrix market: every parser/ file gives the expected result or error") {
  struct Expect {
    const char* file;
    const char* entry;
    int line;             // 0: loads
    const char* message;  // part of the error, or unused
    int32_t rows, cols;
    int64_t nnz;
  };
  const Expect expected[] = {
      {"comments_west0067.mtx", "real", 6, "non-finite value 'nan'", 0, 0, 0},
      {"complex.mtx", "complex", 0, "", 3, 3, 9},
      {"empty.mtx", "real", 0, "", 3, 4, 0},
      {"full_symmetric.mtx", "real", 0, "", 4, 4, 16},
      {"mangled1.mtx", "real", 1, "unknown object 'mangled'", 0, 0, 0},
      {"mangled10.mtx", "real", 6, "ends after 2 entries", 0, 0, 0},
      {"mangled14.mtx", "real", 0, "", 3, 4, 2},  // a duplicate, summed
      {"mangled2.mtx", "real", 1, "unknown format 'mangled'", 0, 0, 0},
      {"mangled3.mtx", "real", 1, "unknown field 'mangled'", 0, 0, 0},
      {"mangled4.mtx", "real", 1, "unknown symmetry 'mangled'", 0, 0, 0},
      {"mangled5.mtx", "real", 1, "'hermitian' needs a complex", 0, 0, 0},
      {"mangled6.mtx", "real", 1, "'hermitian' needs a complex", 0, 0, 0},
      {"mangled7.mtx", "real", 5, "missing value", 0, 0, 0},
      {"mangled8.mtx", "real", 4, "size line", 0, 0, 0},
      {"mangled9.mtx", "real", 4, "must be square", 0, 0, 0},
      {"mangled_format.mtx", "real", 1, "'array pattern'", 0, 0, 0},
      {"skew_fp64.mtx", "real", 4, "non-finite value 'inf'", 0, 0, 0},
      {"west0067_jumbled.mtx", "real", 0, "", 67, 67, 294},
  };
  std::set<std::string> covered;
  for (const auto& x : expected) {
    CAPTURE(x.file);
    covered.insert(x.file);
    const std::string path = data_path(std::string("parser/") + x.file);
    if (x.line == 0) {
      HostMatrix m = read_matrix_market(path, with_entry(x.entry));
      CHECK(m.rows == x.rows);
      CHECK(m.cols == x.cols);
      CHECK(m.nnz() == x.nnz);
      CHECK_NOTHROW(m.validate());
    } else {
      const std::string msg = parse_error([&] { read_matrix_market(path, with_entry(x.entry)); });
      CAPTURE(msg);
      CHECK(msg.find(path + ":" + std::to_string(x.line) + ": ") == 0);
      CHECK(msg.find(x.message) != std::string::npos);
    }
  }
  // A new file in parser/ must get a row above.
  for (const auto& f : std::filesystem::directory_iterator(data_path("parser")))
    if (f.path().extension() == ".mtx") CHECK_MESSAGE(covered.count(f.path().filename().string()), f.path());
}

TEST_CASE("matrix market: parser/ files by value") {
  HostMatrix dup = read_matrix_market(data_path("parser/mangled14.mtx"));
  CHECK(value_at(dup, 1, 1) == 3.4 + 7.1);
  CHECK(value_at(dup, 0, 0) == 3.0);
  CHECK(dup.name == "mangled14");

  // The jumbled file (comments and blank lines among the entries) is west0067.
  HostMatrix jumbled = read_matrix_market(data_path("parser/west0067_jumbled.mtx"));
  HostMatrix west = read_matrix_market(data_path("graph/west0067.mtx"));
  CHECK(jumbled.row_ptr == west.row_ptr);
  CHECK(jumbled.col_idx == west.col_idx);
  CHECK(jumbled.values == west.values);

  // Without its inf, the skew-symmetric file expands with negated mirrors.
  std::string skew =
      "%%MatrixMarket matrix coordinate real skew-symmetric\n6 6 2\n4 1 -.12565458736262625\n6 5 "
      "-.18161721472946568\n";
  HostMatrix s = read_matrix_market_string(skew, "skew");
  CHECK(s.nnz() == 4);
  CHECK(value_at(s, 3, 0) == -.12565458736262625);
  CHECK(value_at(s, 0, 3) == .12565458736262625);
  CHECK(value_at(s, 4, 5) == .18161721472946568);
}

TEST_CASE("matrix market: array formats") {
  // Lower triangle, column-major: (1,1) (2,1) (3,1) (4,1) (2,2) (3,2) (4,2) (3,3) (4,3) (4,4).
  HostMatrix s = read_matrix_market(data_path("parser/full_symmetric.mtx"));
  CHECK(value_at(s, 0, 0) == 10.762188911437988);
  CHECK(value_at(s, 3, 0) == 22.269603729248047);
  CHECK(value_at(s, 0, 3) == 22.269603729248047);
  CHECK(value_at(s, 2, 1) == 18.75064468383789);
  CHECK(value_at(s, 1, 2) == 18.75064468383789);
  CHECK(value_at(s, 1, 3) == 19.203340530395508);
  CHECK(value_at(s, 3, 2) == 19.899736404418945);
  CHECK(value_at(s, 3, 3) == 3.9635860919952393);

  HostMatrix c = read_matrix_market(data_path("parser/complex.mtx"), with_entry("complex"));
  CHECK(value_at(c, 0, 0, 0) == .646);
  CHECK(value_at(c, 0, 0, 1) == .959);
  CHECK(value_at(c, 1, 0, 0) == .709);  // column-major
  CHECK(value_at(c, 0, 1, 1) == .228);
  CHECK(value_at(c, 2, 2, 1) == .890);
  const std::string msg = parse_error([&] { read_matrix_market(data_path("parser/complex.mtx")); });
  CHECK(msg.find(":1: a complex file cannot be read as entry 'real'") != std::string::npos);

  // Skew arrays omit the diagonal; Hermitian arrays mirror the conjugate.
  HostMatrix k =
      read_matrix_market_string("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", "k");
  CHECK(k.nnz() == 6);
  CHECK(value_at(k, 1, 0) == 1);
  CHECK(value_at(k, 0, 1) == -1);
  CHECK(value_at(k, 2, 1) == 3);
  CHECK(find_entry(k, 1, 1) == nullptr);
  HostMatrix h = read_matrix_market_string(
      "%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n2 3\n4 0\n", "h", with_entry("complex"));
  CHECK(value_at(h, 0, 1, 1) == -3);
  CHECK(value_at(h, 1, 0, 1) == 3);
  HostMatrix i = read_matrix_market_string("%%MatrixMarket matrix array integer general\n2 1\n-7\n8\n", "i");
  CHECK(value_at(i, 0, 0) == -7);
  CHECK(value_at(i, 1, 0) == 8);
}

TEST_CASE("matrix market: every complex/, real/, graph/ file loads and validates") {
  struct Expect {
    const char* file;
    int32_t rows, cols;
    int64_t nnz;
    const char* entry;
  };
  const Expect expected[] = {
      {"complex/GD99_cc.mtx", 105, 105, 149, "complex"},
      {"complex/cha.mtx", 3, 3, 9, "complex"},
      {"complex/csa.mtx", 3, 3, 9, "complex"},
      {"complex/cza.mtx", 3, 3, 6, "complex"},
      {"complex/dwg961a.mtx", 961, 961, 3405, "complex"},
      {"complex/mhd1280b.mtx", 1280, 1280, 22778, "complex"},
      {"complex/qc324.mtx", 324, 324, 26730, "complex"},
      {"complex/w156.mtx", 156, 156, 362, "complex"},
      {"complex/young1c.mtx", 841, 841, 4089, "complex"},
      {"real/LFAT5.mtx", 14, 14, 46, "real"},
      {"real/bcsstk13.mtx", 2003, 2003, 83883, "real"},
      {"real/cryg2500.mtx", 2500, 2500, 12349, "real"},
      {"real/gemat12.mtx", 4929, 4929, 33111, "real"},
      {"real/lp_afiro.mtx", 27, 51, 102, "real"},
      {"real/lund_a.mtx", 147, 147, 2449, "real"},
      {"real/olm1000.mtx", 1000, 1000, 3996, "real"},
      {"real/orsirr_2.mtx", 886, 886, 5970, "real"},
      {"real/pores_1.mtx", 30, 30, 180, "real"},
      {"real/sherman3.mtx", 5005, 5005, 20033, "real"},
      {"real/zenios.mtx", 2873, 2873, 27191, "real"},
      {"graph/Erdos971.mtx", 472, 472, 2628, "real"},
      {"graph/G51.mtx", 1000, 1000, 11818, "real"},
      {"graph/USAir97.mtx", 332, 332, 4252, "real"},
      {"graph/bcspwr10.mtx", 5300, 5300, 21842, "real"},
      {"graph/cage10.mtx", 11397, 11397, 150645, "real"},
      {"graph/dwt_992.mtx", 992, 992, 16744, "real"},
      {"graph/jagmesh7.mtx", 1138, 1138, 7450, "real"},
      {"graph/karate.mtx", 34, 34, 156, "real"},
      {"graph/west0067.mtx", 67, 67, 294, "real"},
  };
  std::set<std::string> covered;
  for (const auto& x : expected) {
    CAPTURE(x.file);
    covered.insert(x.file);
    HostMatrix m = read_matrix_market(data_path(x.file), with_entry(x.entry));
    CHECK(m.rows == x.rows);
    CHECK(m.cols == x.cols);
    CHECK(m.nnz() == x.nnz);
    CHECK_NOTHROW(m.validate());
  }
  for (const char* dir : {"complex", "real", "graph"})
    for (const auto& f : std::filesystem::directory_iterator(data_path(dir)))
      if (f.path().extension() == ".mtx")
        CHECK_MESSAGE(covered.count(std::string(dir) + "/" + f.path().filename().string()), f.path());

  // Pattern files hold ones; entry complex on a real file gives zero imaginary parts.
  HostMatrix karate = read_matrix_market(data_path("graph/karate.mtx"));
  CHECK(std::all_of(karate.values.begin(), karate.values.end(), [](double v) { return v == 1.0; }));
  HostMatrix lfat = read_matrix_market(data_path("real/LFAT5.mtx"));
  HostMatrix lfat_c = read_matrix_market(data_path("real/LFAT5.mtx"), with_entry("complex"));
  CHECK(lfat_c.col_idx == lfat.col_idx);
  for (int64_t k = 0; k < lfat.nnz(); ++k) {
    CHECK(lfat_c.entry_values(k)[0] == lfat.entry_values(k)[0]);
    CHECK(lfat_c.entry_values(k)[1] == 0.0);
  }
}

TEST_CASE("matrix market: symmetric, Hermitian and skew expansion by value") {
  HostMatrix sym = read_matrix_market(data_path("complex/csa.mtx"), with_entry("complex"));
  CHECK(value_at(sym, 0, 1, 0) == 1.1972899647794608);
  CHECK(value_at(sym, 0, 1, 1) == 1.0140887595727812);
  CHECK(value_at(sym, 1, 0, 1) == 1.0140887595727812);
  HostMatrix her = read_matrix_market(data_path("complex/cha.mtx"), with_entry("complex"));
  CHECK(value_at(her, 1, 0, 1) == .4760037225690294);
  CHECK(value_at(her, 0, 1, 1) == -.4760037225690294);
  CHECK(value_at(her, 0, 1, 0) == 1.5579100867466829);
  CHECK(value_at(her, 1, 1, 1) == -1);  // the diagonal is kept as written
  HostMatrix skew = read_matrix_market(data_path("complex/cza.mtx"), with_entry("complex"));
  CHECK(value_at(skew, 2, 1, 0) == .7620968330273947);
  CHECK(value_at(skew, 1, 2, 0) == -.7620968330273947);
  CHECK(value_at(skew, 1, 2, 1) == -.176266144494618);
  CHECK(find_entry(skew, 0, 0) == nullptr);
  HostMatrix lfat = read_matrix_market(data_path("real/LFAT5.mtx"));
  for (int32_t r = 0; r < lfat.rows; ++r)
    for (int32_t p = lfat.row_ptr[r]; p < lfat.row_ptr[r + 1]; ++p)
      CHECK(value_at(lfat, lfat.col_idx[p], r) == lfat.values[p]);
}

TEST_CASE("matrix market: round trips are bit-exact") {
  for (const char* entry : {"real", "complex", "quaternion", "block3", "block2", "dual_quaternion"}) {
    CAPTURE(entry);
    HostMatrix a = sample_matrix(entry, 17, 11);
    const std::string text = write_matrix_market_string(a);
    HostMatrix b = read_matrix_market_string(text, "sample", with_entry(entry));
    check_identical(a, b);
  }
  HostMatrix q = sample_matrix("quaternion", 3, 3);
  CHECK(write_matrix_market_string(q).rfind("%%MatrixMarket matrix coordinate quaternion general\n", 0) == 0);
  HostMatrix b3 = sample_matrix("block3", 3, 3);
  CHECK(write_matrix_market_string(b3).find("\n9 9 " + std::to_string(b3.nnz() * 9) + "\n") !=
        std::string::npos);

  // Through a file, with real data.
  HostMatrix young = read_matrix_market(data_path("complex/young1c.mtx"), with_entry("complex"));
  const std::string path = temp_file("jitsparse_mm_round_trip");
  write_matrix_market(young, path);
  HostMatrix back = read_matrix_market(path, with_entry("complex"));
  std::filesystem::remove(path);
  check_identical(young, back);

  // A type whose expansion cannot be read back has no writer form.
  EntryType sum;
  sum.name = "sum_only";
  sum.components = {"a", "b"};
  sum.vector_components = {"u"};
  sum.terms = {{0, 0, 0, 1.0}, {0, 1, 0, 1.0}};  // u += (a + b) x: a and b never apart
  TripletList t(sum, 1, 1);
  const double v[2] = {1, 2};
  t.add(0, 0, v);
  CHECK_THROWS_AS(write_matrix_market_string(t.build()), InvalidArgument);
}

TEST_CASE("matrix market: blocks of size 2 to 8") {
  for (int b = 2; b <= 8; ++b) {
    CAPTURE(b);
    // A 2b x 3b scalar matrix: block (0, 0) full, block (1, 2) with one scalar, the rest missing.
    std::string text = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(2 * b) + " " +
                       std::to_string(3 * b) + " " + std::to_string(b * b + 1) + "\n";
    for (int j = 0; j < b; ++j)
      for (int i = 0; i < b; ++i)
        text +=
            std::to_string(i + 1) + " " + std::to_string(j + 1) + " " + std::to_string(10 * i + j + 1) + "\n";
    text += std::to_string(b + 2) + " " + std::to_string(2 * b + 1) + " -5\n";
    HostMatrix m = read_matrix_market_string(text, "blocks", with_entry("block" + std::to_string(b)));
    CHECK(m.rows == 2);
    CHECK(m.cols == 3);
    CHECK(m.nnz() == 2);
    CHECK(m.components() == b * b);
    CHECK_NOTHROW(m.validate());
    const double* full = find_entry(m, 0, 0);
    REQUIRE(full != nullptr);
    for (int i = 0; i < b; ++i)
      for (int j = 0; j < b; ++j) CHECK(full[i * b + j] == 10 * i + j + 1);  // row-major inside the entry
    const double* sparse = find_entry(m, 1, 2);
    REQUIRE(sparse != nullptr);
    for (int c = 0; c < b * b; ++c) CHECK(sparse[c] == (c == 1 * b + 0 ? -5.0 : 0.0));

    // A size that is not a multiple of b.
    std::string odd = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(2 * b + 1) + " " +
                      std::to_string(2 * b) + " 0\n";
    const std::string msg = parse_error(
        [&] { read_matrix_market_string(odd, "odd.mtx", with_entry("block" + std::to_string(b))); });
    CHECK(msg.find("odd.mtx:2: ") == 0);
    CHECK(msg.find("not a multiple of the entry size " + std::to_string(b)) != std::string::npos);
  }
  // Symmetric files are mirrored as scalars, then grouped; duplicates summed inside a block.
  HostMatrix s = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real symmetric\n4 4 4\n2 1 3\n3 1 7\n3 1 1\n4 4 2\n", "s",
      with_entry("block2"));
  CHECK(s.nnz() == 4);
  const double* d0 = find_entry(s, 0, 0);
  REQUIRE(d0);
  CHECK((d0[0] == 0 && d0[1] == 3 && d0[2] == 3 && d0[3] == 0));
  CHECK(find_entry(s, 1, 0)[0] == 8);
  CHECK(find_entry(s, 0, 1)[0] == 8);
  CHECK(find_entry(s, 1, 1)[3] == 2);
  // A complex file cannot become blocks.
  CHECK(parse_error([] {
          read_matrix_market(data_path("complex/csa.mtx"), with_entry("block3"));
        }).find("csa.mtx:1: ") != std::string::npos);
}

namespace {

// The real 4x4 expansion of quaternions at block positions, as Matrix Market text (zeros left out).
std::string quaternion_expansion(const std::vector<std::pair<int, int>>& at,
                                 const std::vector<std::array<double, 4>>& q, int n) {
  const auto& e = EntryRegistry::instance().get("quaternion");
  std::vector<std::string> lines;
  for (size_t k = 0; k < at.size(); ++k) {
    std::vector<double> m = e.expansion(q[k].data());
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        if (m[i * 4 + j] != 0)
          lines.push_back(std::to_string(at[k].first * 4 + i + 1) + " " +
                          std::to_string(at[k].second * 4 + j + 1) + " " + std::to_string(m[i * 4 + j]));
  }
  std::string text = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(4 * n) + " " +
                     std::to_string(4 * n) + " " + std::to_string(lines.size()) + "\n";
  for (const auto& l : lines) text += l + "\n";
  return text;
}

}  // namespace

TEST_CASE("matrix market: quaternion expansion is checked") {
  const std::vector<std::pair<int, int>> at = {{0, 0}, {0, 2}, {1, 1}};
  const std::vector<std::array<double, 4>> q = {{1, 2, 3, 4}, {0.5, 0, -1.5, 0}, {0, 0, 0, 7}};
  const std::string good = quaternion_expansion(at, q, 3);
  HostMatrix m = read_matrix_market_string(good, "q", with_entry("quaternion"));
  CHECK(m.rows == 3);
  CHECK(m.nnz() == 3);
  for (size_t k = 0; k < at.size(); ++k) {
    const double* v = find_entry(m, at[k].first, at[k].second);
    REQUIRE(v);
    for (int c = 0; c < 4; ++c) CHECK(v[c] == q[k][c]);
  }
  // Within tolerance: accepted; the same change is rejected with a tighter one.
  std::string nudged = good;
  nudged.replace(nudged.find("\n1 1 1.000000\n"), 14, "\n1 1 1.0000000000001\n");
  CHECK_NOTHROW(read_matrix_market_string(nudged, "q", with_entry("quaternion")));
  ReadOptions tight = with_entry("quaternion");
  tight.quaternion_tolerance = 1e-15;
  CHECK(parse_error([&] { read_matrix_market_string(nudged, "q", tight); }).find("block (1, 1)") !=
        std::string::npos);

  // Broken: in block (1, 3) the scalar at (3, 9) (expected w = 0.5) is 0.25.
  std::string broken = good;
  const size_t at_line = broken.find("\n3 11 0.500000\n");
  REQUIRE(at_line != std::string::npos);
  broken.replace(at_line, 15, "\n3 11 0.250000\n");
  const int line = static_cast<int>(std::count(broken.begin(), broken.begin() + at_line + 1, '\n')) + 1;
  const std::string msg =
      parse_error([&] { read_matrix_market_string(broken, "broken.mtx", with_entry("quaternion")); });
  CAPTURE(msg);
  CHECK(msg.find("broken.mtx:" + std::to_string(line) + ": block (1, 3)") == 0);
  CHECK(msg.find("scalar rows 1-4, columns 9-12") != std::string::npos);
  CHECK(msg.find("[w -x -y -z; x w -z y; y z w -x; z -y x w]") != std::string::npos);
  CHECK(msg.find("(3, 11) is 0.25 but 0.5 was expected") != std::string::npos);

  // A missing scalar is a zero: the block is then not a quaternion.
  std::string missing = "%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 2\n2 2 2\n3 3 2\n";
  const std::string msg2 =
      parse_error([&] { read_matrix_market_string(missing, "m.mtx", with_entry("quaternion")); });
  CHECK(msg2.find("m.mtx:3: block (1, 1)") == 0);  // the block's first line
  CHECK(msg2.find("(4, 4) is 0 but 2 was expected") != std::string::npos);
  // Sizes must be multiples of 4.
  CHECK(parse_error([] {
          read_matrix_market_string("%%MatrixMarket matrix coordinate real general\n6 8 0\n", "s.mtx",
                                    with_entry("quaternion"));
        }).find("s.mtx:2: size 6 x 8 is not a multiple of the entry size 4") == 0);
}

TEST_CASE("matrix market: quaternion field") {
  const std::string general =
      "%%MatrixMarket matrix coordinate quaternion general\n% comment\n2 3 2\n1 3 1 2 3 4\n2 1 -1 0 0.5 "
      "1e-3\n";
  HostMatrix g = read_matrix_market_string(general, "g", with_entry("quaternion"));
  CHECK(g.nnz() == 2);
  CHECK(value_at(g, 0, 2, 3) == 4);
  CHECK(value_at(g, 1, 0, 3) == 1e-3);
  const std::string lower = "2 2 2\n1 1 1 0 0 0\n2 1 1 2 3 4\n";
  HostMatrix s = read_matrix_market_string("%%MatrixMarket matrix coordinate quaternion symmetric\n" + lower,
                                           "s", with_entry("quaternion"));
  HostMatrix h = read_matrix_market_string("%%MatrixMarket matrix coordinate quaternion hermitian\n" + lower,
                                           "h", with_entry("quaternion"));
  HostMatrix k = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate quaternion skew-symmetric\n2 2 1\n2 1 1 2 3 4\n", "k",
      with_entry("quaternion"));
  for (int c = 0; c < 4; ++c) {
    CHECK(value_at(s, 0, 1, c) == c + 1);
    CHECK(value_at(h, 0, 1, c) == (c == 0 ? 1 : -(c + 1)));
    CHECK(value_at(k, 0, 1, c) == -(c + 1));
  }
  CHECK(parse_error([&] { read_matrix_market_string(general, "g.mtx"); }).find("g.mtx:1: ") == 0);
  CHECK(parse_error([&] {
          read_matrix_market_string(general, "g.mtx", with_entry("complex"));
        }).find("g.mtx:1: ") == 0);
  CHECK(parse_error([] {
          read_matrix_market(data_path("complex/csa.mtx"), with_entry("quaternion"));
        }).find("csa.mtx:1: a complex file cannot be read as entry 'quaternion'") != std::string::npos);
  CHECK(parse_error([] {
          read_matrix_market_string("%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1 2 3\n",
                                    "q.mtx", with_entry("quaternion"));
        }).find("q.mtx:3: missing value") == 0);
}

TEST_CASE("matrix market: malformed text is rejected with the line") {
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  const std::string sym = "%%MatrixMarket matrix coordinate real symmetric\n";
  struct Bad {
    std::string text;
    int line;
    const char* message;
    const char* entry = "real";
  };
  const Bad bad[] = {
      {"", 1, "empty file"},
      {"\n", 1, "expected the banner"},
      {"%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, "expected the banner"},
      {"%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "4 words"},
      {"%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "4 words"},
      {"%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "unknown object"},
      {"%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1, "unknown field"},
      {"%%MatrixMarket matrix array pattern general\n1 1\n", 1, "'array pattern'"},
      {"%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1, "pattern skew-symmetric"},
      {"%%MatrixMarket matrix coordinate integer hermitian\n1 1 0\n", 1, "'hermitian' needs"},
      {banner, 1, "ends before the size line"},
      {banner + "% only a comment\n\n", 3, "ends before the size line"},
      {banner + "-3 3 0\n", 2, "negative size -3"},
      {banner + "3 -3 0\n", 2, "negative size -3"},
      {banner + "3 3 -1\n", 2, "negative size -1"},
      {banner + "3 3\n", 2, "size line"},
      {banner + "3 3 1 1\n", 2, "extra token '1' on the size line"},
      {banner + "3 x 1\n", 2, "bad size 'x'"},
      {banner + "3 3.0 1\n", 2, "bad size '3.0'"},
      {banner + "99999999999999999999 3 0\n", 2, "too large"},
      {banner + "3000000000 3 0\n", 2, "exceeds the 32-bit index limit"},
      {banner + "3 3000000000 0\n", 2, "exceeds the 32-bit index limit"},
      {banner + "2147483647 1 0\n", 2, "exceeds the 32-bit index limit"},
      {banner + "3 3 3000000000\n", 2, "exceed the 32-bit index limit"},
      {sym + "3 4 0\n", 2, "must be square"},
      {"%%MatrixMarket matrix array real general\n2000000000 2000000000\n", 2,
       "exceeds the 32-bit index limit"},
      {"%%MatrixMarket matrix array real symmetric\n70000 70000\n", 2, "entries exceed the 32-bit index limit"},
      {banner + "3 3 1\n0 1 1\n", 3, "row index 0 outside 1..3"},
      {banner + "3 3 1\n1 4 1\n", 3, "column index 4 outside 1..3"},
      {banner + "3 3 1\n-1 1 1\n", 3, "row index -1"},
      {banner + "3 3 1\n1.5 1 1\n", 3, "bad row index '1.5'"},
      {banner + "3 3 1\n1\n", 3, "missing column index"},
      {banner + "3 3 1\n1 1\n", 3, "missing value"},
      {banner + "3 3 1\n1 1 1 2\n", 3, "extra token '2'"},
      {banner + "3 3 1\n1 1 1\n2 2 2\n", 4, "more entries than the 1 declared on line 2"},
      {banner + "3 3 2\n1 1 1\n% comment\n\n", 5, "ends after 1 entries"},
      {banner + "3 3 2\n1 1 1", 3, "ends after 1 entries"},
      {banner + "3 3 1\n1 1 nan\n", 3, "non-finite value 'nan'"},
      {banner + "3 3 1\n1 1 -inf\n", 3, "non-finite value '-inf'"},
      {banner + "3 3 1\n1 1 1e999\n", 3, "non-finite value '1e999'"},
      {banner + "3 3 1\n1 1 1.0D+00\n", 3, "bad number '1.0D+00'"},
      {banner + "3 3 1\n1 1 0x10\n", 3, "bad number '0x10'"},
      {banner + "3 3 1\n1 1 +-1\n", 3, "bad number '+-1'"},
      {banner + "3 3 1\n1 1 1,5\n", 3, "bad number '1,5'"},
      {"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3, "bad integer '1.5'"},
      {"%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 1 1\n", 3, "missing value", "complex"},
      {"%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 1 1 inf\n", 3, "non-finite", "complex"},
      {"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3, "extra token '1'"},
      {sym + "3 3 2\n1 1 1\n1 2 1\n", 4, "entry (1, 2) is above the diagonal"},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 0\n", 3, "diagonal entry (2, 2)"},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5, "ends after 3 values"},
      {"%%MatrixMarket matrix array real general\n1 1\n1\n2\n", 4, "more values than the 1"},
      {"%%MatrixMarket matrix array real general\n2 2\n1 2\n3 4\n", 3, "extra token '2'"},
      {"%%MatrixMarket matrix array real general\n2 2 4\n1\n2\n3\n4\n", 2,
       "extra token '4' on the size line"},
      {"%%MatrixMarket matrix array real symmetric\n2 3\n", 2, "must be square"},
  };
  for (const auto& b : bad) {
    CAPTURE(b.text);
    const std::string msg =
        parse_error([&] { read_matrix_market_string(b.text, "bad.mtx", with_entry(b.entry)); });
    CAPTURE(msg);
    CHECK(msg.find("bad.mtx:" + std::to_string(b.line) + ": ") == 0);
    CHECK(msg.find(b.message) != std::string::npos);
  }
  CHECK(parse_error([] {
          read_matrix_market(data_path("parser/no_such_file.mtx"));
        }).find("cannot open") != std::string::npos);
}

TEST_CASE("matrix market: accepted oddities and empty matrices") {
  // CRLF line ends, tabs, leading '+', upper-case words, denormals, no final newline.
  HostMatrix m = read_matrix_market_string(
      "%%MatrixMarket MATRIX Coordinate REAL General\r\n%c\r\n 2\t2 3 \r\n1 1 +1.5\r\n2 2 1e-310\r\n2 1 "
      "-.5e1",
      "crlf");
  CHECK(m.nnz() == 3);
  CHECK(value_at(m, 0, 0) == 1.5);
  CHECK(value_at(m, 1, 1) == 1e-310);
  CHECK(value_at(m, 1, 0) == -5);
  HostMatrix tiny =
      read_matrix_market_string("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e-400\n", "t");
  CHECK(value_at(tiny, 0, 0) == 0.0);
  for (const char* text : {"%%MatrixMarket matrix coordinate real general\n0 0 0\n",
                           "%%MatrixMarket matrix coordinate real symmetric\n0 0 0\n",
                           "%%MatrixMarket matrix array real general\n0 5\n",
                           "%%MatrixMarket matrix array real skew-symmetric\n0 0\n",
                           "%%MatrixMarket matrix coordinate real general\n5 0 0\n"}) {
    CAPTURE(text);
    HostMatrix e = read_matrix_market_string(text, "empty");
    CHECK(e.nnz() == 0);
    CHECK_NOTHROW(e.validate());
  }
  HostMatrix e3 = read_matrix_market_string("%%MatrixMarket matrix coordinate real general\n0 0 0\n", "e",
                                            with_entry("block3"));
  CHECK(e3.rows == 0);
  HostMatrix one = read_matrix_market_string("%%MatrixMarket matrix array real skew-symmetric\n1 1\n", "one");
  CHECK(one.nnz() == 0);
  CHECK(one.rows == 1);
}
