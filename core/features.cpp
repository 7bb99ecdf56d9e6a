#include "core/features.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace jitsparse {

namespace {

// Row lengths, every row: exact sums in integers (the compiler vectorises them; a double sum is one long
// chain of adds). row_ptr is int32, so the sum of squared lengths is at most nnz^2 < 2^62.
void row_length_features(const HostMatrix& a, MatrixFeatures& f) {
  uint64_t sum_sq = 0;
  int64_t max_row = 0, empty_rows = 0;
  const int32_t* rp = a.row_ptr.data();
  for (int64_t r = 0; r < a.rows; ++r) {
    const int64_t len = rp[r + 1] - rp[r];
    sum_sq += static_cast<uint64_t>(len * len);
    max_row = std::max(max_row, len);
    empty_rows += len == 0;
  }
  f.max_row = max_row;
  f.empty_rows = empty_rows;
  f.mean_row = static_cast<double>(f.nnz) / a.rows;
  f.std_row = std::sqrt(std::max(0.0, static_cast<double>(sum_sq) / a.rows - f.mean_row * f.mean_row));
}

// The column extents visit every entry: on large matrices an even sample of rows (about kSampledEntries
// entries) keeps run-time selection within a millisecond and changes the means by little.
void column_features(const HostMatrix& a, MatrixFeatures& f) {
  const int64_t stride = std::max<int64_t>(1, f.nnz / kSampledEntries);
  double bandwidth_sum = 0, distance_sum = 0;
  int64_t non_empty = 0, entries = 0;
  for (int64_t r = 0; r < a.rows; r += stride) {
    const int64_t begin = a.row_ptr[r], end = a.row_ptr[r + 1];
    if (begin == end) continue;
    ++non_empty;
    entries += end - begin;
    // columns are sorted, so the first and last entries give the row's extent
    const int64_t band = static_cast<int64_t>(a.col_idx[end - 1]) - a.col_idx[begin];
    bandwidth_sum += static_cast<double>(band);
    f.max_bandwidth = std::max(f.max_bandwidth, band);
    for (int64_t k = begin; k < end; ++k) distance_sum += static_cast<double>(std::llabs(a.col_idx[k] - r));
  }
  if (non_empty > 0) f.mean_bandwidth = bandwidth_sum / non_empty;
  if (entries > 0) f.mean_distance_from_diagonal = distance_sum / entries;
}

// Padding of sell32 and of sell32s256 (core/layout.hpp) over sampled windows of 256 rows (the last one cut
// at the matrix's end, padded to whole slices as packing does).
void padding_features(const HostMatrix& a, MatrixFeatures& f) {
  constexpr int64_t kWindow = 256, kSlice = 32;
  const int64_t windows = (a.rows + kWindow - 1) / kWindow;
  const int64_t window_stride = std::max<int64_t>(1, windows / kSampledWindows);
  int64_t plain = 0, sorted = 0, sampled = 0;
  std::vector<int32_t> len;
  for (int64_t w = 0; w < windows; w += window_stride) {
    const int64_t r0 = w * kWindow, r1 = std::min<int64_t>(a.rows, r0 + kWindow);
    len.assign(static_cast<size_t>((r1 - r0 + kSlice - 1) / kSlice * kSlice), 0);
    for (int64_t r = r0; r < r1; ++r) len[r - r0] = a.row_ptr[r + 1] - a.row_ptr[r];
    for (int64_t r = r0; r < r1; ++r) sampled += len[r - r0];
    for (size_t s = 0; s < len.size(); s += kSlice)
      plain += kSlice * *std::max_element(len.begin() + s, len.begin() + s + kSlice);
    std::sort(len.begin(), len.end(), std::greater<int32_t>());
    for (size_t s = 0; s < len.size(); s += kSlice) sorted += kSlice * len[s];
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
  // The passes write disjoint fields. On a large matrix the sampled ones (cache misses, one per sampled
  // row) run on a second thread beside the full pass over row_ptr: 3.9 -> 1.4-1.8 ms on a 250 MB matrix
  // on a 2-core machine (NOTES.md, twelfth session); a small matrix is not worth a thread's start.
  constexpr int64_t kThreadedRows = 1 << 18;
  std::thread sampled;
  if (a.rows >= kThreadedRows) {
    try {
      sampled = std::thread([&a, &f] {
        column_features(a, f);
        padding_features(a, f);
      });
    } catch (const std::system_error&) {  // no thread to be had: do it here
    }
  }
  row_length_features(a, f);
  if (sampled.joinable()) {
    sampled.join();
  } else {
    column_features(a, f);
    padding_features(a, f);
  }
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

bool renumbering_may_pay(const MatrixFeatures& f) {
  return f.rows == f.cols && f.rows >= kRenumberingMinRows && f.mean_distance_from_diagonal > 0.05 * static_cast<double>(f.rows);
}

Ordering preferred_ordering(const MatrixFeatures& f) { return f.std_row > f.mean_row ? Ordering::degree : Ordering::rcm; }

}  // namespace jitsparse
