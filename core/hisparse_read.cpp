// HiSparse read side: one checked tree walk serves to_host() and the statistics.
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/hisparse.hpp"

namespace jitsparse {

std::string to_string(HiNodeType t) {
  switch (t) {
    case HiNodeType::empty: return "empty";
    case HiNodeType::dense_leaf: return "dense leaf";
    case HiNodeType::coo1: return "COO1 leaf";
    case HiNodeType::coo2: return "COO2 leaf";
    case HiNodeType::coo4: return "COO4 leaf";
    case HiNodeType::dense_inner: return "dense inner";
    case HiNodeType::sparse_inner: return "sparse inner";
    case HiNodeType::csr_leaf: return "CSR leaf";
  }
  return "invalid";
}

int64_t HiSparseStats::node_count(HiNodeType t) const {
  int64_t n = 0;
  for (const auto& level : nodes) n += level[static_cast<int>(t)];
  return n;
}

namespace {

// Callbacks of a walk: every node, every real entry (stored coordinates), every padding slot.
struct Visitor {
  std::function<void(int level, HiNodeType t)> node = [](int, HiNodeType) {};
  std::function<void(int64_t row, int64_t col, const uint8_t* entry)> entry = [](int64_t, int64_t, const uint8_t*) {};
  std::function<void()> padding = [] {};
  std::function<void(uint64_t ptr, int64_t row0, int64_t col0)> leaf = [](uint64_t, int64_t, int64_t) {};
  bool entries = true;  // false: leaves are reported, their entries not read (a fast walk)
};

class Walker {
 public:
  Walker(const HiSparseMatrix& m, const Visitor& v)
      : m_(m), v_(v), d_(m.d()), b_(m.options().log2_d()), entry_bytes_(m.entry_bytes()) {}

  void run() {
    if (m_.root() != 0) node(m_.root(), m_.levels() - 1, 0, 0);
  }

 private:
  // The node's bytes, after checking that the pointer fits the pool and the level.
  const uint8_t* checked(uint64_t ptr, int level, uint64_t bytes) const {
    const HiNodeType t = hi_type(ptr);
    const bool type_ok = level == 0 ? is_leaf(t) : is_inner(t);
    if (!type_ok || hi_offset(ptr) + bytes > m_.pool().size())
      throw InvalidArgument("hisparse: corrupt pointer " + std::to_string(ptr) + " at level " +
                            std::to_string(level));
    return m_.pool().data() + hi_offset(ptr);
  }

  uint32_t header_count(uint64_t ptr, int level, int field) const {
    uint32_t n;
    std::memcpy(&n, checked(ptr, level, 16) + 4 * field, 4);
    return n;
  }

  void node(uint64_t ptr, int level, int64_t row0, int64_t col0) {
    v_.node(level, hi_type(ptr));
    if (level == 0) {
      checked(ptr, 0, 16);
      v_.leaf(ptr, row0, col0);
      if (!v_.entries) return;
    }
    switch (hi_type(ptr)) {
      case HiNodeType::dense_leaf: return dense_leaf(ptr, row0, col0);
      case HiNodeType::dense_inner: return dense_inner(ptr, level, row0, col0);
      case HiNodeType::sparse_inner: return sparse_inner(ptr, level, row0, col0);
      case HiNodeType::csr_leaf: return csr_leaf(ptr, row0, col0);
      default: return coo_leaf(ptr, row0, col0);
    }
  }

  bool all_zero(const uint8_t* e) const {
    for (int i = 0; i < entry_bytes_; ++i)
      if (e[i] != 0) return false;
    return true;  // -0.0 also has a set bit, so it counts as an entry
  }

  void dense_leaf(uint64_t ptr, int64_t row0, int64_t col0) {
    const uint8_t* p = checked(ptr, 0, hi_dense_leaf_bytes(d_, entry_bytes_));
    for (int i = 0; i < d_ * d_; ++i) {
      const uint8_t* e = p + uint64_t(i) * entry_bytes_;
      if (all_zero(e))
        v_.padding();
      else
        v_.entry(row0 + i / d_, col0 + i % d_, e);
    }
  }

  void coo_leaf(uint64_t ptr, int64_t row0, int64_t col0) {
    const uint32_t count = header_count(ptr, 0, 0), padded = header_count(ptr, 0, 1);
    const int width = coo_width(hi_type(ptr));
    if (count == 0 || padded != hi_padded_count(count, width))
      throw InvalidArgument("hisparse: COO leaf with count " + std::to_string(count) + ", padded " +
                            std::to_string(padded));
    const uint8_t* p = checked(ptr, 0, hi_coo_leaf_bytes(count, width, entry_bytes_));
    const uint8_t* entries = p + 16 + round16(2 * uint64_t(padded));
    for (uint32_t i = 0; i < count; ++i) {
      if (i > 0) in_order(p[16 + 2 * (i - 1)], p[16 + 2 * (i - 1) + 1], p[16 + 2 * i], p[16 + 2 * i + 1], "COO");
      v_.entry(row0 + p[16 + 2 * i], col0 + p[16 + 2 * i + 1], entries + uint64_t(i) * entry_bytes_);
    }
    for (uint32_t i = count; i < padded; ++i) v_.padding();
  }

  void csr_leaf(uint64_t ptr, int64_t row0, int64_t col0) {
    const uint32_t count = header_count(ptr, 0, 0), slots = header_count(ptr, 0, 1), rows = header_count(ptr, 0, 2);
    if (count == 0 || slots != count || rows == 0 || rows > static_cast<uint32_t>(d_))
      throw InvalidArgument("hisparse: CSR leaf with count " + std::to_string(count) + ", slots " +
                            std::to_string(slots) + ", rows " + std::to_string(rows));
    const uint8_t* p = checked(ptr, 0, hi_csr_leaf_bytes(count, rows, entry_bytes_));
    const uint8_t* lengths = p + 16;
    const uint8_t* cols = lengths + rows;
    const uint8_t* entries = p + 16 + round16(uint64_t(rows) + count);
    uint64_t held = 0;  // the lengths' sum against the count first: a wrong length also disorders the columns
    for (uint32_t r = 0; r < rows; ++r) held += lengths[r];
    if (held > count) throw InvalidArgument("hisparse: CSR leaf rows hold more than its " + std::to_string(count) + " entries");
    if (held < count)
      throw InvalidArgument("hisparse: CSR leaf rows hold " + std::to_string(held) + " of its " + std::to_string(count) + " entries");
    uint32_t i = 0;
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t k = 0; k < lengths[r]; ++k, ++i) {
        if (k > 0) in_order(r, cols[i - 1], r, cols[i], "CSR");
        v_.entry(row0 + r, col0 + cols[i], entries + uint64_t(i) * entry_bytes_);
      }
  }

  // A leaf's entries are row-major with no cell twice (core/hisparse.hpp): kernels may find an entry by its
  // rank among the leaf's cells, so a pool read from elsewhere is held to it.
  static void in_order(uint32_t row0, uint32_t col0, uint32_t row1, uint32_t col1, const char* kind) {
    if (row1 < row0 || (row1 == row0 && col1 <= col0))
      throw InvalidArgument(std::string("hisparse: ") + kind + " leaf entries out of row-major order: (" +
                            std::to_string(row0) + ", " + std::to_string(col0) + ") before (" + std::to_string(row1) +
                            ", " + std::to_string(col1) + ")");
  }

  void child(uint64_t ptr, int level, int64_t row0, int64_t col0, int local_row, int local_col) {
    const int shift = b_ * level;  // children of a level-l node cover d^l = 2^(b*l)
    node(ptr, level - 1, row0 + (int64_t(local_row) << shift), col0 + (int64_t(local_col) << shift));
  }

  void dense_inner(uint64_t ptr, int level, int64_t row0, int64_t col0) {
    const uint8_t* p = checked(ptr, level, hi_dense_inner_bytes(d_));
    for (int i = 0; i < d_ * d_; ++i) {
      uint64_t c;
      std::memcpy(&c, p + 8 * uint64_t(i), 8);
      if (c != 0) child(c, level, row0, col0, i / d_, i % d_);
    }
  }

  void sparse_inner(uint64_t ptr, int level, int64_t row0, int64_t col0) {
    const uint32_t count = header_count(ptr, level, 0);
    const uint8_t* p = checked(ptr, level, hi_sparse_inner_bytes(count));
    const uint8_t* pointers = p + 16 + round16(2 * uint64_t(count));
    for (uint32_t i = 0; i < count; ++i) {
      uint64_t c;
      std::memcpy(&c, pointers + 8 * uint64_t(i), 8);
      child(c, level, row0, col0, p[16 + 2 * i], p[16 + 2 * i + 1]);
    }
  }

  const HiSparseMatrix& m_;
  const Visitor& v_;
  int d_, b_, entry_bytes_;
};

void read_entry(const uint8_t* e, int components, Precision p, double scale, double* out) {
  for (int c = 0; c < components; ++c) {
    if (p == Precision::f64) {
      std::memcpy(&out[c], e + 8 * c, 8);
    } else {
      float f;
      std::memcpy(&f, e + 4 * c, 4);
      out[c] = f;
    }
    out[c] *= scale;
  }
}

}  // namespace

HostMatrix HiSparseMatrix::to_host() const {
  TripletList triplets(entry_, rows(), cols());
  std::vector<double> value(entry_.num_components());
  Visitor v;
  v.entry = [&](int64_t row, int64_t col, const uint8_t* e) {
    if (row >= rows_ || col >= cols_) throw InvalidArgument("hisparse: entry outside the matrix");
    read_entry(e, entry_.num_components(), precision_, scale_, value.data());
    if (transposed_)
      triplets.add(col, row, value.data());
    else
      triplets.add(row, col, value.data());
  };
  Walker(*this, v).run();
  HostMatrix a = triplets.build(/*sum_duplicates=*/false);
  a.name = name_ + (transposed_ ? "^T" : "");
  return a;
}

std::vector<HiLeaf> hisparse_leaves(const HiSparseMatrix& m) {
  std::vector<HiLeaf> out;
  Visitor v;
  v.entries = false;
  const int d = m.d();
  v.leaf = [&](uint64_t ptr, int64_t row0, int64_t col0) {
    uint32_t slots = static_cast<uint32_t>(d * d);
    if (hi_type(ptr) != HiNodeType::dense_leaf) std::memcpy(&slots, m.pool().data() + hi_offset(ptr) + 4, 4);
    out.push_back({ptr, row0, col0, slots});
  };
  Walker(m, v).run();
  return out;
}

std::vector<int64_t> hisparse_level_nodes(const HiSparseMatrix& m) {
  std::vector<int64_t> out(m.levels(), 0);
  Visitor v;
  v.entries = false;
  v.node = [&](int level, HiNodeType) { ++out[level]; };
  Walker(m, v).run();
  return out;
}

HiSparseStats hisparse_statistics(const HiSparseMatrix& m) {
  HiSparseStats s;
  s.pool_bytes = m.pool().size();
  s.nodes.assign(m.levels(), {});
  Visitor v;
  v.node = [&](int level, HiNodeType t) { ++s.nodes[level][static_cast<int>(t)]; };
  v.entry = [&](int64_t, int64_t, const uint8_t*) { ++s.entries; };
  v.padding = [&] { ++s.padding_entries; };
  Walker(m, v).run();
  s.bytes_per_entry = s.entries == 0 ? 0 : static_cast<double>(s.pool_bytes) / s.entries;
  return s;
}

HiSparseMatrix HiSparseMatrix::from_pool(const EntryType& entry, Precision precision, int32_t rows, int32_t cols,
                                         const HiSparseOptions& options, std::vector<uint8_t> pool, uint64_t root,
                                         std::string name) {
  options.validate();
  if (rows < 0 || cols < 0) throw InvalidArgument("hisparse: negative size");
  if (root != 0 && (hi_offset(root) >= pool.size() || hi_type(root) == HiNodeType::empty))
    throw InvalidArgument("hisparse: root pointer " + std::to_string(root) + " outside a pool of " +
                          std::to_string(pool.size()) + " bytes");
  HiSparseMatrix m;
  m.entry_ = entry;
  m.name_ = std::move(name);
  m.precision_ = precision;
  m.rows_ = rows;
  m.cols_ = cols;
  m.options_ = options;
  m.levels_ = hi_levels(rows, cols, options.d);
  m.pool_ = std::move(pool);
  m.root_ = root;
  int64_t entries = 0;
  Visitor v;
  v.entry = [&](int64_t row, int64_t col, const uint8_t*) {
    if (row >= rows || col >= cols)
      throw InvalidArgument("hisparse: an entry at (" + std::to_string(row) + ", " + std::to_string(col) +
                            ") lies outside the " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    ++entries;
  };
  Walker(m, v).run();
  m.nnz_ = entries;
  return m;
}

}  // namespace jitsparse
