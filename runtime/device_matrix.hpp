#pragma once
#include <cstdint>

#include "core/host_matrix.hpp"
#include "core/layout.hpp"
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
  DeviceMatrix(Context& ctx, PackedMatrix packed, std::string entry_name);

  // Replace the values, keeping the pattern (throws InvalidArgument if the pattern differs).
  void refresh_values(const HostMatrix& a);

  int64_t bytes() const { return packed_.bytes(); }  // device footprint of the matrix arrays
  const PackedMatrix& packed() const { return packed_; }
  const Layout& layout() const { return packed_.layout; }
  Precision precision() const { return packed_.precision; }
  const std::string& entry() const { return entry_; }
  int32_t rows() const { return packed_.rows; }
  int32_t cols() const { return packed_.cols; }

  // The matrix half of the kernel arguments (x, y, alpha, beta are filled by the caller).
  template <class T>
  SpmvParams<T> params() const;

 private:
  void upload();

  Context* ctx_;
  std::string entry_;
  PackedMatrix packed_;  // host image: kept for refresh_values
  DeviceBuffer row_ptr_, slice_ptr_, row_len_, col_idx_, values_, counters_;
};

}  // namespace jitsparse
