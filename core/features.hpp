#pragma once
#include <cstdint>

#include <nlohmann/json_fwd.hpp>

#include "core/host_matrix.hpp"
#include "core/permutation.hpp"

namespace jitsparse {

// What the tuner knows of a matrix when it picks a variant for an unseen one.
struct MatrixFeatures {
  int64_t rows = 0, cols = 0, nnz = 0;
  double mean_row = 0, std_row = 0;  // entries per row
  int64_t max_row = 0;
  int64_t empty_rows = 0;
  double density = 0;                // nnz / (rows * cols)
  // The column extents: exact up to kSampledEntries entries, over an even sample of rows beyond.
  double mean_bandwidth = 0;         // per row: last column - first column (over non-empty rows)
  int64_t max_bandwidth = 0;
  double mean_distance_from_diagonal = 0;  // |col - row| averaged over entries
  // Stored positions per entry of sell32 and of sell32s256 (rows sorted by length in windows of 256):
  // the padding those layouts read. Over an even sample of at most kSampledWindows windows of 256 rows.
  // 0: unknown (records written before these were measured).
  double sell_padding = 0;
  double sorted_sell_padding = 0;
  // Whether every |column - row| fits a narrow layout's 16-bit offsets (narrow_columns_fit): 1 yes, 0 no,
  // -1 unknown. A full pass over the entries, so compute_features leaves it unknown; the tuner sets it.
  int narrow_fits = -1;
};
// Sample sizes: run-time selection computes these for every matrix it was not tuned on. On a 250 MB
// matrix (1.4M rows, 18M entries; the 2-core machine) 2^18 sampled entries took 2 ms, 256 windows 1.2 ms;
// these sizes take about a quarter and half of that and move the means by a percent or so.
constexpr int64_t kSampledWindows = 128;
constexpr int64_t kSampledEntries = int64_t{1} << 16;

MatrixFeatures compute_features(const HostMatrix& a);

// The mean distance of the entries from the diagonal as a share of the columns (0 for no columns): about a
// third in a random order, 0.2-2% for the meshes of the built-in set in a generator's or a scanner's order
// (up to 9% for meshes of a few hundred rows).
double column_scatter(const MatrixFeatures& f);

// Sorting rows by length inside windows (sell32s256) pays only where it cuts padding: on rows of equal
// length it stores what sell32 stores plus a row order, and scatters y. True when sell32s256 takes at
// least 3% fewer bytes than sell32 (f64, row order included), from the paddings the features sampled
// (MatrixFeatures::sell_padding, sorted_sell_padding; unknown: true); the tuner leaves sorted layouts
// out otherwise, and the selection model makes sorted twins of its candidates only then.
bool sorted_sell_pays(const MatrixFeatures& f, int components);

// Whether renumbering (the @rcm or @degree variants) may pay: square, at least
// kRenumberingMinRows rows (smaller ones are launch-bound: two more launches cannot pay), and a mean
// distance of the entries from the diagonal above 5% of the rows (a random order has about a third; the
// meshes of the built-in set in a generator's or a scanner's order 0.8-2%). The tuner's renumbering stage
// runs only then, and the selection model proposes renumbered variants only then.
constexpr int64_t kRenumberingMinRows = 16384;
constexpr double kRenumberingMinScatter = 0.05;
bool renumbering_may_pay(const MatrixFeatures& f);
// The other side of that scatter: columns near the diagonal (a mesh in a generator's or scanner's order),
// where renumbering has nothing to gain, so such a matrix runs as a scattered one would renumbered.
bool near_diagonal_columns(const MatrixFeatures& f);
// The renumbering tried where it may pay: degree (hub sorting) where rows are skewed, their standard
// deviation above their mean (R-MAT graphs: 7x; meshes: 0.1-0.3x), else reverse Cuthill-McKee.
Ordering preferred_ordering(const MatrixFeatures& f);
void to_json(nlohmann::json& j, const MatrixFeatures& f);
void from_json(const nlohmann::json& j, MatrixFeatures& f);

}  // namespace jitsparse
