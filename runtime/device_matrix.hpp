#pragma once
#include <cstdint>
#include <vector>

#include "core/host_matrix.hpp"
#include "core/layout.hpp"
#include "core/permutation.hpp"
#include "generator/variant.hpp"
#include "runtime/context.hpp"
#include "runtime/device_buffer.hpp"
#include "templates/jitsparse/params.cuh"

namespace jitsparse {

// A matrix on the GPU, packed in one layout and precision.
class DeviceMatrix {
 public:
  // memory_cap_bytes > 0: refuse (InvalidArgument with the numbers) a layout whose packed size exceeds it,
  // before packing anything (ELL can explode on a matrix with one long row).
  DeviceMatrix(Context& ctx, const HostMatrix& a, const Layout& layout, Precision precision,
               int64_t memory_cap_bytes = 0);
  DeviceMatrix(Context& ctx, PackedMatrix packed, std::string entry_name, bool transposed_copy = false);
  // A transposed copy of a: A^T's pattern with a's entries unchanged, what the copy kind of op t/h
  // variants multiplies (deterministic, at the memory of a second matrix: bytes() says how much).
  static DeviceMatrix transposed(Context& ctx, const HostMatrix& a, const Layout& layout, Precision precision,
                                 int64_t memory_cap_bytes = 0);
  // The matrix a variant runs on: a itself, or its transposed copy for Variant::uses_transposed_copy();
  // for a renumbered variant (Variant::ordering) that of P A P^T, with the permutation (computed here on
  // the host: reverse Cuthill-McKee takes about a second for 10M entries). Throws InvalidArgument for a
  // renumbered variant of a matrix that is not square, or a narrow one whose renumbered columns do not fit.
  static DeviceMatrix for_variant(Context& ctx, const HostMatrix& a, const Variant& v, int64_t memory_cap_bytes = 0);
  // The same for a renumbered variant whose renumbering of a is already computed (perm[old] = new:
  // Selection::permutation, which run-time selection computed to check a narrow pick's columns), so it
  // is not computed twice; null computes it as above. Throws InvalidArgument if it is not a permutation
  // of a's rows.
  static DeviceMatrix for_variant(Context& ctx, const HostMatrix& a, const Variant& v,
                                  const std::vector<int32_t>* permutation, int64_t memory_cap_bytes = 0);
  // Makes this the renumbered form of a matrix: it holds P A P^T (or its transposed copy) for
  // perm[old] = new (core/permutation.hpp); SpmvLaunch then moves x into it and the kernel writes y through it.
  void set_ordering(Ordering ordering, const std::vector<int32_t>& perm);
  Ordering ordering() const { return ordering_; }
  const int* permutation() const { return perm_.as<const int>(); }        // old -> new
  const int* inverse_permutation() const { return inverse_.as<const int>(); }  // new -> old

  // Replace the values, keeping the pattern (throws InvalidArgument if the pattern differs). For a
  // transposed copy, pass the original matrix a.
  void refresh_values(const HostMatrix& a);

  // Device footprint of the matrix arrays (and of a renumbered one's two permutations).
  int64_t bytes() const { return packed_.bytes() + static_cast<int64_t>(perm_.bytes() + inverse_.bytes()); }
  const PackedMatrix& packed() const { return packed_; }
  const Layout& layout() const { return packed_.layout; }
  Precision precision() const { return packed_.precision; }
  const std::string& entry() const { return entry_; }
  int32_t rows() const { return packed_.rows; }  // of the stored matrix (A^T for a transposed copy)
  int32_t cols() const { return packed_.cols; }
  bool is_transposed_copy() const { return transposed_copy_; }
  // hola: room for the first row of each of `blocks` blocks (grown on demand, kept for later launches).
  int* hola_workspace(int64_t blocks) const;

  // The matrix half of the kernel arguments (x, y, alpha, beta are filled by the caller).
  template <class T>
  SpmvParams<T> params() const;
  // hisparse: the pool and the strips of op (one matrix serves A x, A^T x and A^H x); the first big_strips
  // of the strip order take a block each (hisparse_big_strips gives the count for a threshold).
  template <class T>
  void set_hisparse_params(SpmvParams<T>& p, Op op, int32_t big_strips) const;

 private:
  void upload();

  Context* ctx_;
  std::string entry_;
  bool transposed_copy_ = false;
  PackedMatrix packed_;  // host image: kept for refresh_values
  DeviceBuffer row_ptr_, slice_ptr_, row_len_, row_perm_, col_idx_, values_, counters_;
  DeviceBuffer pool_;  // hisparse
  struct HiStripBuffers {
    DeviceBuffer strip_begin, strip_order, leaf_ptr, leaf_block;
  } hi_[2];
  mutable DeviceBuffer hola_workspace_;
  Ordering ordering_ = Ordering::none;
  std::vector<int32_t> perm_host_;  // for refresh_values
  DeviceBuffer perm_, inverse_;
};

}  // namespace jitsparse
