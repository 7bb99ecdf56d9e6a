#pragma once
#include <algorithm>
#include <cstdint>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace jitsparse {

// Helpers for host passes over large matrices (run-time selection's features and checks, renumbering):
// they are bound by memory latency, not arithmetic.

// Asks for the cache line holding *p ahead of its use. GCC 12 at -O1 and above dropped __builtin_prefetch
// whose address was loaded through two arrays inside nested loops (the breadth-first searches of
// rcm_permutation); on x86-64 the instruction itself is kept.
template <class T>
inline void prefetch(const T* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*p));
#else
  __builtin_prefetch(p);
#endif
}

// A few threads overlap more misses: at and above this many rows a pass runs in up to kRowShareThreads
// contiguous shares; below, a thread's start costs more than it saves.
constexpr int64_t kThreadedRows = int64_t{1} << 18;
constexpr int kRowShareThreads = 4;

// How many shares a pass over n rows takes: 1 below kThreadedRows, else min(kRowShareThreads, cores), at
// least `at_least` (a pass that also has other work for a second thread asks for 2).
inline int row_share_count(int64_t n, int at_least = 1) {
  if (n < kThreadedRows) return 1;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(cores, at_least, kRowShareThreads);
}

// body(share, first, last) for the contiguous shares of [0, n), share 0 on the calling thread, the others
// on threads of their own (run here, one after the other, where no thread can be had). Returns when all
// are done; the first exception a share threw (std::bad_alloc of a large pass) is thrown again here.
template <class Body>
void for_row_shares(int64_t n, int shares, Body body) {
  shares = std::max(1, shares);
  const int64_t size = (n + shares - 1) / shares;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(shares));
  auto run = [&](int s, int64_t first, int64_t last) {
    try {
      body(s, first, last);
    } catch (...) {
      errors[static_cast<size_t>(s)] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  for (int s = 1; s < shares; ++s) {
    const int64_t first = std::min<int64_t>(n, s * size), last = std::min<int64_t>(n, first + size);
    try {
      helpers.emplace_back(run, s, first, last);
    } catch (const std::system_error&) {
      run(s, first, last);
    }
  }
  run(0, int64_t{0}, std::min<int64_t>(n, size));
  for (auto& h : helpers) h.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace jitsparse
