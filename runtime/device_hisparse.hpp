#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "core/hisparse.hpp"
#include "runtime/device_buffer.hpp"

namespace jitsparse {

// A HiSparse tree in GPU memory: its pool and the matrix state (transpose flag, scale) that is applied
// when it is read, as in HiSparseMatrix. What HiSparse A + B takes and gives (runtime/hisparse_add.hpp).
// (For products, DeviceMatrix packs a tree with its work lists: core/hisparse_pack.hpp.)
class DeviceHiSparse {
 public:
  DeviceHiSparse() = default;
  // Uploads the pool (synchronous w.r.t. host memory); node counts per level come from a walk that
  // skips the entries.
  DeviceHiSparse(const HiSparseMatrix& m, cudaStream_t stream);

  // Downloads and checks the tree (every pointer walked); the state comes with it.
  HiSparseMatrix download(cudaStream_t stream) const;

  const EntryType& entry() const { return entry_; }
  Precision precision() const { return precision_; }
  const HiSparseOptions& options() const { return options_; }
  int entry_bytes() const { return entry_.num_components() * scalar_bytes(precision_); }
  int32_t rows() const { return transposed_ ? cols_ : rows_; }  // as seen
  int32_t cols() const { return transposed_ ? rows_ : cols_; }
  int32_t stored_rows() const { return rows_; }
  int32_t stored_cols() const { return cols_; }
  int levels() const { return static_cast<int>(level_nodes_.size()); }
  // Nodes at each level (level 0: leaves), for sizing an addition's work lists.
  const std::vector<int64_t>& level_nodes() const { return level_nodes_; }
  int64_t nodes() const;
  uint64_t root() const { return root_; }
  uint64_t pool_bytes() const { return node_bytes_; }    // bytes of nodes
  // The pool's span: the node bytes, plus for a sum the unused tails of its blocks' chunks.
  uint64_t span_bytes() const { return span_bytes_; }
  uint64_t device_bytes() const { return pool_.bytes(); } // the allocation (an addition's bound)
  const unsigned char* pool() const { return pool_.as<const unsigned char>(); }
  const std::string& name() const { return name_; }

  bool transposed() const { return transposed_; }
  double scale() const { return scale_; }
  void transpose() { transposed_ = !transposed_; }
  void set_scale(double s) { scale_ = s; }

 private:
  friend class HiSparseAdd;
  EntryType entry_;
  std::string name_;
  Precision precision_ = Precision::f64;
  int32_t rows_ = 0, cols_ = 0;
  HiSparseOptions options_;
  std::vector<int64_t> level_nodes_;
  DeviceBuffer pool_;
  uint64_t node_bytes_ = 0, span_bytes_ = 0;
  uint64_t root_ = 0;
  bool transposed_ = false;
  double scale_ = 1;
};

}  // namespace jitsparse
