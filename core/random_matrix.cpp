#include "core/random_matrix.hpp"

#include <algorithm>
#include <limits>
#include <random>

#include "core/error.hpp"

namespace jitsparse {
namespace {

// `count` distinct sorted columns from [lo, hi), appended to out.
void sample_columns(std::mt19937_64& rng, int64_t lo, int64_t hi, int64_t count, std::vector<int32_t>& out,
                    std::vector<int32_t>& scratch) {
  const int64_t range = hi - lo;
  count = std::min(count, range);
  if (count <= 0) return;
  scratch.clear();
  if (count * 3 > range) {
    // dense row: keep each column with the exact count by selection sampling (Knuth's algorithm S)
    int64_t need = count;
    for (int64_t c = lo; c < hi && need > 0; ++c)
      if (uniform_int(rng, hi - c) < need) {
        scratch.push_back(static_cast<int32_t>(c));
        --need;
      }
  } else {
    // sparse row: draw, sort, drop repeats, draw again for what is missing
    while (static_cast<int64_t>(scratch.size()) < count) {
      const int64_t missing = count - static_cast<int64_t>(scratch.size());
      for (int64_t i = 0; i < missing; ++i) scratch.push_back(static_cast<int32_t>(lo + uniform_int(rng, range)));
      std::sort(scratch.begin(), scratch.end());
      scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
    }
  }
  out.insert(out.end(), scratch.begin(), scratch.end());
}

}  // namespace

HostMatrix random_matrix(const EntryType& entry, const RandomMatrixOptions& o) {
  if (o.rows < 0 || o.cols < 0 || o.mean_row < 0 || o.empty_fraction < 0 || o.empty_fraction > 1)
    throw InvalidArgument("random_matrix: bad options (rows " + std::to_string(o.rows) + ", cols " +
                          std::to_string(o.cols) + ", mean_row " + std::to_string(o.mean_row) +
                          ", empty_fraction " + std::to_string(o.empty_fraction) + ")");
  std::mt19937_64 rng(o.seed);
  HostMatrix m;
  m.entry = entry;
  m.name = o.name.empty() ? "random_" + std::to_string(o.rows) + "x" + std::to_string(o.cols) : o.name;
  m.rows = o.rows;
  m.cols = o.cols;
  m.row_ptr.assign(static_cast<size_t>(o.rows) + 1, 0);
  m.col_idx.reserve(static_cast<size_t>(o.rows * std::max(1.0, o.mean_row) + std::max(0, o.long_row)));
  // lengths uniform in [1, 2*mean - 1] have mean `mean` (exactly for an integer mean)
  const double spread = std::max(0.0, 2.0 * o.mean_row - 2.0);
  std::vector<int32_t> scratch;
  for (int64_t r = 0; r < o.rows; ++r) {
    int64_t len = 0;
    if (o.long_row > 0 && r == o.long_row_index()) {
      len = o.long_row;  // capped at the columns available by sample_columns
    } else if (o.mean_row > 0 && uniform01(rng) >= o.empty_fraction) {
      if (o.mean_row < 1) {
        len = uniform01(rng) < o.mean_row ? 1 : 0;
      } else {
        const double t = uniform01(rng) * (spread + 1.0);  // in [0, spread + 1)
        len = 1 + static_cast<int64_t>(t);
      }
    }
    int64_t lo = 0, hi = o.cols;
    const bool is_long = o.long_row > 0 && r == o.long_row_index();
    if (o.band > 0 && !is_long) {  // the long row spans all columns
      const int64_t center = r * static_cast<int64_t>(o.cols) / o.rows;
      lo = std::max<int64_t>(0, center - o.band);
      hi = std::min<int64_t>(o.cols, center + o.band + 1);
    }
    const size_t before = m.col_idx.size();
    sample_columns(rng, lo, hi, len, m.col_idx, scratch);
    if (m.col_idx.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      throw InvalidArgument("random_matrix: more than 2^31-1 entries");
    m.row_ptr[r + 1] = m.row_ptr[r] + static_cast<int32_t>(m.col_idx.size() - before);
  }
  m.values.resize(m.col_idx.size() * entry.num_components());
  for (double& v : m.values) v = uniform_pm1(rng);
  return m;
}

HostMatrix with_entry_type(const HostMatrix& pattern, const EntryType& entry, uint64_t seed) {
  HostMatrix m;
  m.entry = entry;
  m.name = pattern.name;
  m.rows = pattern.rows;
  m.cols = pattern.cols;
  m.row_ptr = pattern.row_ptr;
  m.col_idx = pattern.col_idx;
  m.values.resize(m.col_idx.size() * entry.num_components());
  std::mt19937_64 rng(seed);
  for (double& v : m.values) v = uniform_pm1(rng);
  return m;
}

std::vector<double> random_vector(int64_t n, int vector_components, uint64_t seed) {
  if (n < 0 || vector_components <= 0) throw InvalidArgument("random_vector: bad size");
  std::vector<double> x(static_cast<size_t>(n) * vector_components);
  std::mt19937_64 rng(seed);
  for (double& v : x) v = uniform_pm1(rng);
  return x;
}

}  // namespace jitsparse
