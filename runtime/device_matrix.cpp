#include "runtime/device_matrix.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {
namespace {

template <class V>
DeviceBuffer upload_array(const std::vector<V>& host, cudaStream_t s, const char* what) {
  DeviceBuffer b(host.size() * sizeof(V), what);
  b.upload(host.data(), host.size() * sizeof(V), s);
  return b;
}

}  // namespace

DeviceMatrix::DeviceMatrix(Context& ctx, const HostMatrix& a, const Layout& layout, Precision precision,
                           int64_t memory_cap_bytes)
    : ctx_(&ctx), entry_(a.entry.name) {
  if (memory_cap_bytes > 0) {
    const int64_t need = packed_bytes(a, layout, precision);
    if (need > memory_cap_bytes)
      throw InvalidArgument("layout " + layout.name() + " of '" + a.name + "' needs " + std::to_string(need) +
                            " bytes, over the memory cap of " + std::to_string(memory_cap_bytes) + " bytes");
  }
  packed_ = pack(a, layout, precision);
  upload();
}

DeviceMatrix::DeviceMatrix(Context& ctx, PackedMatrix packed, std::string entry_name, bool transposed_copy)
    : ctx_(&ctx), entry_(std::move(entry_name)), transposed_copy_(transposed_copy), packed_(std::move(packed)) {
  upload();
}

DeviceMatrix DeviceMatrix::transposed(Context& ctx, const HostMatrix& a, const Layout& layout, Precision precision,
                                      int64_t memory_cap_bytes) {
  const HostMatrix t = transpose_pattern(a);
  if (memory_cap_bytes > 0) {
    const int64_t need = packed_bytes(t, layout, precision);
    if (need > memory_cap_bytes)
      throw InvalidArgument("layout " + layout.name() + " of the transposed copy of '" + a.name + "' needs " +
                            std::to_string(need) + " bytes, over the memory cap of " +
                            std::to_string(memory_cap_bytes) + " bytes");
  }
  return DeviceMatrix(ctx, pack(t, layout, precision), a.entry.name, true);
}

DeviceMatrix DeviceMatrix::for_variant(Context& ctx, const HostMatrix& a, const Variant& v, int64_t memory_cap_bytes) {
  return for_variant(ctx, a, v, nullptr, memory_cap_bytes);
}

DeviceMatrix DeviceMatrix::for_variant(Context& ctx, const HostMatrix& a, const Variant& v,
                                       const std::vector<int32_t>* permutation, int64_t memory_cap_bytes) {
  if (v.ordering != Ordering::none) {
    if (a.rows != a.cols)
      throw InvalidArgument("variant " + v.name() + " renumbers the matrix, which needs a square one: '" + a.name +
                            "' is " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
    std::vector<int32_t> computed;
    if (!permutation) {
      computed = ordering_permutation(a, v.ordering);
      permutation = &computed;
    }
    check_permutation(*permutation, a.rows);
    DeviceMatrix m = for_variant(ctx, permute_symmetric(a, *permutation), v.kernel_variant(), nullptr, memory_cap_bytes);
    m.set_ordering(v.ordering, *permutation);
    return m;
  }
  if (v.uses_transposed_copy()) return transposed(ctx, a, v.layout, v.precision, memory_cap_bytes);
  return DeviceMatrix(ctx, a, v.layout, v.precision, memory_cap_bytes);
}

void DeviceMatrix::set_ordering(Ordering ordering, const std::vector<int32_t>& perm) {
  check_permutation(perm, packed_.rows);
  if (packed_.rows != packed_.cols) throw InvalidArgument("set_ordering: a renumbered matrix must be square");
  ordering_ = ordering;
  if (ordering == Ordering::none) {
    perm_host_.clear();
    perm_ = DeviceBuffer();
    inverse_ = DeviceBuffer();
    return;
  }
  perm_host_ = perm;
  perm_ = upload_array(perm, ctx_->stream(), "permutation");
  inverse_ = upload_array(jitsparse::inverse_permutation(perm), ctx_->stream(), "inverse permutation");
  cuda_check(cudaStreamSynchronize(ctx_->stream()), "upload the permutation");
}

int* DeviceMatrix::hola_workspace(int64_t blocks) const {
  const size_t need = static_cast<size_t>(std::max<int64_t>(blocks, 1)) * sizeof(int);
  if (hola_workspace_.bytes() < need) hola_workspace_ = DeviceBuffer(need, "hola block rows");
  return hola_workspace_.as<int>();
}

void DeviceMatrix::upload() {
  cudaStream_t s = ctx_->stream();
  row_ptr_ = upload_array(packed_.row_ptr, s, "row pointers");
  slice_ptr_ = upload_array(packed_.slice_ptr, s, "slice pointers");
  row_len_ = upload_array(packed_.row_len, s, "row lengths");
  row_perm_ = upload_array(packed_.row_perm, s, "row order");
  // Narrow layouts: the int16 offsets take the column array's place (Narrow<> in layouts.cuh reads them).
  col_idx_ = packed_.layout.narrow ? upload_array(packed_.col_delta, s, "column offsets")
                                   : upload_array(packed_.col_idx, s, "column indices");
  values_ = upload_array(packed_.values, s, "matrix values");
  // A batched COO1 leaf is read as a chunk of the layout's COO width (templates/jitsparse/hisparse.cuh,
  // coo_batch): up to 4 entries where it holds one, so the pool gets a zeroed tail for the last node.
  if (!packed_.pool.empty()) {
    const size_t tail = 4 * static_cast<size_t>(packed_.components) * 8;
    pool_ = DeviceBuffer(packed_.pool.size() + tail, "hisparse pool");
    cuda_check(cudaMemsetAsync(pool_.as<unsigned char>() + packed_.pool.size(), 0, tail, s), "clear the hisparse pool's tail");
    pool_.upload(packed_.pool.data(), packed_.pool.size(), s);
  } else {
    pool_ = DeviceBuffer();
  }
  for (int op = 0; op < 2; ++op) {
    hi_[op].strip_begin = upload_array(packed_.hi[op].strip_begin, s, "hisparse strips");
    hi_[op].strip_order = upload_array(packed_.hi[op].strip_order, s, "hisparse strip order");
    hi_[op].leaf_ptr = upload_array(packed_.hi[op].leaf_ptr, s, "hisparse leaves");
    hi_[op].leaf_block = upload_array(packed_.hi[op].leaf_block, s, "hisparse leaf blocks");
  }
  counters_ = DeviceBuffer(2 * sizeof(unsigned), "schedule counters");
  cuda_check(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(unsigned), s), "clear the schedule counters");
  cuda_check(cudaStreamSynchronize(s), "clear the schedule counters");
}

void DeviceMatrix::refresh_values(const HostMatrix& a) {
  if (a.entry.name != entry_) throw InvalidArgument("refresh_values: entry type differs");
  if (ordering_ != Ordering::none) {
    const HostMatrix b = permute_symmetric(a, perm_host_);
    repack_values(packed_, transposed_copy_ ? transpose_pattern(b) : b);
  } else {
    repack_values(packed_, transposed_copy_ ? transpose_pattern(a) : a);
  }
  if (packed_.layout.outer == OuterLayout::hisparse)
    pool_.upload(packed_.pool.data(), packed_.pool.size(), ctx_->stream());
  else
    values_.upload(packed_.values.data(), packed_.values.size(), ctx_->stream());
}

template <class T>
SpmvParams<T> DeviceMatrix::params() const {
  SpmvParams<T> p{};
  p.row_ptr = row_ptr_.as<const int>();
  p.slice_ptr = slice_ptr_.as<const int>();
  p.row_len = row_len_.as<const int>();
  p.row_perm = row_perm_.as<const int>();
  p.col_idx = col_idx_.as<const int>();
  p.values = values_.as<const T>();
  p.value_stride = packed_.value_stride;
  p.counters = counters_.as<unsigned>();
  p.rows = packed_.rows;
  p.cols = packed_.cols;
  p.nnz = packed_.nnz;
  p.ell_stride = packed_.rows_padded;
  p.ell_width = packed_.layout.outer == OuterLayout::ell && packed_.rows_padded > 0
                    ? static_cast<int>(packed_.stored_entries / packed_.rows_padded)
                    : 0;
  return p;
}

template <class T>
void DeviceMatrix::set_hisparse_params(SpmvParams<T>& p, Op op, int32_t big_strips) const {
  const int k = op == Op::n ? 0 : 1;
  const PackedMatrix::HiStrips& s = packed_.hi[k];
  p.hs_pool = pool_.as<const unsigned char>();
  p.hs_strip_begin = hi_[k].strip_begin.as<const int>();
  p.hs_strip_order = hi_[k].strip_order.as<const int>();
  p.hs_leaf_ptr = hi_[k].leaf_ptr.as<const unsigned long long>();
  p.hs_leaf_block = hi_[k].leaf_block.as<const int>();
  p.hs_strips = static_cast<int>(s.strip_order.size());
  p.hs_big_strips = big_strips;
  p.hs_x_len = op == Op::n ? packed_.cols : packed_.rows;
  p.hs_y_len = op == Op::n ? packed_.rows : packed_.cols;
}

template void DeviceMatrix::set_hisparse_params<float>(SpmvParams<float>&, Op, int32_t) const;
template void DeviceMatrix::set_hisparse_params<double>(SpmvParams<double>&, Op, int32_t) const;
template SpmvParams<float> DeviceMatrix::params<float>() const;
template SpmvParams<double> DeviceMatrix::params<double>() const;

}  // namespace jitsparse
