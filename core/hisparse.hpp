#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/entry_type.hpp"
#include "core/host_matrix.hpp"
#include "core/precision.hpp"

namespace jitsparse {

// HiSparse (issue 9): a hierarchical sparse format, host side (build, read back, statistics).
//
// Tree. Nodes are d x d grids, d a power of two in 16..256 (b = log2 d), so a local coordinate fits a uint8.
// levels L = the smallest L >= 1 with d^L >= max(rows, cols, 1). Level 0 = leaves (a leaf covers d x d
// matrix positions); an inner node at level l covers d^(l+1) x d^(l+1) positions with a d x d grid of
// children at level l - 1 (the child at local (i, j) starts at row0 + i * d^l, col0 + j * d^l). The root is
// at level L - 1 (a leaf when L == 1).
//
// Pool. One byte pool; every node starts at a multiple of 16. A child pointer is a uint64: the byte offset
// of the child (a multiple of 16) with the child's HiNodeType in the low 4 bits; 0 means empty (no type is
// 0, so a node at offset 0 still has a non-zero pointer). An entry is components() scalars of the precision
// (float or double), entry_bytes() bytes.
//   dense leaf:   d*d entries, row-major; zero where there is no entry.
//   COOx leaf:    16-byte header {uint32 count, uint32 padded = count rounded up to x, 8 reserved bytes};
//                 padded pairs of uint8 (local row, local col), padded to 16 bytes; padded entries, padded
//                 to 16. Entries in row-major order; padding entries are zero with the coordinates of the
//                 last real entry (a kernel reading x-wide groups adds zeros to a valid position).
//   CSR leaf:     16-byte header {uint32 count, uint32 count again (a leaf's slots, as a COO leaf's padded
//                 count), uint32 rows R = the last local row holding an entry + 1, 4 reserved}; R uint8 row
//                 lengths, then count uint8 local columns, row-major, the two padded to 16 together; count
//                 entries, padded to 16. One byte an entry where COO spends two: chosen where it is
//                 smaller (leaves with more entries than rows; a row of 256 entries does not fit its byte).
//   dense inner:  d*d child pointers, row-major, 0 for empty.
//   sparse inner: 16-byte header {uint32 child count, 12 reserved}; count pairs of uint8 (local row, col),
//                 row-major, padded to 16; count child pointers.
// Choice: a leaf with one entry is COO1, other leaves COOx (x = options.coo_width); a leaf is CSR when CSR
// leaves are allowed and that is strictly smaller, dense when dense leaves are allowed and that is strictly
// smaller still; an inner node is dense when that is strictly smaller.
//
// Build (two passes): entries are sorted in tree order (at the highest level where two entries' blocks
// differ, compare (row >> b*l, col >> b*l) lexicographically), so every node is a contiguous range. Pass 1
// walks the ranges top-down and counts bytes; one pool is allocated; pass 2 writes nodes bottom-up, children
// before their parent (post-order), so the root is the last node.
//
// Limits: a dense leaf cannot tell an entry whose bytes are all zero (+0 in every component) from no entry,
// so to_host() drops such entries (also f32 values that round to +0 in every component). f64 values beyond
// the float range become inf in f32.
enum class HiNodeType : uint8_t {
  empty = 0,
  dense_leaf = 1,
  coo1 = 2,
  coo2 = 3,
  coo4 = 4,
  dense_inner = 5,
  sparse_inner = 6,
  csr_leaf = 7,
};
constexpr int kHiNodeTypes = 8;  // including empty, so a type indexes arrays directly

std::string to_string(HiNodeType t);
inline bool is_leaf(HiNodeType t) {
  return (t >= HiNodeType::dense_leaf && t <= HiNodeType::coo4) || t == HiNodeType::csr_leaf;
}
inline bool is_inner(HiNodeType t) { return t == HiNodeType::dense_inner || t == HiNodeType::sparse_inner; }
inline int coo_width(HiNodeType t) { return t == HiNodeType::coo4 ? 4 : t == HiNodeType::coo2 ? 2 : 1; }

// Child pointers: offset | type.
inline uint64_t hi_pointer(uint64_t offset, HiNodeType t) { return offset | static_cast<uint64_t>(t); }
inline uint64_t hi_offset(uint64_t pointer) { return pointer & ~uint64_t{15}; }
inline HiNodeType hi_type(uint64_t pointer) { return static_cast<HiNodeType>(pointer & 15); }
inline uint64_t round16(uint64_t bytes) { return (bytes + 15) & ~uint64_t{15}; }

struct HiSparseOptions {
  int d = 64;             // node width: 16, 32, 64, 128 or 256
  int coo_width = 2;      // X of COOx leaves: 1, 2 or 4
  bool dense_leaves = true;
  bool csr_leaves = true;
  void validate() const;  // InvalidArgument naming the bad value
  int log2_d() const;
};

// Node sizes in bytes (all multiples of 16); `entry_bytes` = components * scalar bytes.
uint64_t hi_dense_leaf_bytes(int d, int entry_bytes);
uint64_t hi_coo_leaf_bytes(uint64_t count, int width, int entry_bytes);
// rows: R of the CSR leaf (the last local row holding an entry + 1).
uint64_t hi_csr_leaf_bytes(uint64_t count, uint64_t rows, int entry_bytes);
constexpr int kHiCsrMaxRowLength = 255;  // a CSR leaf's row lengths are bytes
uint64_t hi_dense_inner_bytes(int d);
uint64_t hi_sparse_inner_bytes(uint64_t children);
uint64_t hi_padded_count(uint64_t count, int width);
int hi_levels(int64_t rows, int64_t cols, int d);

class HiSparseMatrix {
 public:
  HiSparseMatrix() = default;
  // Throws InvalidArgument on bad options; `a` must be valid (sorted, unique columns per row).
  static HiSparseMatrix build(const HostMatrix& a, Precision precision, const HiSparseOptions& options = {});
  // A tree made elsewhere (the GPU's A + B): the pool is taken as it is, nodes anywhere in it, and walked
  // once to check every pointer and count the entries. Throws InvalidArgument when it is corrupt.
  static HiSparseMatrix from_pool(const EntryType& entry, Precision precision, int32_t rows, int32_t cols,
                                  const HiSparseOptions& options, std::vector<uint8_t> pool, uint64_t root,
                                  std::string name);

  // The matrix as seen: transposed sizes when transposed().
  int32_t rows() const { return transposed_ ? cols_ : rows_; }
  int32_t cols() const { return transposed_ ? rows_ : cols_; }
  // The stored matrix (the tree's row and column axes).
  int32_t stored_rows() const { return rows_; }
  int32_t stored_cols() const { return cols_; }
  int64_t nnz() const { return nnz_; }
  const std::string& name() const { return name_; }
  const EntryType& entry() const { return entry_; }
  Precision precision() const { return precision_; }
  int entry_bytes() const { return entry_.num_components() * scalar_bytes(precision_); }
  const HiSparseOptions& options() const { return options_; }
  int d() const { return options_.d; }
  int levels() const { return levels_; }
  const std::vector<uint8_t>& pool() const { return pool_; }
  // The pool moved out, for a caller done with the tree (packing: no copy of a pool of hundreds of MB).
  std::vector<uint8_t> release_pool() && { return std::move(pool_); }
  uint64_t root() const { return root_; }

  // State: A^T and the scale are applied when read, the pool is never touched.
  bool transposed() const { return transposed_; }
  double scale() const { return scale_; }
  void transpose() { transposed_ = !transposed_; }
  void set_scale(double s) { scale_ = s; }

  // The matrix as seen, values times scale(); exact in f64 with scale 1.
  HostMatrix to_host() const;

 private:
  EntryType entry_;
  std::string name_;
  Precision precision_ = Precision::f64;
  int32_t rows_ = 0;
  int32_t cols_ = 0;
  int64_t nnz_ = 0;
  int levels_ = 1;
  HiSparseOptions options_;
  std::vector<uint8_t> pool_;  // zero-initialised, so padding is zero
  uint64_t root_ = 0;
  bool transposed_ = false;
  double scale_ = 1;
};

struct HiSparseStats {
  uint64_t pool_bytes = 0;
  int64_t entries = 0;          // real entries read from the leaves (not padding)
  int64_t padding_entries = 0;  // COO padding plus empty dense-leaf cells
  double bytes_per_entry = 0;   // pool_bytes / entries (0 when empty)
  std::vector<std::array<int64_t, kHiNodeTypes>> nodes;  // nodes[level][type]
  int64_t node_count(HiNodeType t) const;
};

// A leaf and where it sits (stored coordinates of its first row and column); `slots` is the work it
// holds: d*d for a dense leaf, the padded count for a COO leaf, the count for a CSR leaf.
struct HiLeaf {
  uint64_t ptr;
  int64_t row0, col0;
  uint32_t slots;
};
// Every leaf, in tree order (inside one leaf row, by column; inside one leaf column, by row).
std::vector<HiLeaf> hisparse_leaves(const HiSparseMatrix& m);

// Nodes at each level (level 0: leaves), from a walk that does not read the entries.
std::vector<int64_t> hisparse_level_nodes(const HiSparseMatrix& m);

// Walks the tree; throws InvalidArgument on a corrupt pointer (offset out of the pool, wrong type for level).
HiSparseStats hisparse_statistics(const HiSparseMatrix& m);

}  // namespace jitsparse
