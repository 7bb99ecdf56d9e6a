#include "runtime/device_hisparse.hpp"

#include <algorithm>
#include <numeric>

namespace jitsparse {

DeviceHiSparse::DeviceHiSparse(const HiSparseMatrix& m, cudaStream_t stream)
    : entry_(m.entry()),
      name_(m.name()),
      precision_(m.precision()),
      rows_(m.stored_rows()),
      cols_(m.stored_cols()),
      options_(m.options()),
      node_bytes_(m.pool().size()),
      span_bytes_(m.pool().size()),
      root_(m.root()),
      transposed_(m.transposed()),
      scale_(m.scale()) {
  level_nodes_ = hisparse_level_nodes(m);  // sizes an addition's work lists
  pool_ = DeviceBuffer(std::max<size_t>(m.pool().size(), 16), "hisparse pool");
  if (!m.pool().empty()) pool_.upload(m.pool().data(), m.pool().size(), stream);
}

int64_t DeviceHiSparse::nodes() const { return std::accumulate(level_nodes_.begin(), level_nodes_.end(), int64_t{0}); }

HiSparseMatrix DeviceHiSparse::download(cudaStream_t stream) const {
  std::vector<uint8_t> pool(span_bytes_);
  if (span_bytes_ > 0) pool_.download(pool.data(), span_bytes_, stream);
  HiSparseMatrix m = HiSparseMatrix::from_pool(entry_, precision_, rows_, cols_, options_, std::move(pool), root_, name_);
  if (transposed_) m.transpose();
  m.set_scale(scale_);
  return m;
}

}  // namespace jitsparse
