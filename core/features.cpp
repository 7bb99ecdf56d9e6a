#include "core/features.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <utility>
#include <vector>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/host_passes.hpp"

namespace jitsparse {

namespace {

// Row lengths, every row: exact sums in integers. Lengths and their maximum in 32 bits (row_ptr is int32),
// squares summed in 64 (at most nnz^2 < 2^62): the compiler vectorises this loop eight lanes wide, where
// 64-bit lengths ran it 2.9x slower (1.22 -> 0.42 ms over 1.4M rows on the 2-core machine).
struct RowLengthSums {
  uint64_t sum_sq = 0;
  uint32_t max_row = 0, empty_rows = 0;
};
RowLengthSums row_length_sums(const HostMatrix& a, int64_t begin, int64_t end) {
  RowLengthSums s;
  const int32_t* rp = a.row_ptr.data();
  for (int64_t r = begin; r < end; ++r) {
    const uint32_t len = static_cast<uint32_t>(rp[r + 1] - rp[r]);
    s.sum_sq += static_cast<uint64_t>(len) * len;
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
  }
  return s;
}
RowLengthSums& operator+=(RowLengthSums& s, const RowLengthSums& o) {
  s.sum_sq += o.sum_sq;
  s.max_row = std::max(s.max_row, o.max_row);
  s.empty_rows += o.empty_rows;
  return s;
}
void set_row_length_features(const HostMatrix& a, const RowLengthSums& s, MatrixFeatures& f) {
  f.max_row = s.max_row;
  f.empty_rows = s.empty_rows;
  f.mean_row = static_cast<double>(f.nnz) / a.rows;
  f.std_row = std::sqrt(std::max(0.0, static_cast<double>(s.sum_sq) / a.rows - f.mean_row * f.mean_row));
}

// The column extents visit every entry: on large matrices an even sample of rows (about kSampledEntries
// entries) keeps run-time selection within a millisecond and changes the means by little. Rows taken one
// by one at a stride, not in runs (see test_features: runs missed the thin bands of a torus seam). On a
// matrix far above the caches each sampled row is two dependent misses (its row_ptr, then its columns):
// prefetching both some rows ahead lets the misses overlap (250 MB Laplacian, 5,000 sampled rows on the
// 2-core machine: about 1 ms without).
void column_features(const HostMatrix& a, MatrixFeatures& f) {
  constexpr int64_t kAhead = 16;  // sampled rows: row_ptr this far ahead, columns half as far
  const int64_t stride = std::max<int64_t>(1, f.nnz / kSampledEntries);
  const int32_t* rp = a.row_ptr.data();
  const int32_t* ci = a.col_idx.data();
  double bandwidth_sum = 0, distance_sum = 0;
  int64_t non_empty = 0, entries = 0;
  for (int64_t r = 0; r < a.rows; r += stride) {
    if (stride > 1) {  // a full pass streams: the hardware prefetches it
      if (const int64_t far = r + kAhead * stride; far < a.rows) prefetch(rp + far);
      if (const int64_t near = r + kAhead / 2 * stride; near < a.rows) prefetch(ci + rp[near]);
    }
    const int64_t begin = rp[r], end = rp[r + 1];
    if (begin == end) continue;
    ++non_empty;
    entries += end - begin;
    // columns are sorted, so the first and last entries give the row's extent
    const int64_t band = static_cast<int64_t>(ci[end - 1]) - ci[begin];
    bandwidth_sum += static_cast<double>(band);
    f.max_bandwidth = std::max(f.max_bandwidth, band);
    for (int64_t k = begin; k < end; ++k) distance_sum += static_cast<double>(std::llabs(ci[k] - r));
  }
  if (non_empty > 0) f.mean_bandwidth = bandwidth_sum / non_empty;
  if (entries > 0) f.mean_distance_from_diagonal = distance_sum / entries;
}

// The sorted sell's slices of a window pad to the window's 1st, 33rd, 65th, ... longest row: summed here
// from a histogram of the lengths where the longest is short (a sort of each window's 256 lengths took
// most of padding_features' time), else by sorting. `len` is the window's lengths padded with zeros to
// whole slices.
int64_t sorted_slice_rows(std::vector<int32_t>& len, int64_t slice, std::vector<int32_t>& counts) {
  constexpr int32_t kHistogramLimit = 4096;
  const int32_t longest = *std::max_element(len.begin(), len.end());
  int64_t sum = 0;
  if (longest >= kHistogramLimit) {
    std::sort(len.begin(), len.end(), std::greater<int32_t>());
    for (size_t s = 0; s < len.size(); s += slice) sum += slice * len[s];
    return sum;
  }
  counts.assign(static_cast<size_t>(longest) + 1, 0);
  for (int32_t l : len) ++counts[l];
  // walking lengths down, `at_least` rows are at least v long: the sorted positions below it hold v
  int64_t at_least = 0, next = 0;
  for (int32_t v = longest; v >= 0 && next < static_cast<int64_t>(len.size()); --v) {
    at_least += counts[v];
    for (; next < at_least; next += slice) sum += slice * v;
  }
  return sum;
}

// Padding of sell32 and of sell32s256 (core/layout.hpp) over sampled windows of 256 rows (the last one cut
// at the matrix's end, padded to whole slices as packing does).
void padding_features(const HostMatrix& a, MatrixFeatures& f) {
  constexpr int64_t kWindow = 256, kSlice = 32;
  const int64_t windows = (a.rows + kWindow - 1) / kWindow;
  const int64_t window_stride = std::max<int64_t>(1, windows / kSampledWindows);
  int64_t plain = 0, sorted = 0, sampled = 0;
  std::vector<int32_t> len, counts;
  for (int64_t w = 0; w < windows; w += window_stride) {
    const int64_t r0 = w * kWindow, r1 = std::min<int64_t>(a.rows, r0 + kWindow);
    len.assign(static_cast<size_t>((r1 - r0 + kSlice - 1) / kSlice * kSlice), 0);
    for (int64_t r = r0; r < r1; ++r) len[r - r0] = a.row_ptr[r + 1] - a.row_ptr[r];
    for (int64_t r = r0; r < r1; ++r) sampled += len[r - r0];
    for (size_t s = 0; s < len.size(); s += kSlice)
      plain += kSlice * *std::max_element(len.begin() + s, len.begin() + s + kSlice);
    sorted += sorted_slice_rows(len, kSlice, counts);
  }
  if (sampled > 0) {
    f.sell_padding = static_cast<double>(plain) / sampled;
    f.sorted_sell_padding = static_cast<double>(sorted) / sampled;
  }
}

}  // namespace

MatrixFeatures compute_features(const HostMatrix& a) {
  MatrixFeatures f;
  f.rows = a.rows;
  f.cols = a.cols;
  f.nnz = a.nnz();
  if (a.rows == 0) return f;
  if (a.cols > 0) f.density = static_cast<double>(f.nnz) / (static_cast<double>(a.rows) * a.cols);
  // On a large matrix the rows are summed in shares over up to four threads, the first helper taking
  // the sampled passes too (a few thousand cache misses, prefetched). 250 MB Laplacian, 1.4M rows: on the
  // 2-core machine 2.0 -> 0.5-0.7 ms with two threads, the prefetching and the 32-bit row pass; on the H100's
  // host (16 cores, slower memory per thread) the row pass alone took 1.6 ms on one thread, 0.9 on two,
  // 0.5-0.7 on four. A small matrix is not worth a thread's start. The passes write disjoint fields.
  const int shares = row_share_count(a.rows, 2);
  std::vector<RowLengthSums> sums(static_cast<size_t>(shares));
  for_row_shares(a.rows, shares, [&](int share, int64_t first, int64_t last) {
    if (share == 1) {  // the sampled passes write fields of their own
      column_features(a, f);
      padding_features(a, f);
    }
    sums[static_cast<size_t>(share)] = row_length_sums(a, first, last);
  });
  if (shares == 1) {
    column_features(a, f);
    padding_features(a, f);
  }
  RowLengthSums total;
  for (const auto& s : sums) total += s;
  set_row_length_features(a, total, f);
  return f;
}

void to_json(nlohmann::json& j, const MatrixFeatures& f) {
  j = nlohmann::json{{"rows", f.rows},
                     {"cols", f.cols},
                     {"nnz", f.nnz},
                     {"mean_row", f.mean_row},
                     {"std_row", f.std_row},
                     {"max_row", f.max_row},
                     {"empty_rows", f.empty_rows},
                     {"density", f.density},
                     {"mean_bandwidth", f.mean_bandwidth},
                     {"max_bandwidth", f.max_bandwidth},
                     {"mean_distance_from_diagonal", f.mean_distance_from_diagonal},
                     {"sell_padding", f.sell_padding},
                     {"sorted_sell_padding", f.sorted_sell_padding},
                     {"narrow_fits", f.narrow_fits}};
}

void from_json(const nlohmann::json& j, MatrixFeatures& f) {
  // Strict: a record with a missing or mistyped field is corrupted and must be rebuilt, not half-used.
  auto get = [&j](const char* key, auto& out) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number())
      throw ParseError(std::string("matrix features: '") + key + "' is missing or not a number");
    out = j[key].get<std::remove_reference_t<decltype(out)>>();
  };
  get("rows", f.rows);
  get("cols", f.cols);
  get("nnz", f.nnz);
  get("mean_row", f.mean_row);
  get("std_row", f.std_row);
  get("max_row", f.max_row);
  get("empty_rows", f.empty_rows);
  get("density", f.density);
  get("mean_bandwidth", f.mean_bandwidth);
  get("max_bandwidth", f.max_bandwidth);
  get("mean_distance_from_diagonal", f.mean_distance_from_diagonal);
  // Added later: a record without them keeps 0 (unknown); present ones must be numbers.
  for (auto [key, out] : {std::pair{"sell_padding", &f.sell_padding}, std::pair{"sorted_sell_padding", &f.sorted_sell_padding}})
    if (j.contains(key)) get(key, *out);
  if (j.contains("narrow_fits")) get("narrow_fits", f.narrow_fits);
}

double column_scatter(const MatrixFeatures& f) {
  return f.cols > 0 ? f.mean_distance_from_diagonal / static_cast<double>(f.cols) : 0.0;
}

bool sorted_sell_pays(const MatrixFeatures& f, int components) {
  if (f.sorted_sell_padding <= 0) return true;  // unknown: let the search decide
  // Bytes of sell32 and sell32s256 in f64 from the sampled paddings: positions x (column + entry), row
  // lengths, and the row order of the sorted one.
  const double per_position = 4.0 + 8.0 * components, rows = static_cast<double>(f.rows), nnz = static_cast<double>(f.nnz);
  const double plain = f.sell_padding * nnz * per_position + 4 * rows;
  const double sorted = f.sorted_sell_padding * nnz * per_position + 8 * rows;
  return sorted < 0.97 * plain;
}

bool renumbering_may_pay(const MatrixFeatures& f) {
  return f.rows == f.cols && f.rows >= kRenumberingMinRows && column_scatter(f) > kRenumberingMinScatter;
}

bool near_diagonal_columns(const MatrixFeatures& f) { return column_scatter(f) <= kRenumberingMinScatter; }

Ordering preferred_ordering(const MatrixFeatures& f) { return f.std_row > f.mean_row ? Ordering::degree : Ordering::rcm; }

}  // namespace jitsparse
