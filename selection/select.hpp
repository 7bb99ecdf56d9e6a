#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/search_space.hpp"
#include "generator/variant.hpp"
#include "runtime/device_info.hpp"
#include "selection/database.hpp"
#include "selection/model.hpp"

namespace jitsparse {

// Which variant to run for a matrix on this GPU, and how it was found.
struct Selection {
  Variant variant;
  std::string level;   // "exact" (this matrix was tuned), "model" (never tuned: the selection model's first
                       // candidate, learnt from every tuned matrix of the entry type), "domain" (the domain's
                       // winner), "default" (nothing tuned for this entry type)
  std::string detail;  // e.g. the matrix it was taken from
  Prediction prediction;  // level "model": the whole ranking, its confidence and the neighbours
  // A renumbered narrow pick's renumbering (perm[old] = new), computed to check that its columns fit 16
  // bits: pack with DeviceMatrix::for_variant(ctx, a, variant, permutation.get()) (or pack_selected) so
  // it is not computed again (reverse Cuthill-McKee of a 250 MB matrix takes seconds). Null otherwise.
  std::shared_ptr<const std::vector<int32_t>> permutation;
};

// Records of another operation (op n, t, h) are never used: a variant computes one operation.
// deterministic: only variants whose result bits never change (the records' deterministic winners).
// gpu: the GPU the database belongs to (its L2 size is a feature of the model, its limits bound the default).
// builder: where given, a variant not measured on this entry type (the default when nothing is tuned for
// this entry type, precision and operation; the model's first choice transferred from other entry types)
// is compiled (or taken from the cubin cache: the product needs it anyway) and runs with enough registers
// (without_spills). Without it, such a variant runs as it is.
// model: the selection model of `db` for this GPU's L2, kept between calls (SelectionModel keeps what it
// derives of the records); without one, a model is made for this call.
Selection select_variant(const TuningDatabase& db, const HostMatrix& a, Precision p, const DeviceInfo& gpu,
                         Op op = Op::n, bool deterministic = false, const KernelBuilder* builder = nullptr,
                         const SelectionModel* model = nullptr);
// The safe default: csr-aos-aos, dynamic, 256 threads, a few threads per row for long rows; for op t and
// h the atomic kind (no second copy of the matrix), or the copy kind when it must be deterministic.
Variant default_variant(const HostMatrix& a, Precision p, const ScheduleLimits& limits, Op op = Op::n,
                        bool deterministic = false);
// `v` with its blocks per SM halved (twice the registers per thread) until the kernel `builder` compiles
// for it keeps every value in registers (the cubin's stack frame is empty), or one block per SM is left.
// default_variant's 2048 threads per SM leave 32 registers: CUDA 13.0 spills 32-880 bytes per thread for
// quaternion, block3-8 and dual-quaternion f64 and several larger f32 entries (NOTES.md, twenty-third
// session), which ran 1.7-2.7x slower where it was measured. A kernel that does not compile is left to
// the caller to report.
Variant without_spills(Variant v, const KernelBuilder& builder);

}  // namespace jitsparse
