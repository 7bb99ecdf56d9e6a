#pragma once
// What each stage of the search measures next: stage one's variants, the schedule grids, the policy,
// renumbering, y-form and even-grid twins, from the options, the GPU's schedule limits and what a record
// holds. Pure functions (the CPU tests pin them); the Tuner (tuner/tuner.hpp) packs, compiles, checks and
// times what they return.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/entry_type.hpp"
#include "core/layout.hpp"
#include "core/permutation.hpp"
#include "generator/search_space.hpp"
#include "generator/variant.hpp"
#include "selection/database.hpp"
#include "tuner/tune_options.hpp"

namespace jitsparse {

// The layout, threads-per-row, transpose kind and ordering of a variant: the unit whose schedule grid
// stage 2 sweeps.
std::string layout_tpr_key(const Variant& v);
// Stage one's variants that wait for other variants' times: op t/h's atomic kind (atomic_stage_one) and
// the hisparse layouts past the first (the Tuner's kHisparseKeep). Stage one's first round, its
// prepacking and compile_ahead leave both out alike (but a wide hisparse layout on a large matrix,
// wide_hisparse_pays, is packed with stage one: it runs whatever the first's time).
bool waits_for_copy_kind(const Variant& v, const TuneOptions& o);
bool waits_for_first_hisparse(const Variant& v, const TuneOptions& o);
// A wide hisparse layout's variant (stage one's, entry, precision, op and kind set) in the setups a wide
// layout runs in on a large matrix (kWideHisparseSetups) that fit its shared memory.
std::vector<Variant> wide_hisparse_setups(const Variant& later, const EntryType& entry, const ScheduleLimits& limits);

// The load policy stage one gives the row layouts (csr, ell, sell). A matrix whose compulsory bytes fit
// in the L2 stays there between products, and evict-first loads (the default) throw it out each time: on
// the H100 (2026-11-25 training database, matrices of 0.1-1x the L2) ELL ran 1.8-3.4x faster with cached
// loads and CSR with threads per row 1.1x, so stage one ranked the pairs by a policy they would not run
// with, and the search missed winners by up to 1.35x that quick tuning found (cached loads won on 55 of
// 72 such records, on none of 33 above the L2). There stage one times cached loads and, where every
// column fits 16 bits, the narrow form (ELL 14 -> 9 us, CSR 11.6 -> 10.7 on a 37 MB real Laplacian in
// L2); the policy stage flips both back for the fastest pairs.
struct StageOnePolicy {
  bool cached = false;  // Schedule::cached_matrix
  bool narrow = false;  // Layout::narrow, for csr, ell and sell (csr-aos-aos stays wide too: the baseline)
};
StageOnePolicy stage_one_policy(double compulsory_bytes, long long l2_bytes, bool narrow_fits);  // stays_in_l2
// Stage-1 and grid variants for one entry/precision (exposed for tests). Stage one: every layout x
// threads-per-row at one schedule (hola layouts: a few entries per thread), for op t/h in each kind
// (copy only with options.deterministic), with what the entry type cannot run left out; the row layouts
// with `policy` (not in --mode schedule, whose csr-aos-aos is the plain baseline).
std::vector<Variant> stage_one_variants(const EntryType& entry, Precision p, const TuneOptions& options,
                                        const ScheduleLimits& limits, StageOnePolicy policy = {});
// The grids make schedules without a load policy: these keep seed's (cached loads, unrolling) on the row
// kernels, each schedule once.
std::vector<Variant> keeping_policy(const std::vector<Variant>& vs, const Variant& seed);
// Op t/h: the atomic kind's stage one is pruned by the copy kind's measurements in `measured`: per row
// layout the atomic twins of the per_layout threads-per-row the copy kind ran fastest, per hola layout of
// its fastest entries-per-thread, and only for layouts whose fastest copy variant is within `keep` of the
// copy kind's best over all layouts. A layout the copy kind has no measurement of keeps all its variants.
// Why so few: the atomic kind reads the entries the copy kind reads and adds atomics to y. On the H100
// (2026-11-25, main set, op t and op h: 52 searches) no atomic variant won; where one was the fastest of
// its layout it ran 1.56-4.99x the winner; and the atomic stage cost 10 s of NVRTC of a 124 s tune,
// besides packing the matrix's own layouts. So (twenty-sixth session, op h tunes over 2 minutes) the
// atomic kind is timed at the copy kind's fastest threads per row of the layouts within 10% of the
// copy kind's best: the database still holds both kinds, for the layouts that can matter. Main-set op h,
// cold: 11% fewer kernels (6,586 -> 5,876), 108.3 s -> 97.9 s as the first tune of a host (calls G, H);
// on one host the same 26 winners within 1.5% (geomean 0.998).
constexpr int kAtomicPerLayout = 1;
constexpr double kAtomicKeep = 1.1;
std::vector<Variant> atomic_stage_one(const std::vector<Variant>& atomic, const MatrixRecord& measured, int per_layout,
                                      double keep);
// Other windows of the fastest sorted sell pair of stage one, at its schedule, when that pair ranks
// among the `top` fastest pairs: sigma 64, 1024 and 8192 (past the first window that holds all rows,
// larger ones sort the same and are left out).
std::vector<Variant> sorted_window_variants(const MatrixRecord& measured, const std::vector<Variant>& stage1,
                                            int32_t rows, int top);
// After the windows: where one of them beat the window stage one used, that window for the other sorted
// sell variants of stage one on the same slice within kWindowSiblingKeep of the pair the windows came from
// (the padding a window saves is the same for every vector layout and threads per row; which of those is
// fastest is not: the scanned Dirac's f32 winner is sell32s64 with aos x and one thread per row, while the
// windows were tried on the aos-soa pair 1.7% ahead of it at stage one). At most kWindowSiblings, fastest
// first; those measured already are left out.
std::vector<Variant> sorted_window_siblings(const MatrixRecord& measured, const std::vector<Variant>& stage1,
                                            const std::vector<Variant>& windows);
// The load-policy and unroll stage: twins of the fastest row-family variant of each of the `n` fastest
// (layout, threads-per-row) pairs measured so far (those not timed yet): with the other matrix load
// policy (Schedule::cached_matrix) and, with `unroll`, with 2, 4 and 8 loop iterations unrolled
// (Schedule::unroll; the tuner asks for them on matrices over half the L2, where loads in flight bound
// the speed), unrolled ones cached only where the matrix fits in the L2 (`in_l2`: above it cached loads
// never won); and with `narrow` (every |column - row| fits 16 bits) each of these and the variant itself
// in the other form of its csr, ell or sell layout (Layout::narrow: 2 bytes of column index per entry
// instead of 4).
std::vector<Variant> policy_twins(const MatrixRecord& measured, int n, bool unroll, bool narrow, bool in_l2 = false);
// The renumbering stage: on a square matrix whose own order scatters its columns (renumbering_may_pay),
// the fastest variants of the search run again on its reverse Cuthill-McKee renumbering P A P^T, x and y
// moved through the permutation inside each timed launch (Variant::ordering). ordering_twins: the
// fastest variant of each of the `n` fastest outer layouts (Layout::outer_name: csr, ell, sell32,
// sell32s256, hola, hisparse64c2...) and of the fastest hisparse layout wherever it ranks, renumbered,
// and with `narrow` (the renumbered columns fit 16 bits) the narrow form of each csr, ell or sell one;
// those `measured` lacks.
constexpr int kOrderingLayouts = 4;
std::vector<Variant> ordering_twins(const MatrixRecord& measured, int n, Ordering ordering, bool narrow);
// renumbering_may_pay (core/features.hpp) says which matrices get the renumbering stage.
// A renumbered hisparse variant in the other setups of stage one, without small leaves one per lane (and
// in the batched-leaves setup), those `measured` lacks (for the first hisparse layout, the one these twins nearly always come from on a
// scattered matrix, stage one compiled them: timing only). Its stage-one setup was chosen on the tree of
// the matrix's own order; on the renumbered tree of dirac_irregular and helmholtz_irregular 128x8-g32 ran
// 1.21-1.33x faster than the small-leaves setup the search kept (H100, thirty-second session).
// Only setups whose shared memory the entry fits (d 256 of quaternion f64 needs groups of 32).
std::vector<Variant> hisparse_setup_twins(const MatrixRecord& measured, const Variant& renumbered, const EntryType& entry,
                                          const ScheduleLimits& limits);
// Stage one times the hisparse layouts past the first only where the first came within kHisparseKeep of
// its best (in the first's fastest setup); a layout of wide nodes (d of kWideHisparseD or more) also on a
// matrix with at least kWideStripsPerSm strips of d rows of y per SM, whatever the first's time, in setups
// of its own (kWideHisparseSetups, compiled last by compile_ahead; only there). On the H100 (thirty-third session, call A, same run,
// 128x8-g32) d 256 ran 1.2-2.6x faster than d 64 on the real and complex matrices of 540k rows and more
// (laplacian_large f32 45.6 against 73.7 us, helmholtz_large f32 50.4 against 62.0, laplacian_irregular
// f32 37.8 against 96.5), where d 64 was 1.35-2.1x off the winner and so pruned; on the matrices below
// 300k rows it ran 1.7-2.2x slower (too few strips for every SM), and dirac_large (524k rows, 15.5
// strips per SM) was even in f32.
constexpr int kWideHisparseD = 256;
constexpr int kWideStripsPerSm = 16;
bool wide_hisparse_pays(const Layout& l, int64_t y_rows, int sm_count);
// What compile_ahead compiles last: the wide hisparse layouts of options.hisparse_layouts (past the first)
// in kWideHisparseSetups for each (entry type, precision), as compiled (Variant::compiled_variant, the key
// of Context::adopt), each once.
std::vector<Variant> wide_hisparse_kernels(const std::vector<std::pair<std::string, Precision>>& batches,
                                           const TuneOptions& options, const ScheduleLimits& limits);
// The n fastest renumbered variants `measured` holds, each in its other RenumberedY form (y written through
// the permutation by the product, or moved back by a kernel of its own), those it lacks.
constexpr int kYFormTwins = 2;
std::vector<Variant> y_form_twins(const MatrixRecord& measured, int n);
// The last stage: the n fastest static row-kernel variants `measured` holds, each with the even grid
// (Schedule::even_grid), where that launches fewer blocks than its plain form on a matrix of `rows` x
// `cols` (a transposed copy's kernel runs over cols rows) and `measured` lacks it. Same kernels: timing
// only.
constexpr int kEvenGridTwins = 3;
std::vector<Variant> even_grid_twins(const MatrixRecord& measured, int n, int64_t rows, int64_t cols, int sm_count);
// Stage two in two steps, for the row family (hola and hisparse seeds get their whole grid_variants):
// the coarse grid of seed's pair is n_t {64, 256, 1024} x n_b {as many as fit, half that} x {static,
// dynamic} and the seed itself (at most 13 schedules); the refined grid around a pair's best is every
// n_t and n_b within a factor of two of it in the same kind, and the other kind at its n_t and n_b; for a
// hisparse best (whose grid is whole), its twins with the other chunk counts per thread (unroll 1-8).
std::vector<Variant> coarse_grid_variants(const EntryType& entry, const Variant& seed, const ScheduleLimits& limits);
std::vector<Variant> refined_grid_variants(const Variant& best, const ScheduleLimits& limits);
// The refined grids around the best of each (layout, tpr, kind) pair that `coarse` holds, less what
// `measured` timed already.
std::vector<Variant> refined_stage_two(const MatrixRecord& measured, const std::vector<Variant>& coarse,
                                       const ScheduleLimits& limits);
// The schedule grid of seed's layout, threads per row, op and kind: every n_t x n_b x {static, dynamic};
// for hola every n_t x entries per thread that fits in shared memory.
std::vector<Variant> grid_variants(const EntryType& entry, const Variant& seed, const ScheduleLimits& limits);

}  // namespace jitsparse
