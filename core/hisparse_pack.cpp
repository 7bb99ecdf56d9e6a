// HiSparse as a device layout: the pool and the strip work lists of core/layout.hpp, and a CPU product
// that reads them the way the kernel does.
#include "core/hisparse_pack.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <limits>

#include "core/error.hpp"

namespace jitsparse {
namespace {

// Strips along one axis: `by_row` groups leaves by leaf row (A x), else by leaf column (A^T x).
PackedMatrix::HiStrips make_strips(const std::vector<HiLeaf>& leaves, int64_t extent, int d, bool by_row) {
  PackedMatrix::HiStrips s;
  const int64_t strips = (extent + d - 1) / d;
  if (leaves.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw InvalidArgument("hisparse: more than 2^31 leaves; take a larger d");
  // Counting sort by strip; stable, and leaves of one strip come in tree order, which is by the other
  // block index (hisparse_leaves), so no second sort is needed.
  std::vector<int64_t> work(strips, 0);
  s.strip_begin.assign(strips + 1, 0);
  for (const HiLeaf& l : leaves) {
    const int64_t strip = (by_row ? l.row0 : l.col0) / d;
    ++s.strip_begin[strip + 1];
    work[strip] += l.slots;
  }
  for (int64_t i = 0; i < strips; ++i) s.strip_begin[i + 1] += s.strip_begin[i];
  std::vector<int32_t> fill(s.strip_begin.begin(), s.strip_begin.end() - (strips > 0 ? 1 : 0));
  s.leaf_ptr.resize(leaves.size());
  s.leaf_block.resize(leaves.size());
  for (const HiLeaf& l : leaves) {
    const int64_t strip = (by_row ? l.row0 : l.col0) / d;
    const int32_t at = fill[strip]++;
    s.leaf_ptr[at] = l.ptr;
    s.leaf_block[at] = static_cast<int32_t>((by_row ? l.col0 : l.row0) / d);
  }
  // Heavier classes first (class = bit length of the work), natural order inside a class.
  auto work_class = [&](int64_t strip) { return work[strip] == 0 ? 0 : 64 - __builtin_clzll(work[strip]); };
  s.strip_order.resize(strips);
  for (int64_t i = 0; i < strips; ++i) s.strip_order[i] = static_cast<int32_t>(i);
  std::stable_sort(s.strip_order.begin(), s.strip_order.end(),
                   [&](int32_t x, int32_t y) { return work_class(x) > work_class(y); });
  s.at_least.assign(32, 0);
  for (int64_t i = 0; i < strips; ++i)
    for (int k = 0; k < 32 && work[i] >= (int64_t{1} << k); ++k) ++s.at_least[k];
  return s;
}

template <class T>
void read_entry(const uint8_t* e, int components, double* out) {
  for (int c = 0; c < components; ++c) {
    T v;
    std::memcpy(&v, e + c * sizeof(T), sizeof(T));
    out[c] = static_cast<double>(v);
  }
}

template <class T>
void spmv_impl(const PackedMatrix& m, const EntryType& entry, Op op, const std::vector<unsigned char>& xb,
               std::vector<unsigned char>& yb, double alpha, double beta) {
  const PackedMatrix::HiStrips& s = hisparse_strips(m, op);
  const bool trans = op != Op::n;
  const int d = m.layout.slice, C = m.components, V = m.vector_components;
  const int entry_bytes = C * static_cast<int>(sizeof(T));
  const int64_t x_len = trans ? m.rows : m.cols, y_len = trans ? m.cols : m.rows;
  const bool vsoa = m.layout.vector == VectorLayout::soa;
  const int64_t xs = vector_stride(x_len), ys = vector_stride(y_len);
  const T* x = reinterpret_cast<const T*>(xb.data());
  T* y = reinterpret_cast<T*>(yb.data());
  std::vector<double> acc(static_cast<size_t>(d) * V), a(C), xv(V);
  // One stored position: local (lr, lc) of a leaf whose other-axis block is `block`.
  auto mac = [&](const uint8_t* e, int lr, int lc, int64_t block) {
    const int seen_row = trans ? lc : lr;
    const int64_t j = block * d + (trans ? lr : lc);
    if (j >= x_len) return;  // cells of a dense leaf beyond the matrix (zeros)
    read_entry<T>(e, C, a.data());
    for (int i = 0; i < V; ++i) xv[i] = static_cast<double>(vsoa ? x[i * xs + j] : x[j * V + i]);
    double* out = acc.data() + static_cast<size_t>(seen_row) * V;
    if (op == Op::h)
      entry.adjoint_multiply_add(a.data(), xv.data(), out);
    else
      entry.multiply_add(a.data(), xv.data(), out);
  };
  for (size_t k = 0; k < s.strip_order.size(); ++k) {
    const int32_t strip = s.strip_order[k];
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int32_t l = s.strip_begin[strip]; l < s.strip_begin[strip + 1]; ++l) {
      const uint64_t ptr = s.leaf_ptr[l];
      const uint8_t* node = m.pool.data() + hi_offset(ptr);
      if (hi_type(ptr) == HiNodeType::dense_leaf) {
        for (int cell = 0; cell < d * d; ++cell) mac(node + static_cast<size_t>(cell) * entry_bytes, cell / d, cell % d, s.leaf_block[l]);
        continue;
      }
      uint32_t count, padded;
      std::memcpy(&count, node, 4);
      std::memcpy(&padded, node + 4, 4);
      if (hi_type(ptr) == HiNodeType::csr_leaf) {
        uint32_t rows;
        std::memcpy(&rows, node + 8, 4);
        const uint8_t* cols = node + 16 + rows;
        const uint8_t* entries = node + 16 + round16(uint64_t(rows) + count);
        for (uint32_t r = 0, i = 0; r < rows; ++r)
          for (uint32_t k = 0; k < node[16 + r]; ++k, ++i)
            mac(entries + static_cast<size_t>(i) * entry_bytes, static_cast<int>(r), cols[i], s.leaf_block[l]);
        continue;
      }
      const uint8_t* entries = node + 16 + round16(2 * uint64_t(padded));
      for (uint32_t i = 0; i < count; ++i)
        mac(entries + static_cast<size_t>(i) * entry_bytes, node[16 + 2 * i], node[17 + 2 * i], s.leaf_block[l]);
    }
    for (int r = 0; r < d && int64_t(strip) * d + r < y_len; ++r) {
      const int64_t row = int64_t(strip) * d + r;
      for (int i = 0; i < V; ++i) {
        T& out = vsoa ? y[i * ys + row] : y[row * V + i];
        const double sum = acc[static_cast<size_t>(r) * V + i];
        out = static_cast<T>(beta == 0.0 ? alpha * sum : alpha * sum + beta * static_cast<double>(out));
      }
    }
  }
}

}  // namespace

int64_t PackedMatrix::HiStrips::bytes() const {
  return static_cast<int64_t>(strip_begin.size() + strip_order.size() + leaf_block.size()) * 4 +
         static_cast<int64_t>(leaf_ptr.size()) * 8;
}

HiSparseOptions hisparse_options(const Layout& l) {
  HiSparseOptions o;
  o.d = l.slice;
  o.coo_width = l.coo;
  o.dense_leaves = true;
  o.csr_leaves = l.row_leaves;
  return o;
}

PackedMatrix pack_hisparse(const HostMatrix& a, const Layout& l, Precision p) {
  if (l.outer != OuterLayout::hisparse) throw InvalidArgument("pack_hisparse: layout " + l.name() + " is not hisparse");
  if (l.inner != InnerLayout::aos)
    throw InvalidArgument("layout " + l.name() + ": hisparse leaves store entries aos (components side by side)");
  HiSparseMatrix h = HiSparseMatrix::build(a, p, hisparse_options(l));
  const std::vector<HiLeaf> leaves = hisparse_leaves(h);
  PackedMatrix m;
  m.layout = l;
  m.precision = p;
  m.components = a.components();
  m.vector_components = a.vector_components();
  m.rows = a.rows;
  m.cols = a.cols;
  m.rows_padded = a.rows;
  m.nnz = a.nnz();
  for (const HiLeaf& leaf : leaves) m.stored_entries += leaf.slots;
  m.value_stride = m.stored_entries;
  m.pool = std::move(h).release_pool();
  // The kernels address a batched leaf by its offset in 16-byte units in 32 bits (HiBatchLeaf).
  if (m.pool.size() >= (uint64_t{1} << 36))
    throw InvalidArgument("hisparse: the pool of '" + a.name + "' has " + std::to_string(m.pool.size()) +
                          " bytes; the kernels address at most 64 GiB");
  m.hi[0] = make_strips(leaves, a.rows, l.slice, true);
  m.hi[1] = make_strips(leaves, a.cols, l.slice, false);
  return m;
}

int64_t hisparse_bytes_estimate(const HostMatrix& a, const Layout& l, Precision p) {
  const int64_t per_entry = a.components() * scalar_bytes(p) + 2;
  const int64_t strips = (int64_t(a.rows) + a.cols) / std::max(l.slice, 1) + 2;
  return a.nnz() * per_entry * 5 / 4 + strips * 8 + 64;
}

void repack_hisparse_values(PackedMatrix& m, const HostMatrix& a) {
  if (a.rows != m.rows || a.cols != m.cols || a.nnz() != m.nnz || a.components() != m.components)
    throw InvalidArgument("repack_values: matrix '" + a.name + "' does not match the packed hisparse matrix (size, "
                          "entries or entry type differ)");
  PackedMatrix fresh = pack_hisparse(a, m.layout, m.precision);
  // Same leaves at the same offsets: the device buffers keep their sizes and the lists stay valid. A
  // dense leaf holds its pattern in its values, so the new pool is the new matrix either way.
  if (fresh.pool.size() != m.pool.size() || fresh.hi[0].leaf_ptr != m.hi[0].leaf_ptr ||
      fresh.hi[0].strip_begin != m.hi[0].strip_begin)
    throw InvalidArgument("repack_values: the pattern of '" + a.name + "' changed the hisparse tree; pack it again");
  m.pool.swap(fresh.pool);
}

int32_t hisparse_big_strips(const PackedMatrix::HiStrips& s, int64_t big_entries) {
  if (big_entries <= 0 || s.at_least.empty()) return 0;
  int k = 0;
  while (k < 31 && (int64_t{1} << k) < big_entries) ++k;
  return s.at_least[k];
}

void spmv_hisparse_packed_cpu(const PackedMatrix& m, const EntryType& entry, Op op,
                              const std::vector<unsigned char>& x, std::vector<unsigned char>& y, double alpha,
                              double beta) {
  if (m.layout.outer != OuterLayout::hisparse) throw InvalidArgument("spmv_hisparse_packed_cpu: not a hisparse matrix");
  if (entry.num_components() != m.components || entry.num_vector_components() != m.vector_components)
    throw InvalidArgument("spmv_hisparse_packed_cpu: entry type " + entry.name + " does not match the packed matrix");
  const bool trans = op != Op::n;
  const int64_t xb = packed_vector_bytes(trans ? m.rows : m.cols, m.vector_components, m.layout.vector, m.precision);
  const int64_t yb = packed_vector_bytes(trans ? m.cols : m.rows, m.vector_components, m.layout.vector, m.precision);
  if (static_cast<int64_t>(x.size()) != xb || static_cast<int64_t>(y.size()) != yb)
    throw InvalidArgument("spmv_hisparse_packed_cpu: x has " + std::to_string(x.size()) + " bytes (expected " +
                          std::to_string(xb) + "), y has " + std::to_string(y.size()) + " (expected " +
                          std::to_string(yb) + ")");
  if (m.precision == Precision::f32)
    spmv_impl<float>(m, entry, op, x, y, alpha, beta);
  else
    spmv_impl<double>(m, entry, op, x, y, alpha, beta);
}

}  // namespace jitsparse
