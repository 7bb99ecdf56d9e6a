#include "core/permutation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/host_passes.hpp"

namespace jitsparse {

Ordering parse_ordering(const std::string& s) {
  if (s == "none") return Ordering::none;
  if (s == "rcm") return Ordering::rcm;
  if (s == "degree") return Ordering::degree;
  throw InvalidArgument("unknown ordering '" + s + "' (expected none, rcm or degree)");
}

std::string to_string(Ordering o) {
  switch (o) {
    case Ordering::rcm: return "rcm";
    case Ordering::degree: return "degree";
    case Ordering::none: break;
  }
  return "none";
}

std::string ordering_suffix(Ordering o) { return o == Ordering::none ? "" : "@" + to_string(o); }

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The symmetrised pattern of a square matrix without its diagonal (A + A^T as a graph), each vertex's
// neighbours listed once. 64-bit offsets: A + A^T can hold twice the entries of A.
struct Graph {
  std::vector<int64_t> start;  // n + 1
  std::vector<int32_t> adj;
  int32_t degree(int32_t v) const { return static_cast<int32_t>(start[v + 1] - start[v]); }
};

Graph symmetric_graph(const HostMatrix& a) {
  const int32_t n = a.rows;
  // A^T's pattern by a counting sort over columns: its rows come out with sorted columns, like A's.
  std::vector<int64_t> tstart(static_cast<size_t>(n) + 1, 0);
  for (int32_t c : a.col_idx) ++tstart[c + 1];
  for (int32_t i = 0; i < n; ++i) tstart[i + 1] += tstart[i];
  std::vector<int32_t> tcol(a.col_idx.size());
  {
    std::vector<int64_t> next(tstart.begin(), tstart.end() - 1);
    for (int32_t r = 0; r < n; ++r)
      for (int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) tcol[next[a.col_idx[k]]++] = r;
  }
  // Row i of A + A^T: the union of two sorted lists, diagonal dropped.
  Graph g;
  g.start.assign(static_cast<size_t>(n) + 1, 0);
  g.adj.reserve(2 * a.col_idx.size());
  for (int32_t i = 0; i < n; ++i) {
    const int32_t* p = a.col_idx.data() + a.row_ptr[i];
    const int32_t* const pe = a.col_idx.data() + a.row_ptr[i + 1];
    const int32_t* q = tcol.data() + tstart[i];
    const int32_t* const qe = tcol.data() + tstart[i + 1];
    while (p != pe || q != qe) {
      int32_t j;
      if (q == qe || (p != pe && *p < *q)) j = *p++;
      else if (p == pe || *q < *p) j = *q++;
      else {  // in both
        j = *p++;
        ++q;
      }
      if (j != i) g.adj.push_back(j);
    }
    g.start[i + 1] = static_cast<int64_t>(g.adj.size());
  }
  return g;
}

// One breadth-first search of a component: its depth (number of levels) and the vertex of minimum
// (degree, index) in its last level, the next candidate for a peripheral vertex.
struct LevelSummary {
  int32_t depth = 0;
  int32_t last_level_pick = -1;
};

// The numbers of the breadth-first searches: `seen` holds, per vertex, the number of the search that last
// reached it, so no search pays for clearing an n-sized array (a matrix of many small components would
// otherwise cost O(n) per component). 32-bit, half the memory of 64-bit numbers (the searches are bound
// by these scattered reads); cleared once in 2^32 - 1 searches.
struct SearchMarks {
  std::vector<uint32_t> seen;
  uint32_t search = 0;
  explicit SearchMarks(int32_t n) : seen(static_cast<size_t>(n), 0) {}
  uint32_t next() {
    if (search == std::numeric_limits<uint32_t>::max()) {
      std::fill(seen.begin(), seen.end(), 0);
      search = 0;
    }
    return ++search;
  }
};

// A breadth-first search reads, for each vertex it takes from the queue, its adjacency and then the marks
// of its neighbours: on a randomly numbered matrix each a cache miss. The vertices some places ahead in
// the queue are known, so their adjacency (kAdjAhead) and their neighbours' marks (kMarksAhead) are
// asked for early and the misses overlap (250 MB random-order Laplacian, 1.4M vertices, 2-core machine:
// three searches 1.29 -> about 0.5 s, the whole RCM 1.9 -> 1.1 s with the sort below).
constexpr size_t kAdjAhead = 8, kMarksAhead = 3;
template <class Marks>
void prefetch_ahead(const Graph& g, const std::vector<int32_t>& queue, size_t h, const Marks* marks) {
  if (h + kAdjAhead < queue.size()) {
    const int32_t u = queue[h + kAdjAhead];
    prefetch(g.adj.data() + g.start[u]);
  }
  if (h + kMarksAhead < queue.size()) {
    const int32_t u = queue[h + kMarksAhead];
    for (int64_t k = g.start[u]; k < g.start[u + 1]; ++k) prefetch(marks + g.adj[k]);
  }
}

LevelSummary level_structure(const Graph& g, int32_t root, std::vector<int32_t>& queue, SearchMarks& marks) {
  const uint32_t search = marks.next();
  uint32_t* seen = marks.seen.data();
  queue.clear();
  queue.push_back(root);
  seen[root] = search;
  LevelSummary s;
  size_t level_begin = 0;
  while (level_begin < queue.size()) {
    const size_t level_end = queue.size();
    ++s.depth;
    for (size_t h = level_begin; h < level_end; ++h) {
      prefetch_ahead(g, queue, h, seen);
      const int32_t v = queue[h];
      for (int64_t k = g.start[v]; k < g.start[v + 1]; ++k) {
        const int32_t w = g.adj[k];
        if (seen[w] != search) {
          seen[w] = search;
          queue.push_back(w);
        }
      }
    }
    if (queue.size() == level_end) {  // this was the last level
      for (size_t h = level_begin; h < level_end; ++h) {
        const int32_t v = queue[h], best = s.last_level_pick;
        if (best < 0 || g.degree(v) < g.degree(best) || (g.degree(v) == g.degree(best) && v < best))
          s.last_level_pick = v;
      }
    }
    level_begin = level_end;
  }
  return s;
}

// George and Liu's pseudo-peripheral vertex: search from the last level's minimum-degree vertex while that
// makes the level structure deeper. Each round adds at least one level; the cap only guards against
// pathological graphs (a handful of rounds is usual) and keeps the cost a small multiple of the component.
int32_t pseudo_peripheral_vertex(const Graph& g, int32_t start, std::vector<int32_t>& queue, SearchMarks& marks) {
  constexpr int kMaxRounds = 16;
  int32_t root = start;
  LevelSummary levels = level_structure(g, root, queue, marks);
  for (int round = 0; round < kMaxRounds; ++round) {
    const int32_t candidate = levels.last_level_pick;
    if (candidate == root) break;  // a single vertex
    const LevelSummary from_candidate = level_structure(g, candidate, queue, marks);
    if (from_candidate.depth <= levels.depth) break;
    root = candidate;
    levels = from_candidate;
  }
  return root;
}

}  // namespace

std::vector<int32_t> rcm_permutation(const HostMatrix& a) {
  if (a.rows != a.cols)
    throw InvalidArgument("rcm_permutation: matrix '" + a.name + "' is " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ", not square");
  const int32_t n = a.rows;
  Graph g = symmetric_graph(a);
  // Neighbours in increasing (degree, index): the Cuthill-McKee visiting order, sorted once.
  std::vector<int32_t> degree(static_cast<size_t>(n));
  int32_t max_degree = 0;
  for (int32_t v = 0; v < n; ++v) max_degree = std::max(max_degree, degree[v] = g.degree(v));
  // Sorted by keys (degree, index) packed in 64 bits and read once per entry: a comparison that looks the
  // degrees up reads them again at every step (a scattered read each on a randomly numbered matrix).
  std::vector<uint64_t> keys;
  for (int32_t v = 0; v < n; ++v) {
    keys.clear();
    for (int64_t k = g.start[v]; k < g.start[v + 1]; ++k) {
      const int32_t w = g.adj[k];
      keys.push_back(static_cast<uint64_t>(degree[w]) << 32 | static_cast<uint32_t>(w));
    }
    std::sort(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size(); ++i) g.adj[g.start[v] + static_cast<int64_t>(i)] = static_cast<int32_t>(keys[i] & 0xffffffffu);
  }
  // Vertices by (degree, index), a counting sort: each component starts at its first unvisited one.
  std::vector<int32_t> by_degree(static_cast<size_t>(n));
  {
    std::vector<int64_t> next(static_cast<size_t>(max_degree) + 2, 0);
    for (int32_t v = 0; v < n; ++v) ++next[degree[v] + 1];
    for (int32_t d = 0; d <= max_degree; ++d) next[d + 1] += next[d];
    for (int32_t v = 0; v < n; ++v) by_degree[next[degree[v]]++] = v;
  }
  std::vector<int32_t> order;  // Cuthill-McKee order: order[k] = old vertex
  order.reserve(static_cast<size_t>(n));
  std::vector<char> visited(static_cast<size_t>(n), 0);
  std::vector<int32_t> queue;
  SearchMarks marks(n);
  for (int32_t start : by_degree) {
    if (visited[start]) continue;
    const int32_t root = pseudo_peripheral_vertex(g, start, queue, marks);
    visited[root] = 1;
    size_t head = order.size();
    order.push_back(root);
    for (; head < order.size(); ++head) {  // order doubles as the breadth-first queue
      prefetch_ahead(g, order, head, visited.data());
      const int32_t v = order[head];
      for (int64_t k = g.start[v]; k < g.start[v + 1]; ++k) {
        const int32_t w = g.adj[k];
        if (!visited[w]) {
          visited[w] = 1;
          order.push_back(w);
        }
      }
    }
  }
  std::vector<int32_t> perm(static_cast<size_t>(n));
  for (int32_t k = 0; k < n; ++k) perm[order[k]] = n - 1 - k;  // reversed
  return perm;
}

int64_t bandwidth(const HostMatrix& a) {
  int64_t b = 0;
  for (int32_t r = 0; r < a.rows; ++r)
    for (int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      b = std::max<int64_t>(b, std::abs(static_cast<int64_t>(a.col_idx[k]) - r));
  return b;
}

int64_t profile(const HostMatrix& a) {
  int64_t p = 0;
  for (int32_t r = 0; r < a.rows; ++r)
    if (a.row_ptr[r] < a.row_ptr[r + 1] && a.col_idx[a.row_ptr[r]] < r) p += r - a.col_idx[a.row_ptr[r]];
  return p;
}

bool is_permutation(const std::vector<int32_t>& perm, int64_t n) {
  if (static_cast<int64_t>(perm.size()) != n) return false;
  std::vector<char> seen(perm.size(), 0);
  for (int32_t p : perm) {
    if (p < 0 || p >= n || seen[p]) return false;
    seen[p] = 1;
  }
  return true;
}

void check_permutation(const std::vector<int32_t>& perm, int64_t n) {
  if (static_cast<int64_t>(perm.size()) != n)
    throw InvalidArgument("permutation has " + std::to_string(perm.size()) + " entries, expected " +
                          std::to_string(n));
  std::vector<int64_t> first(perm.size(), -1);
  for (size_t i = 0; i < perm.size(); ++i) {
    const int32_t p = perm[i];
    if (p < 0 || p >= n)
      throw InvalidArgument("not a permutation: perm[" + std::to_string(i) + "] = " + std::to_string(p) +
                            " is outside 0.." + std::to_string(n - 1));
    if (first[p] >= 0)
      throw InvalidArgument("not a permutation: perm[" + std::to_string(first[p]) + "] and perm[" +
                            std::to_string(i) + "] are both " + std::to_string(p));
    first[p] = static_cast<int64_t>(i);
  }
}

std::vector<int32_t> inverse_permutation(const std::vector<int32_t>& perm) {
  check_permutation(perm, static_cast<int64_t>(perm.size()));
  std::vector<int32_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int32_t>(i);
  return inv;
}

std::vector<int32_t> random_permutation(int32_t n, uint64_t seed) {
  if (n < 0) throw InvalidArgument("random_permutation: negative size " + std::to_string(n));
  std::vector<int32_t> perm(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) perm[i] = i;
  const uint64_t base = splitmix64(seed ^ 0x5eedc0ffee123457ull);
  for (int64_t i = n - 1; i > 0; --i) {
    // 64 random bits modulo i+1: the bias (below 2^-32 for 32-bit sizes) does not matter here.
    const auto j =
        static_cast<int64_t>(splitmix64(base + static_cast<uint64_t>(i)) % static_cast<uint64_t>(i + 1));
    std::swap(perm[i], perm[j]);
  }
  return perm;
}

std::vector<int32_t> scan_permutation(const std::vector<std::array<double, 3>>& points, int slab_axis,
                                      int line_axis, int num_slabs) {
  if (slab_axis < 0 || slab_axis > 2 || line_axis < 0 || line_axis > 2 || slab_axis == line_axis)
    throw InvalidArgument("scan_permutation: slab and line axes must be two different axes of 0..2, not " +
                          std::to_string(slab_axis) + " and " + std::to_string(line_axis));
  if (num_slabs < 1) throw InvalidArgument("scan_permutation: needs at least one slab");
  if (points.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw InvalidArgument("scan_permutation: too many points for 32-bit indices");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t i = 0; i < points.size(); ++i) {
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(points[i][k]))
        throw InvalidArgument("scan_permutation: point " + std::to_string(i) +
                              " has a non-finite coordinate");
    lo = std::min(lo, points[i][slab_axis]);
    hi = std::max(hi, points[i][slab_axis]);
  }
  const double width = (hi - lo) / num_slabs;
  struct Key {
    int32_t slab;
    double line;
    int32_t index;
  };
  std::vector<Key> keys(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    int32_t slab = 0;
    if (width > 0)
      slab = static_cast<int32_t>(
          std::min<double>(num_slabs - 1, std::floor((points[i][slab_axis] - lo) / width)));
    keys[i] = {slab, points[i][line_axis], static_cast<int32_t>(i)};
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.slab != b.slab) return a.slab < b.slab;
    if (a.line != b.line) return a.line < b.line;
    return a.index < b.index;
  });
  std::vector<int32_t> perm(points.size());
  for (size_t k = 0; k < keys.size(); ++k) perm[keys[k].index] = static_cast<int32_t>(k);
  return perm;
}

HostMatrix permute_symmetric(const HostMatrix& a, const std::vector<int32_t>& perm) {
  if (a.rows != a.cols)
    throw InvalidArgument("permute_symmetric: matrix '" + a.name + "' is " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ", not square");
  if (static_cast<int64_t>(perm.size()) != a.rows)
    throw InvalidArgument("permute_symmetric: permutation of " + std::to_string(perm.size()) +
                          " entries for matrix '" + a.name + "' with " + std::to_string(a.rows) + " rows");
  const std::vector<int32_t> inv = inverse_permutation(perm);  // checks perm
  const int c = a.components();
  HostMatrix b;
  b.entry = a.entry;
  b.name = a.name;
  b.rows = b.cols = a.rows;
  b.row_ptr.assign(static_cast<size_t>(a.rows) + 1, 0);
  for (int32_t r = 0; r < b.rows; ++r) b.row_ptr[r + 1] = b.row_ptr[r] + (a.row_ptr[inv[r] + 1] - a.row_ptr[inv[r]]);
  b.col_idx.resize(a.col_idx.size());
  b.values.resize(a.values.size());
  // New row r is old row inv[r]: on a randomly numbered matrix a scattered row, and its columns' new
  // numbers scattered reads too. The rows some places ahead are asked for early, and the rows are filled
  // in shares on a few threads (250 MB random-order Laplacian, 2-core machine: 1.1 -> 0.45 s).
  constexpr int32_t kRowsAhead = 4;
  for_row_shares(b.rows, row_share_count(b.rows), [&](int, int64_t first, int64_t last) {
    std::vector<std::pair<int32_t, int32_t>> row;  // (new column, old position)
    for (int64_t r = first; r < last; ++r) {
      if (r + kRowsAhead < last) {
        const int32_t ahead = inv[r + kRowsAhead];
        prefetch(a.col_idx.data() + a.row_ptr[ahead]);
        prefetch(a.values.data() + static_cast<int64_t>(a.row_ptr[ahead]) * c);
      }
      const int32_t old = inv[r];
      row.clear();
      for (int32_t k = a.row_ptr[old]; k < a.row_ptr[old + 1]; ++k) row.emplace_back(perm[a.col_idx[k]], k);
      std::sort(row.begin(), row.end());
      int64_t out = b.row_ptr[r];
      for (const auto& [col, k] : row) {
        b.col_idx[out] = col;
        std::copy(a.values.begin() + static_cast<int64_t>(k) * c,
                  a.values.begin() + static_cast<int64_t>(k + 1) * c, b.values.begin() + out * c);
        ++out;
      }
    }
  });
  return b;
}

std::vector<double> permute_vector(const std::vector<double>& x, const std::vector<int32_t>& perm,
                                   int components) {
  if (components < 1) throw InvalidArgument("permute_vector: components must be positive");
  if (x.size() != perm.size() * static_cast<size_t>(components))
    throw InvalidArgument("permute_vector: " + std::to_string(x.size()) + " values for " +
                          std::to_string(perm.size()) + " entries of " + std::to_string(components));
  check_permutation(perm, static_cast<int64_t>(perm.size()));
  std::vector<double> y(x.size());
  for (size_t i = 0; i < perm.size(); ++i)
    std::copy(x.begin() + i * components, x.begin() + (i + 1) * components,
              y.begin() + static_cast<size_t>(perm[i]) * components);
  return y;
}

std::vector<int32_t> degree_permutation(const HostMatrix& a) {
  if (a.rows != a.cols)
    throw InvalidArgument("degree_permutation: matrix '" + a.name + "' is " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ", not square");
  const int32_t n = a.rows;
  std::vector<int64_t> degree(static_cast<size_t>(n), 0);
  for (int32_t i = 0; i < n; ++i) {
    degree[i] += a.row_ptr[i + 1] - a.row_ptr[i];
    for (int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) ++degree[a.col_idx[k]];
  }
  std::vector<int32_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return degree[x] > degree[y]; });
  std::vector<int32_t> perm(static_cast<size_t>(n));
  for (int32_t k = 0; k < n; ++k) perm[order[k]] = k;
  return perm;
}

std::vector<int32_t> ordering_permutation(const HostMatrix& a, Ordering ordering) {
  switch (ordering) {
    case Ordering::rcm: return rcm_permutation(a);
    case Ordering::degree: return degree_permutation(a);
    case Ordering::none: break;
  }
  std::vector<int32_t> identity(static_cast<size_t>(a.rows));
  std::iota(identity.begin(), identity.end(), 0);
  return identity;
}

}  // namespace jitsparse
