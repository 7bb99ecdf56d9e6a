#pragma once
// The selection model's corrections of a neighbour's time for the query's shape: what padding, narrow
// column offsets, the longest row and the threads in flight change between two matrices.
#include "core/features.hpp"
#include "core/precision.hpp"
#include "selection/variant_text.hpp"

namespace jitsparse::model_detail {

// How much of a product's time its bytes decide: 0 for a matrix of a quarter of the L2 or less (latency-
// bound), 1 from the L2 up, linear in log2(bytes / L2) between; 1 where the L2 is unknown. Measured on
// narrow twins (narrow_log_ratio): they gained nothing below L2 / 4 in the H100 training database.
double bandwidth_share(double compulsory_bytes, long long l2_bytes);

// A narrow twin's expected log(time / its wide twin's) where it was not timed: a share of log(bytes with
// 16-bit column offsets / bytes with 32-bit columns) (the matrix arrays and the vectors, read once). In
// the H100 training database (1,000 twin pairs timed) the gain was 55-60% of the bytes' on matrices of
// L2 size and more and none (+2.5%, median) on those below a quarter of L2, which are latency-bound:
// the share rises from 0 at L2 / 4 to 0.6 at L2 (0.6 x bandwidth_share).
double narrow_log_ratio(const MatrixFeatures& f, double compulsory_bytes, long long l2_bytes, int components,
                        int vector_components, Precision p);

// Bytes a variant's layout reads per compulsory byte of a matrix: padding multiplies the entry and column
// bytes (ell: longest row / mean row; sell: the sampled padding of sell32; sorted sell: that of
// sell32s256; csr, hola, hisparse: none). 0 when the features do not say (older records).
double traffic_factor(const VariantShape& v, const MatrixFeatures& f, int components, int vector_components, Precision p);

// What a sorted sell reads and writes beyond its padded entries, per compulsory byte (the units of
// traffic_factor): its row order (4 bytes a row) and y once more, as it is written through that order
// (scattered sectors). Where sorting saves no bytes (a regular grid), this is what keeps ELL ahead: on the
// H100 database of the twenty-ninth session a sorted sell ran 5-15% behind ELL at one schedule there.
double sorted_sell_overhead(const MatrixFeatures& f, int components, int vector_components, Precision p);

// log(the padding's cost on the query / its cost on a neighbour) for one layout: each side's log traffic
// factor counts by that side's bandwidth_share, as padding costs bytes and bytes cost time only where the
// product is bandwidth-bound; but at least by kLatencyPaddingShare, as a padded slot still costs a load
// and a multiply-add on a latency-bound matrix. A layout that pads less on the query gains at most
// gain_limit (log). 0 where a factor is unknown.
// Without the shares, ELL on the 0.01-0.4 MB tests/data matrices (padded 1.5-4x, within 1-6% of their
// best) was expected 1.3-2.3x and csr at 1.15-1.2x chosen. The floor was chosen among 0, 0.25 and 0.5 on
// the three holdouts of the twenty-second session's H100 database (0 lost 4 first choices within 3% of
// the family holdout and raised the main-set holdout's geometric mean from 1.197x to 1.206x).
constexpr double kLatencyPaddingShare = 0.25;
double padding_log_ratio(double here_factor, double here_bytes, double there_factor, double there_bytes,
                         long long l2_bytes, double gain_limit);

// A row-family kernel (csr, ell, sell) gives each row to one group of threads per row, so the longest row
// is a chain of max_row / tpr steps that no other work hides: a lower bound on its time. The step,
// 0.2 us, is what csr with 4 threads per row took on the longest row of a 1.2M-vertex R-MAT graph on the
// H100 (41,101 entries in 2.3 ms); a rough figure that only needs to flag the hopeless cases. Hola and
// hisparse balance entries instead: 0.
constexpr double kSerialStepUs = 0.2;

double critical_path_us(const VariantShape& v, const MatrixFeatures& f);

// The same chain, step by step, where the matrix is small enough for it to show: a group of tpr threads
// takes ceil(max_row / tpr) steps over the longest row, and each step adds its latency to the time
// (critical_path_us only ever lifts a time to a chain longer than all the rest). H100 database of
// 2026-11-25, f32 csr at its fastest schedule per threads per row, one step against the most: lund_a
// (147 rows, up to 21 entries) 1.59 us at 1 step, 3.80 us at 21 (0.11 us a step); karate 0.06, G51
// 0.12, qc324 0.15, the 1,400-row R-MAT graph 0.08. So tpr 8 against 32 on lund_a is 1.84 us against
// 1.59, which the neighbours' relative times (rows of up to 14 entries: 2 steps against 1) understated
// and the model chose tpr 8, 1.13-1.23x slower than the best.
constexpr double kChainStepUs = 0.1;

// A neighbour's time of a variant (neighbour_us) holds the neighbour's chain: log of that time with the
// query's chain in its place (kChainStepUs a step more or less, and at least half the time), over the
// time. 0 for hola and hisparse, and where the longest rows take as many steps. In microseconds, so it
// matters only where the time is a few of them. The model takes it for each candidate less that of the
// neighbour's best, so relative times stay relative to the best. Chosen on the three holdouts of the
// H100 database of 2026-11-25 (offline, evaluate --database): the step 0.1 us took the matrix holdout
// from 144 of 196 timed first choices within 10% of the best (73%) to 150 of 199 (75%; geometric mean
// 1.079x -> 1.073x), the family holdout 93 / 164 -> 94 / 164, the main set 78 / 172 -> 80 / 174 (within
// 3%: 55 -> 56, 25 -> 22, 22 -> 22); 0.07 and 0.15 lost 2-3 of the family's within 10%.
double chain_log_delta(const VariantShape& v, const MatrixFeatures& neighbour, const MatrixFeatures& query,
                       double neighbour_us);

// A row kernel runs rows x threads-per-row threads. With fewer than kParallelThreads the GPU has too few
// loads in flight to hide their latency, and the time grows as the threads fall: by the fourth root of
// the ratio (kParallelExponent). Best variants of the H100 database keep rows x threads per row at about
// 50k-150k on meshes (tpr 8-16 below 10k rows, 2-4 at 20-60k, 1-2 above). Without the term the main set's
// model proposed its 12-190 MB neighbours' 2-4 threads per row for 4k-row queries (1.5-2.5x slower).
// The two constants were chosen on the holdouts of the twenty-first session's database (offline): main set
// 47% -> 53% within 10%, leave one matrix out 72% -> 75% (within 3%: 32% -> 30%), family 47% -> 50%.
constexpr double kParallelThreads = 65536, kParallelExponent = 0.25;

// The term compares threads per row, not kernel kinds: it is counted from the widest groups of threads
// per row the search has (32), so a query too small for even those (below 2k rows) does not find every
// row kernel slower than on its neighbours. On the 0.1-0.3 MB matrices of the H100 database the best row
// kernel ran 2.1-2.6x faster than the best hola; the uncounted term had the main set's model choose hola
// there, 2.6-3.1x slower than the best (twenty-second session).
constexpr int kWidestThreadsPerRow = 32;

// What a row kernel pays at the launch floor beyond its kind's floor, on a query far smaller than its
// neighbours (whose relative times hide latency behind parallelism):
// - a row or slice pointer loaded before the entries, one dependent memory round trip: ELL finds a row's
//   entries from its index and loads them ahead of its length, csr and the sliced layouts cannot
//   (kPointerLoadUs; over the 63 records below 0.5 MB of the H100 database of 2026-11-25, each layout's
//   fastest variant against ELL's fastest: csr +0.18 us, sell16 / sell32 +0.32, sorted sell +0.36 in the
//   median; above 2 MB the gap is gone);
// - the longest row's chain, kChainStepUs a step, added to the floor: critical_path_us only ever lifts a
//   time to a chain longer than the whole floor, so below it 2 steps and 15 cost the same and the main
//   set's model, learnt from 6 MB and larger matrices, chose 4 threads per row for rows of 15-80 entries.
// 0 for hola and hisparse (balanced by entries; their floors hold their own setup).
constexpr double kPointerLoadUs = 0.2;
double floor_latency_us(const VariantShape& v, const MatrixFeatures& query);

// The other side, for entries of at most kOverParallelComponents components (real and complex): threads
// per row beyond what kOverParallelThreads threads need only add reductions and shorter loops per
// thread, so a query with more rows than its neighbour pays for the neighbour's threads per row by the
// same fourth root of the surplus (counted against one thread a row, so a query and a neighbour that are
// both over the line by the same factor at every tpr compare as they are). One-sided: a query smaller
// than its neighbour gets nothing back, as a neighbour's slow wide groups on short rows are idle lanes,
// not surplus threads. Why: the main set's 8-12 MB real and complex matrices win at 2-4 threads per row
// (40-66k rows), its 60-200 MB ones at 1; a 90-320k-row query between them got 2-4 and ran 1.3-1.5x its
// best, which is one thread per row. Offline on the thirtieth session's H100 database (every earlier first
// choice timed): main-set holdout 126 -> 131 of the 184 choices timed both ways within 10% of the best
// (geomean 1.096x -> 1.086x), matrix holdout 168 -> 169 of 223, family 94 -> 95. Quaternions and 3x3
// blocks are left out: their winners keep 4-16 threads per row at 85-290k rows (dirac_irregular f32 csr
// tpr8, elasticity_large f64 tpr16), and the term moved the family holdout's quaternion f32 picks to one
// thread, 1.12x -> 1.36x and 1.50x. The line (twice kParallelThreads) and the exponent were swept over
// 65k-262k and 0.15-0.6: within a choice or two of each other.
constexpr double kOverParallelThreads = 2 * kParallelThreads;
constexpr int kOverParallelComponents = 2;
double parallelism_log_ratio(const VariantShape& v, const MatrixFeatures& neighbour, const MatrixFeatures& query,
                             int components);

}  // namespace jitsparse::model_detail
