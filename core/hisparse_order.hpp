#pragma once
// The entries of a HostMatrix in HiSparse tree order, for the builder (hisparse_build.cpp): the first level
// (from the top) where two entries' d x d blocks differ decides, row-major there. Two forms with one
// interface: the row and column digit (local position, 0..d-1) of the k-th entry at a level, and its
// position in the HostMatrix (source).
#include <cstdint>
#include <vector>

#include "core/host_matrix.hpp"

namespace jitsparse {

// Row and column digits interleaved from the top level down, (row digit, col digit) per level, in one
// 64-bit key, whose order is the tree order: (key, source) pairs sorted by an LSD radix sort, in shares on
// a few threads. 12 bytes an entry, digits read off the key. Needs 2 log2(d) levels <= 64 bits
// (fits): every matrix of fewer than 2^32 / d rows and columns.
class KeyedEntries {
 public:
  KeyedEntries(const HostMatrix& a, int log2_d, int levels);
  static bool fits(int log2_d, int levels) { return 2 * log2_d * levels <= 64; }
  size_t size() const { return key_.size(); }
  unsigned row_digit(size_t k, int level) const { return static_cast<unsigned>(key_[k] >> (2 * b_ * level + b_)) & mask_; }
  unsigned col_digit(size_t k, int level) const { return static_cast<unsigned>(key_[k] >> (2 * b_ * level)) & mask_; }
  int64_t source(size_t k) const { return src_[k]; }

 private:
  int b_;
  unsigned mask_;
  std::vector<uint64_t> key_;
  std::vector<uint32_t> src_;  // nnz < 2^31
};

// The general form, for matrices too large for a 64-bit key: coordinates sorted by comparing levels.
class CoordEntries {
 public:
  CoordEntries(const HostMatrix& a, int log2_d);
  size_t size() const { return coords_.size(); }
  unsigned row_digit(size_t k, int level) const { return static_cast<unsigned>(coords_[k].row >> (b_ * level)) & mask_; }
  unsigned col_digit(size_t k, int level) const { return static_cast<unsigned>(coords_[k].col >> (b_ * level)) & mask_; }
  int64_t source(size_t k) const { return coords_[k].src; }

 private:
  struct Coord {
    int32_t row, col;
    int64_t src;
  };
  int b_;
  unsigned mask_;
  std::vector<Coord> coords_;
};

}  // namespace jitsparse
