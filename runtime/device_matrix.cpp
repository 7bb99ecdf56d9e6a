#include "runtime/device_matrix.hpp"

#include "core/error.hpp"
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

DeviceMatrix::DeviceMatrix(Context& ctx, PackedMatrix packed, std::string entry_name)
    : ctx_(&ctx), entry_(std::move(entry_name)), packed_(std::move(packed)) {
  upload();
}

void DeviceMatrix::upload() {
  cudaStream_t s = ctx_->stream();
  row_ptr_ = upload_array(packed_.row_ptr, s, "row pointers");
  slice_ptr_ = upload_array(packed_.slice_ptr, s, "slice pointers");
  row_len_ = upload_array(packed_.row_len, s, "row lengths");
  col_idx_ = upload_array(packed_.col_idx, s, "column indices");
  values_ = upload_array(packed_.values, s, "matrix values");
  counters_ = DeviceBuffer(2 * sizeof(unsigned), "schedule counters");
  cuda_check(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(unsigned), s), "clear the schedule counters");
  cuda_check(cudaStreamSynchronize(s), "clear the schedule counters");
}

void DeviceMatrix::refresh_values(const HostMatrix& a) {
  if (a.entry.name != entry_) throw InvalidArgument("refresh_values: entry type differs");
  repack_values(packed_, a);
  values_.upload(packed_.values.data(), packed_.values.size(), ctx_->stream());
}

template <class T>
SpmvParams<T> DeviceMatrix::params() const {
  SpmvParams<T> p{};
  p.row_ptr = row_ptr_.as<const int>();
  p.slice_ptr = slice_ptr_.as<const int>();
  p.row_len = row_len_.as<const int>();
  p.col_idx = col_idx_.as<const int>();
  p.values = values_.as<const T>();
  p.value_stride = packed_.value_stride;
  p.counters = counters_.as<unsigned>();
  p.rows = packed_.rows;
  p.ell_stride = packed_.rows_padded;
  return p;
}

template SpmvParams<float> DeviceMatrix::params<float>() const;
template SpmvParams<double> DeviceMatrix::params<double>() const;

}  // namespace jitsparse
