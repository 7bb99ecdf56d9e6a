#include "core/hisparse_order.hpp"

#include <algorithm>

#include "core/host_passes.hpp"

namespace jitsparse {
namespace {

// Radix digits of 11 bits: a share's 2,048 counters and write heads stay in the first-level caches. With
// 16-bit digits (65,536 write heads, one pass less) the sort took as long on the 2-core machine.
constexpr int kDigitBits = 11;
constexpr uint32_t kBuckets = 1u << kDigitBits;

}  // namespace

KeyedEntries::KeyedEntries(const HostMatrix& a, int log2_d, int levels) : b_(log2_d), mask_((1u << log2_d) - 1) {
  const int64_t n = a.nnz();
  key_.resize(static_cast<size_t>(n));
  src_.resize(static_cast<size_t>(n));
  auto key_of = [&](uint32_t r, uint32_t c) {
    uint64_t k = 0;
    for (int l = levels - 1; l >= 0; --l)
      k = (k << (2 * b_)) | (uint64_t((r >> (b_ * l)) & mask_) << b_) | ((c >> (b_ * l)) & mask_);
    return k;
  };
  for_row_shares(a.rows, row_share_count(a.rows), [&](int, int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r)
      for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        key_[k] = key_of(static_cast<uint32_t>(r), static_cast<uint32_t>(a.col_idx[k]));
        src_[k] = static_cast<uint32_t>(k);
      }
  });
  if (n == 0) return;
  // LSD passes, each stable: per share a histogram of its range, then write heads digit by digit and,
  // within a digit, share by share, so every share scatters its range in order.
  const int shares = row_share_count(n);
  std::vector<uint64_t> key_tmp(static_cast<size_t>(n));
  std::vector<uint32_t> src_tmp(static_cast<size_t>(n));
  std::vector<uint32_t> heads(static_cast<size_t>(shares) * kBuckets);
  for (int shift = 0; shift < 2 * b_ * levels; shift += kDigitBits) {
    auto digit = [shift](uint64_t key) { return static_cast<uint32_t>(key >> shift) & (kBuckets - 1); };
    std::fill(heads.begin(), heads.end(), 0u);
    for_row_shares(n, shares, [&](int s, int64_t first, int64_t last) {
      uint32_t* count = heads.data() + static_cast<size_t>(s) * kBuckets;
      for (int64_t i = first; i < last; ++i) ++count[digit(key_[i])];
    });
    int64_t first_digit = 0;  // entries holding key_[0]'s digit: all of them leave the order as it is
    for (int s = 0; s < shares; ++s) first_digit += heads[static_cast<size_t>(s) * kBuckets + digit(key_[0])];
    if (first_digit == n) continue;
    uint32_t sum = 0;
    for (uint32_t d = 0; d < kBuckets; ++d)
      for (int s = 0; s < shares; ++s) {
        uint32_t& c = heads[static_cast<size_t>(s) * kBuckets + d];
        const uint32_t here = c;
        c = sum;
        sum += here;
      }
    for_row_shares(n, shares, [&](int s, int64_t first, int64_t last) {
      uint32_t* head = heads.data() + static_cast<size_t>(s) * kBuckets;
      for (int64_t i = first; i < last; ++i) {
        const uint32_t at = head[digit(key_[i])]++;
        key_tmp[at] = key_[i];
        src_tmp[at] = src_[i];
      }
    });
    key_.swap(key_tmp);
    src_.swap(src_tmp);
  }
}

CoordEntries::CoordEntries(const HostMatrix& a, int log2_d) : b_(log2_d), mask_((1u << log2_d) - 1) {
  coords_.reserve(static_cast<size_t>(a.nnz()));
  for (int32_t r = 0; r < a.rows; ++r)
    for (int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) coords_.push_back({r, a.col_idx[k], k});
  const int b = b_;
  std::sort(coords_.begin(), coords_.end(), [b](const Coord& x, const Coord& y) {
    const uint32_t diff = static_cast<uint32_t>(x.row ^ y.row) | static_cast<uint32_t>(x.col ^ y.col);
    if (diff == 0) return false;
    const int shift = (31 - __builtin_clz(diff)) / b * b;  // the lowest bit of the top level that differs
    if ((x.row >> shift) != (y.row >> shift)) return (x.row >> shift) < (y.row >> shift);
    return (x.col >> shift) < (y.col >> shift);
  });
}

}  // namespace jitsparse
