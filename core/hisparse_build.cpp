// HiSparse construction: the entries in tree order (hisparse_order.hpp), pass 1 counts bytes, pass 2 writes
// the pool bottom-up.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/hisparse.hpp"
#include "core/hisparse_order.hpp"

namespace jitsparse {

void HiSparseOptions::validate() const {
  if (d < 16 || d > 256 || (d & (d - 1)) != 0)
    throw InvalidArgument("hisparse: d must be 16, 32, 64, 128 or 256, got " + std::to_string(d));
  if (coo_width != 1 && coo_width != 2 && coo_width != 4)
    throw InvalidArgument("hisparse: COO width must be 1, 2 or 4, got " + std::to_string(coo_width));
}

int HiSparseOptions::log2_d() const {
  int b = 0;
  while ((1 << b) < d) ++b;
  return b;
}

uint64_t hi_padded_count(uint64_t count, int width) { return (count + width - 1) / width * width; }
uint64_t hi_dense_leaf_bytes(int d, int entry_bytes) { return round16(uint64_t(d) * d * entry_bytes); }
uint64_t hi_dense_inner_bytes(int d) { return uint64_t(d) * d * 8; }

uint64_t hi_coo_leaf_bytes(uint64_t count, int width, int entry_bytes) {
  const uint64_t padded = hi_padded_count(count, width);
  return 16 + round16(2 * padded) + round16(padded * entry_bytes);
}

uint64_t hi_csr_leaf_bytes(uint64_t count, uint64_t rows, int entry_bytes) {
  return 16 + round16(rows + count) + round16(count * entry_bytes);
}

uint64_t hi_sparse_inner_bytes(uint64_t children) { return 16 + round16(2 * children) + round16(8 * children); }

int hi_levels(int64_t rows, int64_t cols, int d) {
  const uint64_t need = static_cast<uint64_t>(std::max<int64_t>({rows, cols, 1}));
  int levels = 1;
  for (uint64_t span = d; span < need; span *= d) ++levels;
  return levels;
}

namespace {

// Builds the pool from the entries in tree order (hisparse_order.hpp: KeyedEntries or CoordEntries).
template <class Entries>
class Builder {
 public:
  Builder(const HostMatrix& a, Precision p, const HiSparseOptions& o, int levels, Entries entries)
      : a_(a), precision_(p), d_(o.d), width_(o.coo_width), dense_leaves_(o.dense_leaves), csr_leaves_(o.csr_leaves),
        levels_(levels),
        entry_bytes_(a.components() * scalar_bytes(p)), entries_(std::move(entries)) {}

  uint64_t plan() const { return entries_.size() == 0 ? 0 : plan_node(levels_ - 1, 0, entries_.size()); }

  uint64_t emit(std::vector<uint8_t>& pool) {
    pool_ = &pool;
    cursor_ = 0;
    const uint64_t root = entries_.size() == 0 ? 0 : emit_node(levels_ - 1, 0, entries_.size());
    if (cursor_ != pool.size()) throw Error("hisparse: pass 2 wrote fewer bytes than planned (a bug)");
    return root;
  }

 private:
  struct Child {
    uint8_t row, col;
    size_t lo, hi;
  };

  // The contiguous sub-ranges of [lo, hi) per child (local position = digit at `level`), row-major.
  std::vector<Child> children(int level, size_t lo, size_t hi) const {
    std::vector<Child> out;
    for (size_t k = lo; k < hi; ++k) {
      const uint8_t r = static_cast<uint8_t>(entries_.row_digit(k, level));
      const uint8_t c = static_cast<uint8_t>(entries_.col_digit(k, level));
      if (out.empty() || out.back().row != r || out.back().col != c) out.push_back({r, c, k, k});
      out.back().hi = k + 1;
    }
    return out;
  }

  // R of a CSR leaf over [lo, hi) (entries row-major), or 0 where a row is too long for its length byte.
  uint64_t csr_rows(size_t lo, size_t hi) const {
    int longest = 0;
    for (size_t k = lo, run = 0; k < hi; ++k) {
      run = k > lo && entries_.row_digit(k, 0) == entries_.row_digit(k - 1, 0) ? run + 1 : 1;
      longest = std::max(longest, static_cast<int>(run));
    }
    return longest > kHiCsrMaxRowLength ? 0 : uint64_t(entries_.row_digit(hi - 1, 0)) + 1;
  }

  struct LeafChoice {
    HiNodeType type;
    uint64_t bytes, csr_rows;
  };
  LeafChoice leaf_choice(size_t lo, size_t hi) const {
    const size_t n = hi - lo;
    const HiNodeType coo = n == 1 || width_ == 1 ? HiNodeType::coo1 : width_ == 2 ? HiNodeType::coo2 : HiNodeType::coo4;
    LeafChoice best{coo, hi_coo_leaf_bytes(n, coo_width(coo), entry_bytes_), 0};
    if (csr_leaves_)
      if (const uint64_t rows = csr_rows(lo, hi); rows > 0 && hi_csr_leaf_bytes(n, rows, entry_bytes_) < best.bytes)
        best = {HiNodeType::csr_leaf, hi_csr_leaf_bytes(n, rows, entry_bytes_), rows};
    if (dense_leaves_ && hi_dense_leaf_bytes(d_, entry_bytes_) < best.bytes)
      best = {HiNodeType::dense_leaf, hi_dense_leaf_bytes(d_, entry_bytes_), 0};
    return best;
  }

  HiNodeType inner_type(size_t children) const {
    return hi_dense_inner_bytes(d_) < hi_sparse_inner_bytes(children) ? HiNodeType::dense_inner
                                                                      : HiNodeType::sparse_inner;
  }

  uint64_t inner_bytes(size_t children) const {
    return inner_type(children) == HiNodeType::dense_inner ? hi_dense_inner_bytes(d_)
                                                           : hi_sparse_inner_bytes(children);
  }

  // Pass 1: bytes of the subtree over [lo, hi).
  uint64_t plan_node(int level, size_t lo, size_t hi) const {
    if (level == 0) return leaf_choice(lo, hi).bytes;
    const std::vector<Child> kids = children(level, lo, hi);
    uint64_t bytes = inner_bytes(kids.size());
    for (const Child& c : kids) bytes += plan_node(level - 1, c.lo, c.hi);
    return bytes;
  }

  // Pass 2: writes the subtree, children first, and returns its pointer.
  uint64_t emit_node(int level, size_t lo, size_t hi) {
    return level == 0 ? emit_leaf(lo, hi) : emit_inner(level, lo, hi);
  }

  uint64_t allocate(uint64_t bytes) {
    const uint64_t at = cursor_;
    cursor_ += bytes;
    if (cursor_ > pool_->size()) throw Error("hisparse: pass 2 wrote past the planned pool (a bug)");
    return at;
  }

  void write_entry(uint8_t* dst, int64_t src) const {
    const double* v = a_.entry_values(src);
    for (int c = 0; c < a_.components(); ++c) {
      if (precision_ == Precision::f64) {
        std::memcpy(dst + 8 * c, &v[c], 8);
      } else {
        const float f = static_cast<float>(v[c]);
        std::memcpy(dst + 4 * c, &f, 4);
      }
    }
  }

  uint64_t emit_leaf(size_t lo, size_t hi) {
    const LeafChoice choice = leaf_choice(lo, hi);
    const HiNodeType t = choice.type;
    if (t == HiNodeType::csr_leaf) return hi_pointer(emit_csr(lo, hi, choice.csr_rows), t);
    if (t == HiNodeType::dense_leaf) {
      const uint64_t at = allocate(hi_dense_leaf_bytes(d_, entry_bytes_));
      for (size_t k = lo; k < hi; ++k) {
        const uint64_t cell = uint64_t(entries_.row_digit(k, 0)) * d_ + entries_.col_digit(k, 0);
        write_entry(pool_->data() + at + cell * entry_bytes_, entries_.source(k));
      }
      return hi_pointer(at, t);
    }
    return hi_pointer(emit_coo(lo, hi, coo_width(t)), t);
  }

  uint64_t emit_coo(size_t lo, size_t hi, int width) {
    const uint32_t count = static_cast<uint32_t>(hi - lo);
    const uint32_t padded = static_cast<uint32_t>(hi_padded_count(count, width));
    const uint64_t at = allocate(hi_coo_leaf_bytes(count, width, entry_bytes_));
    uint8_t* node = pool_->data() + at;
    std::memcpy(node, &count, 4);
    std::memcpy(node + 4, &padded, 4);
    uint8_t* coords = node + 16;
    uint8_t* entries = coords + round16(2 * uint64_t(padded));
    for (uint32_t i = 0; i < padded; ++i) {
      const size_t k = lo + std::min(i, count - 1);  // padding repeats the last position
      coords[2 * i] = static_cast<uint8_t>(entries_.row_digit(k, 0));
      coords[2 * i + 1] = static_cast<uint8_t>(entries_.col_digit(k, 0));
      if (i < count) write_entry(entries + uint64_t(i) * entry_bytes_, entries_.source(k));
    }
    return at;
  }

  uint64_t emit_csr(size_t lo, size_t hi, uint64_t rows) {
    const uint32_t count = static_cast<uint32_t>(hi - lo), r = static_cast<uint32_t>(rows);
    const uint64_t at = allocate(hi_csr_leaf_bytes(count, rows, entry_bytes_));
    uint8_t* node = pool_->data() + at;
    std::memcpy(node, &count, 4);
    std::memcpy(node + 4, &count, 4);
    std::memcpy(node + 8, &r, 4);
    uint8_t* lengths = node + 16;
    uint8_t* cols = lengths + rows;
    uint8_t* entries = node + 16 + round16(rows + count);
    for (uint32_t i = 0; i < count; ++i) {
      const size_t k = lo + i;
      ++lengths[entries_.row_digit(k, 0)];  // the pool is zeroed; csr_rows checked that each fits a byte
      cols[i] = static_cast<uint8_t>(entries_.col_digit(k, 0));
      write_entry(entries + uint64_t(i) * entry_bytes_, entries_.source(k));
    }
    return at;
  }

  uint64_t emit_inner(int level, size_t lo, size_t hi) {
    const std::vector<Child> kids = children(level, lo, hi);
    std::vector<uint64_t> ptrs;
    ptrs.reserve(kids.size());
    for (const Child& c : kids) ptrs.push_back(emit_node(level - 1, c.lo, c.hi));
    const HiNodeType t = inner_type(kids.size());
    const uint64_t at = allocate(inner_bytes(kids.size()));
    uint8_t* node = pool_->data() + at;
    if (t == HiNodeType::dense_inner) {
      for (size_t i = 0; i < kids.size(); ++i)
        std::memcpy(node + 8 * (uint64_t(kids[i].row) * d_ + kids[i].col), &ptrs[i], 8);
    } else {
      const uint32_t count = static_cast<uint32_t>(kids.size());
      std::memcpy(node, &count, 4);
      uint8_t* pointers = node + 16 + round16(2 * uint64_t(count));
      for (uint32_t i = 0; i < count; ++i) {
        node[16 + 2 * i] = kids[i].row;
        node[16 + 2 * i + 1] = kids[i].col;
        std::memcpy(pointers + 8 * uint64_t(i), &ptrs[i], 8);
      }
    }
    return hi_pointer(at, t);
  }

  const HostMatrix& a_;
  Precision precision_;
  int d_, width_;
  bool dense_leaves_, csr_leaves_;
  int levels_;
  int entry_bytes_;
  Entries entries_;
  std::vector<uint8_t>* pool_ = nullptr;
  uint64_t cursor_ = 0;
};

}  // namespace

HiSparseMatrix HiSparseMatrix::build(const HostMatrix& a, Precision precision, const HiSparseOptions& options) {
  options.validate();
  HiSparseMatrix m;
  m.entry_ = a.entry;
  m.name_ = a.name;
  m.precision_ = precision;
  m.rows_ = a.rows;
  m.cols_ = a.cols;
  m.nnz_ = a.nnz();
  m.options_ = options;
  m.levels_ = hi_levels(a.rows, a.cols, options.d);
  auto build_pool = [&](auto entries) {
    Builder<decltype(entries)> builder(a, precision, options, m.levels_, std::move(entries));
    m.pool_.assign(builder.plan(), 0);
    m.root_ = builder.emit(m.pool_);
  };
  const int b = options.log2_d();
  if (KeyedEntries::fits(b, m.levels_))
    build_pool(KeyedEntries(a, b, m.levels_));
  else
    build_pool(CoordEntries(a, b));
  return m;
}

}  // namespace jitsparse
