#include "core/host_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>

#include "core/error.hpp"

namespace jitsparse {

void HostMatrix::validate() const {
  const std::string where = "matrix '" + name + "': ";
  if (rows < 0 || cols < 0) throw InvalidArgument(where + "negative size");
  if (static_cast<int64_t>(row_ptr.size()) != static_cast<int64_t>(rows) + 1 || row_ptr.front() != 0)
    throw InvalidArgument(where + "row_ptr must have rows + 1 entries starting at 0");
  if (row_ptr.back() != nnz()) throw InvalidArgument(where + "row_ptr does not end at nnz");
  if (static_cast<int64_t>(values.size()) != nnz() * components())
    throw InvalidArgument(where + "values must hold nnz * " + std::to_string(components()) + " numbers");
  for (int32_t r = 0; r < rows; ++r) {
    if (row_ptr[r + 1] < row_ptr[r]) throw InvalidArgument(where + "row_ptr decreases at row " + std::to_string(r));
    for (int32_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      if (col_idx[k] < 0 || col_idx[k] >= cols)
        throw InvalidArgument(where + "column " + std::to_string(col_idx[k]) + " out of range in row " +
                              std::to_string(r));
      if (k > row_ptr[r] && col_idx[k] <= col_idx[k - 1])
        throw InvalidArgument(where + "columns not sorted and unique in row " + std::to_string(r));
    }
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw InvalidArgument(where + "non-finite value (" + std::to_string(values[i]) + ") in entry " +
                            std::to_string(i / components()));
}

TripletList::TripletList(EntryType entry, int64_t rows, int64_t cols)
    : entry_(std::move(entry)), num_rows_(rows), num_cols_(cols) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (rows < 0 || cols < 0) throw InvalidArgument("matrix size must not be negative");
  if (rows > kMax - 1 || cols > kMax - 1)
    throw InvalidArgument("matrix size " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " exceeds the 32-bit index limit (" + std::to_string(kMax - 1) + ")");
}

void TripletList::add(int64_t row, int64_t col, const double* value) {
  if (row < 0 || row >= num_rows_ || col < 0 || col >= num_cols_)
    throw InvalidArgument("entry (" + std::to_string(row) + ", " + std::to_string(col) + ") outside the " +
                          std::to_string(num_rows_) + " x " + std::to_string(num_cols_) + " matrix");
  rows_.push_back(row);
  cols_.push_back(col);
  values_.insert(values_.end(), value, value + entry_.num_components());
}

HostMatrix TripletList::build(bool sum_duplicates) const {
  const int c = entry_.num_components();
  std::vector<int64_t> order(rows_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return rows_[a] != rows_[b] ? rows_[a] < rows_[b] : cols_[a] < cols_[b];
  });
  HostMatrix m;
  m.entry = entry_;
  m.rows = static_cast<int32_t>(num_rows_);
  m.cols = static_cast<int32_t>(num_cols_);
  m.row_ptr.assign(num_rows_ + 1, 0);
  for (size_t i = 0; i < order.size(); ++i) {
    int64_t t = order[i];
    bool duplicate = i > 0 && rows_[order[i - 1]] == rows_[t] && cols_[order[i - 1]] == cols_[t];
    if (duplicate) {
      if (!sum_duplicates)
        throw InvalidArgument("duplicate entry (" + std::to_string(rows_[t] + 1) + ", " +
                              std::to_string(cols_[t] + 1) + ")");
      double* dst = m.values.data() + m.values.size() - c;
      for (int k = 0; k < c; ++k) dst[k] += values_[t * c + k];
      continue;
    }
    if (m.col_idx.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      throw InvalidArgument("more than 2^31-1 entries: beyond the 32-bit index limit");
    m.col_idx.push_back(static_cast<int32_t>(cols_[t]));
    m.values.insert(m.values.end(), values_.begin() + t * c, values_.begin() + (t + 1) * c);
    ++m.row_ptr[rows_[t] + 1];
  }
  for (int64_t r = 0; r < num_rows_; ++r) m.row_ptr[r + 1] += m.row_ptr[r];
  return m;
}

namespace {

// The matrix hash's constants: the fractional parts of the square roots of primes (2 to 19), bits with no
// pattern. The multipliers are odd, so multiplying by them loses nothing.
constexpr uint64_t kLaneSeed[4] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                                   0xa54ff53a5f1d36f1ull};
constexpr uint64_t kWordMul = 0x510e527fade682d1ull, kMergeMul = 0x9b05688c2b3e6c1full;
constexpr uint64_t kFinalMul1 = 0x1f83d9abfb41bd6bull, kFinalMul2 = 0x5be0cd19137e2179ull;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t load_word(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);  // any alignment; little-endian on every host jitsparse builds for
  return w;
}

// One word into a lane. A bijection of the word for a given lane and of the lane for a given word, so a
// change of a single word always changes the lane. The multiply carries low bits up; the rotation brings
// the well-mixed high bits down for the next word's multiply to spread.
uint64_t absorb_word(uint64_t lane, uint64_t word) { return rotl((lane ^ word) * kWordMul, 29); }

// Four lanes take a 32-byte block's four words: four independent multiply chains that the CPU overlaps,
// where a single chain (FNV-1a: one multiply per byte) waits on each multiply in turn.
class LaneHasher {
 public:
  // A field starts a block of its own, and its byte length goes in after it: moving bytes from one field
  // to the next changes the hash.
  void field(const void* data, size_t bytes) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    uint64_t l0 = lanes_[0], l1 = lanes_[1], l2 = lanes_[2], l3 = lanes_[3];  // in registers through the loop
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32) {
      l0 = absorb_word(l0, load_word(p + i));
      l1 = absorb_word(l1, load_word(p + i + 8));
      l2 = absorb_word(l2, load_word(p + i + 16));
      l3 = absorb_word(l3, load_word(p + i + 24));
    }
    lanes_[0] = l0, lanes_[1] = l1, lanes_[2] = l2, lanes_[3] = l3;
    // The tail: its whole words into lanes 0-2, then the last 1-7 bytes zero-padded into the next lane
    // (the length below tells "ab" from "ab\0").
    int lane = 0;
    for (; i + 8 <= bytes; i += 8, ++lane) lanes_[lane] = absorb_word(lanes_[lane], load_word(p + i));
    if (i < bytes) {
      uint64_t last = 0;
      std::memcpy(&last, p + i, bytes - i);
      lanes_[lane] = absorb_word(lanes_[lane], last);
    }
    lanes_[3] = absorb_word(lanes_[3], static_cast<uint64_t>(bytes));
  }

  // The lanes merged in order, then mixed until every input bit reaches every output bit with probability
  // about 1/2. Every step is a bijection of the lane it takes and of the state before it: a change
  // confined to one word of the input (fields of the same lengths) always changes the hash.
  uint64_t finish() const {
    uint64_t h = 0;
    for (uint64_t lane : lanes_) h = rotl(h ^ lane, 31) * kMergeMul;
    h ^= h >> 31;
    h *= kFinalMul1;
    h ^= h >> 29;
    h *= kFinalMul2;
    h ^= h >> 32;
    return h;
  }

 private:
  uint64_t lanes_[4] = {kLaneSeed[0], kLaneSeed[1], kLaneSeed[2], kLaneSeed[3]};
};

std::string hex16(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

std::string matrix_hash(const HostMatrix& a) {
  LaneHasher h;
  h.field(a.entry.name.data(), a.entry.name.size());
  h.field(&a.rows, sizeof a.rows);
  h.field(&a.cols, sizeof a.cols);
  h.field(a.row_ptr.data(), a.row_ptr.size() * sizeof(int32_t));
  h.field(a.col_idx.data(), a.col_idx.size() * sizeof(int32_t));
  h.field(a.values.data(), a.values.size() * sizeof(double));
  return kMatrixKeyPrefix + hex16(h.finish());
}

std::string legacy_matrix_hash(const HostMatrix& a) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* data, size_t bytes) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  mix(a.entry.name.data(), a.entry.name.size());
  mix(&a.rows, sizeof a.rows);
  mix(&a.cols, sizeof a.cols);
  mix(a.row_ptr.data(), a.row_ptr.size() * sizeof(int32_t));
  mix(a.col_idx.data(), a.col_idx.size() * sizeof(int32_t));
  mix(a.values.data(), a.values.size() * sizeof(double));
  return hex16(h);
}

bool is_legacy_matrix_key(const std::string& key) {
  return key.size() == 16 && std::all_of(key.begin(), key.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_key_of(const HostMatrix& a, const std::string& key) {
  return key == (is_legacy_matrix_key(key) ? legacy_matrix_hash(a) : matrix_hash(a));
}

}  // namespace jitsparse
