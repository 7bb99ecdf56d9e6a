#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/layout.hpp"
#include "core/op.hpp"
#include "core/permutation.hpp"
#include "core/precision.hpp"

namespace jitsparse {

// static/dynamic: the row family (csr, ell, sell); hola: the hola layouts only; hisparse: the hisparse
// layouts only.
enum class ScheduleKind { static_, dynamic, hola, hisparse };

// How the kernel is launched: n_t threads per block, n_b blocks per SM (grid = n_b x SM count, and
// both go into __launch_bounds__), threads_per_row threads sharing one row (1..32, divides 32).
// A hola schedule balances entries instead of rows: each block takes n_t x entries_per_thread entries
// (grid = entries / that); n_b only goes into __launch_bounds__.
// A hisparse schedule: groups of threads_per_row (G) threads each take one strip (d rows of op(A)) at a
// time, n_b x SM count blocks of n_t threads; strips holding at least big_strip slots (a power of two;
// 0: none) get a whole block each, first.
struct Schedule {
  ScheduleKind kind = ScheduleKind::static_;
  int threads = 256;
  int blocks_per_sm = 2;
  int threads_per_row = 1;
  int entries_per_thread = 1;  // hola only
  int big_strip = 0;           // hisparse only
  // hisparse only: leaves of at most 4/V entries are worked one per lane (name suffix "-s"); pays on
  // randomly numbered matrices (one-entry leaves), costs on ordered ones.
  bool small_leaves = false;
  // hisparse only: leaves smaller than one step of a group are worked several per step (name suffix "-b";
  // templates/jitsparse/hisparse.cuh, coo_batch); pays where leaves are small, costs a little on grids.
  bool batched_leaves = false;
  // Row family only: matrix arrays read through the read-only cache (ld.global.nc) instead of
  // evict-first (ld.global.cs): pays where the matrix stays in L2 between products (name suffix "-cached").
  bool cached_matrix = false;
  // Row family: iterations of a row's loop unrolled (loads in flight per thread); hisparse: chunks of a
  // COO leaf's entries each thread loads per step (templates/jitsparse/hisparse.cuh). 1, 2, 4 or 8
  // (name suffix "-u4" when not 2).
  int unroll = 2;
  // Static row kernels only: the grid is cut so that every block runs the same number of row chunks
  // (grid = ceil(chunks / ceil(chunks / (n_b x SM count)))) instead of n_b x SM count blocks of which some
  // run one chunk more (name suffix "-even"). Fewer blocks at once, no tail: the scanned Dirac f32's
  // sell32s64 512x4 winner ran 1.07x faster so, other winners 0.94-1.09x (H100, twenty-seventh session),
  // so the tuner times it for its three fastest static variants (tuner.hpp, even_grid_twins). The kernel
  // is the same (compiled_variant clears it).
  bool even_grid = false;

  // "static-256x2", "dynamic-128x4-tpr8" (tpr shown only when > 1), "static-256x8-tpr4-u4-cached-even",
  // "hola-256x4-ept4", "hisparse-128x8-g16-big4096", "hisparse-128x8-g16-big4096-u4-s-b"
  std::string name() const;
  static Schedule parse(const std::string& s);  // throws InvalidArgument
  // The name read without parse's checks (limits, combinations): false where it is not a schedule name.
  // For readers of many names whose schedules the generator made (the selection model's candidates).
  static bool read(std::string_view s, Schedule& out);
  int entries_per_block() const { return threads * entries_per_thread; }
  // static and dynamic: the row kernels (csr, ell, sell), the only ones with a load policy and unrolling
  bool row_family() const { return kind == ScheduleKind::static_ || kind == ScheduleKind::dynamic; }
  bool operator==(const Schedule& o) const {
    return kind == o.kind && threads == o.threads && blocks_per_sm == o.blocks_per_sm &&
           threads_per_row == o.threads_per_row && entries_per_thread == o.entries_per_thread &&
           big_strip == o.big_strip && cached_matrix == o.cached_matrix && unroll == o.unroll &&
           small_leaves == o.small_leaves && batched_leaves == o.batched_leaves && even_grid == o.even_grid;
  }
};

// Blocks of a row kernel's launch (csr, ell, sell; static or dynamic): n_b x SM count, but never more
// than there are chunks of rows (idle blocks still cost scheduling time, which dominates on small
// matrices); with Schedule::even_grid, as few as give every block the same number of chunks.
long long row_kernel_blocks(long long rows, const Schedule& s, int sm_count);

// How a transposed product (op t or h) is computed:
//   atomic: each stored entry's product is added into y by atomics per component (y is scaled by beta
//           first); no extra memory, but the order of the sums varies from run to run.
//   copy:   a transposed copy of the matrix (A^T's pattern, A's entries, DeviceMatrix::transposed) is
//           multiplied like A x: deterministic, at the memory of a second matrix.
//   tree:   hisparse only: the same tree read transposed (strips are leaf columns), sums in shared
//           memory by shared atomics: no extra matrix, not deterministic.
enum class TransposeKind { atomic, copy, tree };
std::string to_string(TransposeKind k);

// Where a renumbered product (Variant::ordering) writes its result:
//   mapped: the product kernel writes element i of P A P^T x' into the caller's y[inverse[i]] itself
//           (SpmvParams::y_map): two kernels per product, but scattered stores, whose partly written
//           sectors DRAM fills (f64: 24 MB more traffic on a 250 MB random Laplacian, H100).
//   moved:  the product writes a scratch y in its own numbering, in order, and a third kernel gathers it
//           back, y[j] = scratch[perm[j]] + beta y[j] (name suffix "-ymove"). 1.097x faster than mapped
//           on that Laplacian in f64, 0.90x in f32 (twenty-fourth session): the tuner times both.
enum class RenumberedY { mapped, moved };
inline constexpr std::string_view kMovedYSuffix = "-ymove";

// One point of the search space: what the generator instantiates.
struct Variant {
  std::string entry = "real";
  Precision precision = Precision::f64;
  Layout layout;
  Schedule schedule;
  Op op = Op::n;
  TransposeKind transpose = TransposeKind::atomic;  // op t and h only
  // The matrix runs renumbered: the kernel multiplies P A P^T (packed once), and each product moves x
  // into that numbering (a small gather, templates/jitsparse/permute.cuh, or hola's first kernel) and
  // writes its result through the inverse permutation (SpmvParams::y_map) or moves it back
  // (renumbered_y), so x and y stay the caller's. Pays where the matrix's own order scatters x (random, unordered meshes).
  // Square matrices only; the kernel is the same as without it (kernel_variant()).
  Ordering ordering = Ordering::none;
  RenumberedY renumbered_y = RenumberedY::mapped;  // renumbered variants only

  // Canonical name, e.g. "quaternion.f64/ell-soa-aos/static-256x2"; op t and h add the operation and
  // the kind: "complex.f32/csr-aos-aos/static-256x8-tpr4/h-atomic"; a renumbered one ends in "@rcm" or "@degree":
  // "real.f32/ell-aos-aos-d16/static-512x4@rcm", and with y moved back by a kernel of its own
  // (RenumberedY::moved) in "@rcm-ymove". parse() reads it back.
  std::string name() const;
  static Variant parse(const std::string& s);
  bool operator==(const Variant& o) const {
    return entry == o.entry && precision == o.precision && layout == o.layout && schedule == o.schedule &&
           op == o.op && (op == Op::n || transpose == o.transpose) && ordering == o.ordering &&
           renumbered_y == o.renumbered_y;
  }
  // The same variant without the renumbering: what is compiled and cached (the kernel does not know).
  Variant kernel_variant() const {
    Variant k = *this;
    k.ordering = Ordering::none;
    k.renumbered_y = RenumberedY::mapped;
    return k;
  }
  // What is compiled for this variant: kernel_variant() without what only the packing and the launch read
  // (hisparse: the COO width of the leaves and the big-strip threshold; the row kernels' even grid), so
  // variants that run one kernel share one compile, one cubin and one loaded kernel (Context keys its
  // kernels by this).
  Variant compiled_variant() const {
    Variant k = kernel_variant();
    k.schedule.even_grid = false;
    if (k.layout.outer == OuterLayout::hisparse) {
      k.layout.coo = 2;
      k.schedule.big_strip = 0;
    }
    return k;
  }
  // Same result bits on every run: no floating-point atomics (hola uses them for rows shared by blocks).
  bool deterministic() const;
  // Runs on a transposed copy of the matrix (op t/h with the copy kind).
  bool uses_transposed_copy() const { return op != Op::n && transpose == TransposeKind::copy; }
  // Adds into y with atomics after a first kernel that scales y (op t/h atomic), or needs hola's
  // first kernel: the launch is two kernels.
  bool has_prologue() const;
};

void to_json(nlohmann::json& j, const Variant& v);
void from_json(const nlohmann::json& j, Variant& v);

// Throws InvalidArgument when a schedule is outside what the kernels or the GPU accept.
void check_schedule(const Schedule& s, int max_threads_per_block = 1024, int max_threads_per_sm = 2048,
                    int max_blocks_per_sm = 32);
// check_schedule, and that layout and schedule belong together (hola layouts take hola schedules only).
void check_variant(const Variant& v, int max_threads_per_block = 1024, int max_threads_per_sm = 2048,
                   int max_blocks_per_sm = 32);

}  // namespace jitsparse
