#include "tuner/builtin_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/permutation.hpp"

namespace jitsparse {
namespace {

constexpr double kPi = 3.14159265358979323846;

Point3 sub(const Point3& a, const Point3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const Point3& a, const Point3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Point3 cross(const Point3& a, const Point3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm(const Point3& a) { return std::sqrt(dot(a, a)); }

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Uniform in [-1, 1), a pure function of (seed, i): the jitter does not depend on the platform's RNG.
double hash_unit(uint64_t seed, uint64_t i) {
  return static_cast<double>(splitmix64(seed * 0x100000001b3ull + i) >> 11) * 0x1.0p-52 - 1.0;
}

std::string element_name(const char* kind, size_t e, const int* v, int k) {
  std::string s = std::string(kind) + " " + std::to_string(e) + " (vertices";
  for (int i = 0; i < k; ++i) s += " " + std::to_string(v[i]);
  return s + ")";
}

template <int K>
void check_elements(int64_t n, const std::vector<std::array<int, K>>& elements, const char* kind) {
  if (n > std::numeric_limits<int32_t>::max() - 1)
    throw InvalidArgument("too many vertices for 32-bit indices");
  for (size_t e = 0; e < elements.size(); ++e)
    for (int a = 0; a < K; ++a)
      if (elements[e][a] < 0 || elements[e][a] >= n)
        throw InvalidArgument(element_name(kind, e, elements[e].data(), K) +
                              " refers to a vertex outside 0.." + std::to_string(n - 1));
}

// CSR pattern of the vertex graph (vertex i couples with j when an element holds both, and with itself),
// built from vertex-to-element incidence, never by sorting all (element, a, b) triplets.
template <int K>
void build_pattern(int32_t n, const std::vector<std::array<int, K>>& elements, HostMatrix& m) {
  std::vector<int64_t> start(static_cast<size_t>(n) + 1, 0);
  for (const auto& el : elements)
    for (int v : el) ++start[v + 1];
  for (int32_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<int32_t> incident(start[n]);
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (size_t e = 0; e < elements.size(); ++e)
      for (int v : elements[e]) incident[fill[v]++] = static_cast<int32_t>(e);
  }
  m.rows = m.cols = n;
  m.row_ptr.assign(static_cast<size_t>(n) + 1, 0);
  m.col_idx.clear();
  m.col_idx.reserve(static_cast<size_t>(elements.size()) * K * (K == 3 ? 7 : 15) / (K == 3 ? 3 : 24) + n);
  std::vector<int32_t> mark(n, -1);
  for (int32_t i = 0; i < n; ++i) {
    const size_t row_begin = m.col_idx.size();
    if (start[i + 1] > start[i]) {
      for (int64_t p = start[i]; p < start[i + 1]; ++p)
        for (int v : elements[incident[p]])
          if (mark[v] != i) {
            mark[v] = i;
            m.col_idx.push_back(v);
          }
      std::sort(m.col_idx.begin() + row_begin, m.col_idx.end());
    }
    if (m.col_idx.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      throw InvalidArgument("more than 2^31-1 entries: beyond the 32-bit index limit");
    m.row_ptr[i + 1] = static_cast<int32_t>(m.col_idx.size());
  }
}

// Assembles sum over elements of local(e, out) (out: K*K entries of c components, (a*K + b)*c) into the
// pattern of build_pattern, in place: the position of column j in row i is a binary search of a short row.
template <int K, class Local>
HostMatrix assemble(const char* entry, int64_t n, const std::vector<std::array<int, K>>& elements,
                    const char* kind, Local&& local) {
  check_elements<K>(n, elements, kind);
  HostMatrix m;
  m.entry = EntryRegistry::instance().get(entry);
  const int c = m.entry.num_components();
  build_pattern<K>(static_cast<int32_t>(n), elements, m);
  m.values.assign(m.col_idx.size() * c, 0.0);
  std::vector<double> out(K * K * c);
  for (size_t e = 0; e < elements.size(); ++e) {
    std::fill(out.begin(), out.end(), 0.0);
    local(e, out.data());
    const auto& el = elements[e];
    for (int a = 0; a < K; ++a) {
      const int32_t* row_begin = m.col_idx.data() + m.row_ptr[el[a]];
      const int32_t* row_end = m.col_idx.data() + m.row_ptr[el[a] + 1];
      for (int b = 0; b < K; ++b) {
        const int64_t pos = std::lower_bound(row_begin, row_end, el[b]) - m.col_idx.data();
        double* dst = m.values.data() + pos * c;
        const double* src = out.data() + (a * K + b) * c;
        for (int k = 0; k < c; ++k) dst[k] += src[k];
      }
    }
  }
  return m;
}

// Barycentric gradients and volume of a tetrahedron; throws on a degenerate one.
struct TetGeometry {
  Point3 g[4];
  double volume;
};

TetGeometry tet_geometry(const TetMesh& mesh, size_t e, double min_volume) {
  const auto& t = mesh.tets[e];
  const Point3& x0 = mesh.vertices[t[0]];
  const Point3 d1 = sub(mesh.vertices[t[1]], x0), d2 = sub(mesh.vertices[t[2]], x0),
               d3 = sub(mesh.vertices[t[3]], x0);
  const Point3 c23 = cross(d2, d3), c31 = cross(d3, d1), c12 = cross(d1, d2);
  const double det = dot(d1, c23);  // 6 V, signed
  if (!(std::abs(det) > min_volume * 6))
    throw InvalidArgument(element_name("tetrahedron", e, t.data(), 4) + " has zero volume");
  TetGeometry g;
  for (int k = 0; k < 3; ++k) {
    g.g[1][k] = c23[k] / det;
    g.g[2][k] = c31[k] / det;
    g.g[3][k] = c12[k] / det;
    g.g[0][k] = -(g.g[1][k] + g.g[2][k] + g.g[3][k]);
  }
  g.volume = std::abs(det) / 6;
  return g;
}

double bounding_diagonal(const std::vector<Point3>& v) {
  Point3 lo = v.empty() ? Point3{0, 0, 0} : v[0], hi = lo;
  for (const auto& p : v)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], p[k]);
      hi[k] = std::max(hi[k], p[k]);
    }
  return norm(sub(hi, lo));
}

// A volume below this (relative to the bounding box) counts as degenerate: it would only make Inf/NaN.
double volume_floor(const std::vector<Point3>& v) { return 1e-14 * std::pow(bounding_diagonal(v), 3); }

double mean_element_size(const TetMesh& mesh) {
  double total = 0;
  const double floor = volume_floor(mesh.vertices);
  for (size_t e = 0; e < mesh.tets.size(); ++e) total += tet_geometry(mesh, e, floor).volume;
  // A Kuhn cube of side h holds 6 tetrahedra of volume h^3 / 6.
  return std::cbrt(6 * total / static_cast<double>(mesh.tets.size()));
}

void name_matrix(HostMatrix& m, const std::string& name) { m.name = name; }

}  // namespace

// ------------------------------------------------------------------------------------------------ meshes

TriangleMesh icosphere(int level) {
  if (level < 0 || level > 10)
    throw InvalidArgument("icosphere level must be in 0..10, not " + std::to_string(level));
  const double t = (1.0 + std::sqrt(5.0)) / 2;
  TriangleMesh m;
  m.vertices = {{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
                {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
  m.triangles = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                 {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  auto normalize = [](Point3 p) {
    const double r = norm(p);
    return Point3{p[0] / r, p[1] / r, p[2] / r};
  };
  for (auto& p : m.vertices) p = normalize(p);
  for (int l = 0; l < level; ++l) {
    std::unordered_map<uint64_t, int> midpoint;
    midpoint.reserve(m.triangles.size() * 2);
    auto mid = [&](int a, int b) {
      const uint64_t key =
          (static_cast<uint64_t>(std::min(a, b)) << 32) | static_cast<uint32_t>(std::max(a, b));
      auto it = midpoint.find(key);
      if (it != midpoint.end()) return it->second;
      const Point3& p = m.vertices[a];
      const Point3& q = m.vertices[b];
      m.vertices.push_back(normalize({(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2}));
      const int id = static_cast<int>(m.vertices.size()) - 1;
      midpoint.emplace(key, id);
      return id;
    };
    std::vector<std::array<int, 3>> next;
    next.reserve(m.triangles.size() * 4);
    for (const auto& tr : m.triangles) {
      const int a = mid(tr[0], tr[1]), b = mid(tr[1], tr[2]), c = mid(tr[2], tr[0]);
      next.push_back({tr[0], a, c});
      next.push_back({tr[1], b, a});
      next.push_back({tr[2], c, b});
      next.push_back({a, b, c});
    }
    m.triangles.swap(next);
  }
  return m;
}

TriangleMesh torus(int n_major, int n_minor, double major_radius, double minor_radius) {
  if (n_major < 3 || n_minor < 3) throw InvalidArgument("torus needs at least 3 x 3 vertices");
  if (!(major_radius > minor_radius && minor_radius > 0))
    throw InvalidArgument("torus radii must satisfy major > minor > 0");
  if (static_cast<int64_t>(n_major) * n_minor * 2 > std::numeric_limits<int32_t>::max() - 1)
    throw InvalidArgument("torus too large for 32-bit indices");
  TriangleMesh m;
  m.vertices.reserve(static_cast<size_t>(n_major) * n_minor);
  for (int i = 0; i < n_major; ++i)
    for (int j = 0; j < n_minor; ++j) {
      const double u = 2 * kPi * i / n_major, v = 2 * kPi * j / n_minor;
      const double r = major_radius + minor_radius * std::cos(v);
      m.vertices.push_back({r * std::cos(u), r * std::sin(u), minor_radius * std::sin(v)});
    }
  auto id = [&](int i, int j) { return (i % n_major) * n_minor + (j % n_minor); };
  m.triangles.reserve(static_cast<size_t>(n_major) * n_minor * 2);
  for (int i = 0; i < n_major; ++i)
    for (int j = 0; j < n_minor; ++j) {
      // (u, v) counter-clockwise is outward: d/du x d/dv points away from the tube's core.
      const int a = id(i, j), b = id(i + 1, j), c = id(i + 1, j + 1), d = id(i, j + 1);
      m.triangles.push_back({a, b, c});
      m.triangles.push_back({a, c, d});
    }
  return m;
}

TetMesh box_tet_mesh(int nx, int ny, int nz, double jitter) {
  if (nx < 1 || ny < 1 || nz < 1) throw InvalidArgument("box mesh needs at least one cube per direction");
  if (jitter < 0 || jitter > 0.2) throw InvalidArgument("box mesh jitter must be in [0, 0.2]");
  const int64_t nv = static_cast<int64_t>(nx + 1) * (ny + 1) * (nz + 1);
  if (nv > std::numeric_limits<int32_t>::max() - 1 ||
      static_cast<int64_t>(nx) * ny * nz * 6 > std::numeric_limits<int32_t>::max())
    throw InvalidArgument("box mesh too large for 32-bit indices");
  const double h = 1.0 / std::max({nx, ny, nz});
  TetMesh m;
  m.vertices.resize(nv);
  auto id = [&](int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const int v = id(i, j, k);
        Point3 p{i * h, j * h, k * h};
        // Only interior vertices move, so the box keeps its shape and volume.
        if (i > 0 && i < nx && j > 0 && j < ny && k > 0 && k < nz)
          for (int c = 0; c < 3; ++c) p[c] += jitter * h * hash_unit(c + 1, v);
        m.vertices[v] = p;
      }
  // Kuhn split: one tetrahedron per axis order (path 000 -> +e_p0 -> +e_p1 -> 111); odd orders swap two
  // vertices so that every tetrahedron is positively oriented.
  static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  m.tets.reserve(static_cast<size_t>(nx) * ny * nz * 6);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (int p = 0; p < 6; ++p) {
          int c[3] = {i, j, k};
          std::array<int, 4> t{};
          t[0] = id(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[perms[p][s]];
            t[s + 1] = id(c[0], c[1], c[2]);
          }
          if (p >= 3) std::swap(t[2], t[3]);
          m.tets.push_back(t);
        }
  return m;
}

namespace {

// Every triangle side as (smaller vertex << 32 | larger vertex), sorted: an inner edge appears twice.
std::vector<uint64_t> sorted_edge_keys(const TriangleMesh& mesh) {
  std::vector<uint64_t> edges;
  edges.reserve(mesh.triangles.size() * 3);
  for (const auto& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = t[k], b = t[(k + 1) % 3];
      edges.push_back((static_cast<uint64_t>(std::min(a, b)) << 32) | std::max(a, b));
    }
  std::sort(edges.begin(), edges.end());
  return edges;
}

}  // namespace

int64_t count_boundary_edges(const TriangleMesh& mesh) {
  const std::vector<uint64_t> edges = sorted_edge_keys(mesh);
  int64_t boundary = 0;
  for (size_t i = 0; i < edges.size();) {
    size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) ++boundary;
    i = j;
  }
  return boundary;
}

std::vector<int> vertex_valences(const TriangleMesh& mesh) {
  std::vector<uint64_t> edges = sorted_edge_keys(mesh);
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<int> valence(mesh.vertices.size(), 0);
  for (uint64_t e : edges) {
    const uint64_t a = e >> 32, b = e & 0xffffffffull;
    if (a < valence.size()) ++valence[a];
    if (b < valence.size()) ++valence[b];
  }
  return valence;
}

// ------------------------------------------------------------------------------- irregular meshes, graphs

namespace {

uint64_t edge_key(int a, int b) {
  return (static_cast<uint64_t>(std::min(a, b)) << 32) | static_cast<uint32_t>(std::max(a, b));
}

// 4 sqrt(3) area / sum of squared edges: 1 for an equilateral triangle, 0 for a degenerate one.
double triangle_quality(const Point3& p, const Point3& q, const Point3& r) {
  const Point3 u = sub(q, p), v = sub(r, p), w = sub(r, q);
  const double sum = dot(u, u) + dot(v, v) + dot(w, w);
  return sum > 0 ? 2 * std::sqrt(3.0) * norm(cross(u, v)) / sum : 0.0;
}

}  // namespace

TriangleMesh flip_edges(const TriangleMesh& mesh, double fraction, uint64_t seed) {
  if (!(fraction >= 0 && fraction <= 1)) throw InvalidArgument("flip_edges: fraction must be in [0, 1]");
  const int64_t n = static_cast<int64_t>(mesh.vertices.size());
  check_elements<3>(n, mesh.triangles, "triangle");
  TriangleMesh m = mesh;
  auto& tri = m.triangles;
  const int64_t num_tri = static_cast<int64_t>(tri.size());
  // edge -> the two triangles holding it; vertex -> valence. Lookups only: the result does not depend on
  // the hash map's iteration order.
  std::unordered_map<uint64_t, std::array<int, 2>> edges;
  edges.reserve(tri.size() * 2);
  for (int t = 0; t < num_tri; ++t)
    for (int k = 0; k < 3; ++k) {
      auto [it, inserted] =
          edges.try_emplace(edge_key(tri[t][k], tri[t][(k + 1) % 3]), std::array<int, 2>{t, -1});
      if (!inserted) {
        if (it->second[1] >= 0)
          throw InvalidArgument("flip_edges: edge " + std::to_string(tri[t][k]) + "-" +
                                std::to_string(tri[t][(k + 1) % 3]) + " has more than two triangles");
        it->second[1] = t;
      }
    }
  std::vector<int> valence(static_cast<size_t>(n), 0);
  for (const auto& [key, ts] : edges) {
    if (ts[1] < 0)
      throw InvalidArgument("flip_edges: the mesh is not closed (edge " + std::to_string(key >> 32) + "-" +
                            std::to_string(key & 0xffffffffull) + " has one triangle)");
    ++valence[key >> 32];
    ++valence[key & 0xffffffffull];
  }
  auto replace = [&](uint64_t key, int from, int to) {
    auto& ts = edges.at(key);
    ts[ts[0] == from ? 0 : 1] = to;
  };
  const int64_t target = static_cast<int64_t>(fraction * static_cast<double>(edges.size()));
  int64_t flips = 0;
  for (int64_t attempt = 0; flips < target && attempt < 8 * target + 16 && num_tri > 0; ++attempt) {
    const uint64_t r = splitmix64(seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(attempt));
    const int t = static_cast<int>((r >> 8) % static_cast<uint64_t>(num_tri));
    const int k = static_cast<int>(r % 3);
    const int a = tri[t][k], b = tri[t][(k + 1) % 3], c = tri[t][(k + 2) % 3];
    const auto& ts = edges.at(edge_key(a, b));
    const int u = ts[0] == t ? ts[1] : ts[0];
    // u holds b -> a (consistent orientation); d is its third vertex.
    int d = -1;
    for (int j = 0; j < 3; ++j)
      if (tri[u][j] == b && tri[u][(j + 1) % 3] == a) d = tri[u][(j + 2) % 3];
    if (d < 0)
      throw InvalidArgument("flip_edges: triangles " + std::to_string(t) + " and " + std::to_string(u) +
                            " are not consistently oriented");
    if (valence[a] <= 3 || valence[b] <= 3 || c == d || edges.count(edge_key(c, d))) continue;
    const Point3 &pa = m.vertices[a], &pb = m.vertices[b], &pc = m.vertices[c], &pd = m.vertices[d];
    const Point3 n1 = cross(sub(pb, pa), sub(pc, pa)), n2 = cross(sub(pa, pb), sub(pd, pb));
    const double l1 = norm(n1), l2 = norm(n2);
    if (!(l1 > 0 && l2 > 0)) continue;
    const Point3 facing{n1[0] / l1 + n2[0] / l2, n1[1] / l1 + n2[1] / l2, n1[2] / l1 + n2[2] / l2};
    if (!(dot(cross(sub(pd, pa), sub(pc, pa)), facing) > 0 &&
          dot(cross(sub(pc, pb), sub(pd, pb)), facing) > 0))
      continue;
    if (triangle_quality(pa, pd, pc) < 0.3 || triangle_quality(pb, pc, pd) < 0.3) continue;
    tri[t] = {a, d, c};
    tri[u] = {b, c, d};
    edges.erase(edge_key(a, b));
    edges.emplace(edge_key(c, d), std::array<int, 2>{t, u});
    replace(edge_key(a, d), u, t);
    replace(edge_key(b, c), t, u);
    --valence[a];
    --valence[b];
    ++valence[c];
    ++valence[d];
    ++flips;
  }
  return m;
}

TetMesh porous_box_tet_mesh(int nx, int ny, int nz, double hole_fraction, uint64_t seed, double jitter) {
  if (!(hole_fraction >= 0 && hole_fraction <= 0.9))
    throw InvalidArgument("porous box: hole fraction must be in [0, 0.9]");
  const TetMesh box = box_tet_mesh(nx, ny, nz, jitter);
  TetMesh m;
  m.tets.reserve(box.tets.size());
  // box_tet_mesh emits the 6 tetrahedra of each cube together, cube after cube.
  for (size_t cube = 0; cube * 6 < box.tets.size(); ++cube)
    if ((hash_unit(seed, cube) + 1) / 2 >= hole_fraction)
      m.tets.insert(m.tets.end(), box.tets.begin() + cube * 6, box.tets.begin() + cube * 6 + 6);
  if (m.tets.empty()) throw InvalidArgument("porous box: every cube was removed");
  std::vector<int> renumber(box.vertices.size(), -1);
  for (const auto& t : m.tets)
    for (int v : t) renumber[v] = 0;
  for (size_t v = 0; v < box.vertices.size(); ++v)
    if (renumber[v] == 0) {
      renumber[v] = static_cast<int>(m.vertices.size());
      m.vertices.push_back(box.vertices[v]);
    }
  for (auto& t : m.tets)
    for (int& v : t) v = renumber[v];
  return m;
}

HostMatrix rmat_graph(int32_t n, int edge_factor, double a, double b, double c, uint64_t seed) {
  if (n < 1 || edge_factor < 1) throw InvalidArgument("rmat_graph: needs n >= 1 and edge_factor >= 1");
  if (!(a > 0 && b >= 0 && c >= 0 && a + b + c < 1))
    throw InvalidArgument("rmat_graph: needs a > 0, b, c >= 0 and a + b + c < 1");
  const int64_t num_edges = static_cast<int64_t>(edge_factor) * n;
  if (2 * num_edges + n > std::numeric_limits<int32_t>::max())
    throw InvalidArgument("rmat_graph: more than 2^31-1 entries");
  int levels = 0;
  while ((int64_t{1} << levels) < n) ++levels;
  // Quadrant thresholds out of 2^16: exact integers, so the draws are the same on every platform.
  const auto ta = static_cast<uint32_t>(std::lround(a * 65536));
  const auto tb = ta + static_cast<uint32_t>(std::lround(b * 65536));
  const auto tc = tb + static_cast<uint32_t>(std::lround(c * 65536));
  // Each undirected edge once, as (min, max), and the diagonal: half the sorting of both directions.
  std::vector<uint64_t> keys;
  keys.reserve(static_cast<size_t>(num_edges + n));
  uint64_t stream = splitmix64(seed ^ 0x726d6174ull);
  for (int64_t e = 0; e < num_edges;) {
    uint64_t u = 0, v = 0, bits = 0;
    for (int l = 0; l < levels; ++l) {
      if (l % 4 == 0) bits = splitmix64(stream++);
      const auto draw = static_cast<uint32_t>(bits & 0xffff);
      bits >>= 16;
      const uint64_t right = draw >= ta && (draw < tb || draw >= tc);  // quadrants b and d
      const uint64_t down = draw >= tb;                                // quadrants c and d
      u = 2 * u + down;
      v = 2 * v + right;
    }
    if (u >= static_cast<uint64_t>(n) || v >= static_cast<uint64_t>(n)) continue;
    keys.push_back(std::min(u, v) << 32 | std::max(u, v));
    ++e;
  }
  for (uint64_t i = 0; i < static_cast<uint64_t>(n); ++i) keys.push_back(i << 32 | i);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  HostMatrix m;
  m.entry = EntryRegistry::instance().get("real");
  m.rows = m.cols = n;
  m.row_ptr.assign(static_cast<size_t>(n) + 1, 0);
  for (uint64_t k : keys) {
    const auto u = static_cast<int32_t>(k >> 32), v = static_cast<int32_t>(k & 0xffffffffull);
    ++m.row_ptr[u + 1];
    if (u != v) ++m.row_ptr[v + 1];
  }
  for (int32_t i = 0; i < n; ++i) m.row_ptr[i + 1] += m.row_ptr[i];
  m.col_idx.resize(m.row_ptr[n]);
  m.values.resize(m.row_ptr[n]);
  // Keys in (u, v) order fill row r first with its u < r (from keys (u, r)), then its v >= r: sorted rows.
  std::vector<int32_t> fill(m.row_ptr.begin(), m.row_ptr.end() - 1);
  std::vector<double> diagonal(static_cast<size_t>(n), 1.0);
  const uint64_t value_seed = splitmix64(seed ^ 0x76616c7565ull);
  for (uint64_t k : keys) {
    const auto u = static_cast<int32_t>(k >> 32), v = static_cast<int32_t>(k & 0xffffffffull);
    if (u == v) {
      m.col_idx[fill[u]++] = u;  // its value once the row's weights are summed
      continue;
    }
    // The same weight for (u, v) and (v, u): keyed by the unordered pair.
    const double w = 0.75 + 0.25 * hash_unit(value_seed, k);
    m.col_idx[fill[u]] = v;
    m.values[fill[u]++] = -w;
    m.col_idx[fill[v]] = u;
    m.values[fill[v]++] = -w;
    diagonal[u] += w;
    diagonal[v] += w;
  }
  for (int32_t i = 0; i < n; ++i) {
    const auto row = m.col_idx.begin() + m.row_ptr[i];
    m.values[std::lower_bound(row, m.col_idx.begin() + m.row_ptr[i + 1], i) - m.col_idx.begin()] =
        diagonal[i];
  }
  return m;
}

// --------------------------------------------------------------------------------------------- operators

CurvatureFunction default_curvature(const TriangleMesh& mesh) {
  Point3 lo{0, 0, 0}, hi{1, 1, 1};
  if (!mesh.vertices.empty()) {
    lo = hi = mesh.vertices[0];
    for (const auto& p : mesh.vertices)
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], p[k]);
        hi[k] = std::max(hi[k], p[k]);
      }
  }
  double diag = norm(sub(hi, lo));
  if (!(diag > 0)) diag = 1;
  return [lo, diag](const Point3& c) {
    const double u = (c[0] - lo[0]) / diag, v = (c[1] - lo[1]) / diag, w = (c[2] - lo[2]) / diag;
    return (2 + std::sin(2 * kPi * u) * std::cos(2 * kPi * v) + 0.5 * std::sin(2 * kPi * w)) / diag;
  };
}

HostMatrix dirac_operator(const TriangleMesh& mesh, const CurvatureFunction& rho_in) {
  const CurvatureFunction rho = rho_in ? rho_in : default_curvature(mesh);
  const double floor = 1e-14 * std::pow(bounding_diagonal(mesh.vertices), 2);
  return assemble<3>("quaternion", static_cast<int64_t>(mesh.vertices.size()), mesh.triangles, "triangle",
                     [&](size_t f, double* out) {
                       const auto& t = mesh.triangles[f];
                       const Point3 &p0 = mesh.vertices[t[0]], &p1 = mesh.vertices[t[1]],
                                    &p2 = mesh.vertices[t[2]];
                       const Point3 e[3] = {sub(p2, p1), sub(p0, p2), sub(p1, p0)};
                       const double area = norm(cross(e[2], sub(p2, p0))) / 2;
                       if (!(area > floor))
                         throw InvalidArgument(element_name("triangle", f, t.data(), 3) + " has zero area");
                       const Point3 centroid{(p0[0] + p1[0] + p2[0]) / 3, (p0[1] + p1[1] + p2[1]) / 3,
                                             (p0[2] + p1[2] + p2[2]) / 3};
                       const double r = rho(centroid);
                       const double s = 1 / (4 * area), real = area * r * r / 9;
                       for (int a = 0; a < 3; ++a)
                         for (int b = 0; b < 3; ++b) {
                           // For imaginary quaternions e_a e_b = (-e_a.e_b, e_a x e_b).
                           const Point3 c = cross(e[a], e[b]);
                           double* q = out + (a * 3 + b) * 4;
                           q[0] = dot(e[a], e[b]) * s + real;
                           for (int k = 0; k < 3; ++k) q[1 + k] = -c[k] * s + r * (e[b][k] - e[a][k]) / 6;
                         }
                     });
}

Lame lame_parameters(double young, double poisson) {
  if (!(young > 0) || !(poisson > -1 && poisson < 0.5))
    throw InvalidArgument("elasticity needs Young's modulus > 0 and Poisson's ratio in (-1, 0.5)");
  return {young * poisson / ((1 + poisson) * (1 - 2 * poisson)), young / (2 * (1 + poisson))};
}

HostMatrix elasticity_matrix(const TetMesh& mesh, Lame lame) {
  const double floor = volume_floor(mesh.vertices);
  return assemble<4>("block3", static_cast<int64_t>(mesh.vertices.size()), mesh.tets, "tetrahedron",
                     [&](size_t e, double* out) {
                       const TetGeometry g = tet_geometry(mesh, e, floor);
                       const double v = g.volume;
                       for (int a = 0; a < 4; ++a)
                         for (int b = 0; b < 4; ++b) {
                           double* blk = out + (a * 4 + b) * 9;
                           const double gg = dot(g.g[a], g.g[b]);
                           for (int i = 0; i < 3; ++i)
                             for (int j = 0; j < 3; ++j)
                               blk[i * 3 + j] =
                                   v * (lame.lambda * g.g[a][i] * g.g[b][j] +
                                        lame.mu * g.g[b][i] * g.g[a][j] + (i == j ? lame.mu * gg : 0));
                         }
                     });
}

HostMatrix laplacian_matrix(const TetMesh& mesh) {
  const double floor = volume_floor(mesh.vertices);
  return assemble<4>("real", static_cast<int64_t>(mesh.vertices.size()), mesh.tets, "tetrahedron",
                     [&](size_t e, double* out) {
                       const TetGeometry g = tet_geometry(mesh, e, floor);
                       for (int a = 0; a < 4; ++a)
                         for (int b = 0; b < 4; ++b) out[a * 4 + b] = g.volume * dot(g.g[a], g.g[b]);
                     });
}

HostMatrix helmholtz_matrix(const TetMesh& mesh, double wavenumber, double damping) {
  const double k =
      wavenumber > 0 ? wavenumber : (mesh.tets.empty() ? 1.0 : 2 * kPi / (10 * mean_element_size(mesh)));
  const double eps = damping >= 0 ? damping : 0.1 * k * k;
  const double floor = volume_floor(mesh.vertices);
  return assemble<4>("complex", static_cast<int64_t>(mesh.vertices.size()), mesh.tets, "tetrahedron",
                     [&](size_t e, double* out) {
                       const TetGeometry g = tet_geometry(mesh, e, floor);
                       for (int a = 0; a < 4; ++a)
                         for (int b = 0; b < 4; ++b) {
                           const double mass = g.volume / 20 * (a == b ? 2 : 1);
                           out[(a * 4 + b) * 2] = g.volume * dot(g.g[a], g.g[b]) - k * k * mass;
                           out[(a * 4 + b) * 2 + 1] = eps * mass;
                         }
                     });
}

std::vector<std::string> builtin_families() {
  return {"dirac", "elasticity", "helmholtz", "laplacian", "graph"};
}

bool family_uses_mesh(const std::string& family) {
  if (family == "dirac" || family == "elasticity" || family == "helmholtz" || family == "laplacian")
    return true;
  if (family == "graph") return false;
  throw InvalidArgument("unknown matrix family '" + family +
                        "' (dirac, elasticity, helmholtz, laplacian, graph)");
}

bool family_uses_triangles(const std::string& family) {
  if (!family_uses_mesh(family))
    throw InvalidArgument(
        "family '" + family +
        "' is built from no mesh (R-MAT graphs are generated: see the train_graph_* "
        "built-ins); mesh families: dirac (triangle mesh), elasticity, helmholtz, laplacian "
        "(tetrahedral mesh)");
  return family == "dirac";
}

std::string family_entry(const std::string& family) {
  family_uses_mesh(family);  // validates the name
  return family == "dirac"        ? "quaternion"
         : family == "elasticity" ? "block3"
         : family == "helmholtz"  ? "complex"
                                  : "real";
}

HostMatrix family_matrix(const std::string& family, const TriangleMesh& mesh) {
  if (!family_uses_triangles(family))
    throw InvalidArgument("family '" + family +
                          "' needs a tetrahedral mesh (TetGen .node/.ele), not a surface");
  return dirac_operator(mesh);
}

HostMatrix family_matrix(const std::string& family, const TetMesh& mesh) {
  if (family_uses_triangles(family))
    throw InvalidArgument("family '" + family +
                          "' needs a triangle mesh (OFF, OBJ, PLY), not a tetrahedral one");
  if (family == "elasticity") return elasticity_matrix(mesh);
  if (family == "helmholtz") return helmholtz_matrix(mesh);
  return laplacian_matrix(mesh);
}

// ------------------------------------------------------------------------------------------- the set

namespace {

// 64-bit FNV-1a of a name: the seed of a train matrix's flips, holes, graph and random order.
uint64_t name_seed(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

// The training set (builtin_specs("train")). mesh: ico (icosphere, a = level), torus (a x b grid), icoflip /
// torusflip (the same with pct % of the edges flipped), box (a x b x c Kuhn cubes), porous (the same with
// pct % of the cubes removed), rmat (R-MAT graph, a vertices, b edges per vertex, Graph500 quadrants
// 0.57/0.19/0.19) and rmat45 (milder skew, 0.45/0.22/0.22).
struct TrainRow {
  const char* family;
  const char* mesh;
  int a, b, c, pct;
  const char* order;  // natural, random, scan
  const char* label;  // about the compulsory MB in double
};
// Measured rows, entries, compulsory MB in double: see the table in builtin_matrices.hpp.
constexpr TrainRow kTrainRows[] = {
    {"dirac", "ico", 3, 0, 0, 0, "natural", "200kb"},
    {"dirac", "icoflip", 4, 0, 0, 30, "random", "800kb"},
    {"dirac", "ico", 5, 0, 0, 0, "scan", "3mb"},
    {"dirac", "icoflip", 6, 0, 0, 30, "natural", "13mb"},
    {"dirac", "torus", 256, 240, 0, 0, "random", "20mb"},
    {"dirac", "torusflip", 384, 320, 0, 30, "scan", "39mb"},
    {"dirac", "icoflip", 7, 0, 0, 30, "random", "52mb"},
    {"dirac", "torus", 512, 368, 0, 0, "scan", "60mb"},
    {"dirac", "torusflip", 640, 512, 0, 30, "natural", "105mb"},
    {"dirac", "torus", 80, 76, 0, 0, "scan", "2mb"},
    {"dirac", "torusflip", 180, 170, 0, 30, "random", "10mb"},
    {"dirac", "torus", 320, 288, 0, 0, "natural", "30mb"},

    {"elasticity", "box", 6, 5, 4, 0, "scan", "200kb"},
    {"elasticity", "porous", 11, 9, 9, 40, "random", "1mb"},
    {"elasticity", "box", 15, 13, 12, 0, "natural", "3mb"},
    {"elasticity", "box", 18, 16, 15, 0, "natural", "6mb"},
    {"elasticity", "porous", 30, 26, 24, 40, "natural", "20mb"},
    {"elasticity", "box", 34, 30, 28, 0, "random", "36mb"},
    {"elasticity", "porous", 42, 36, 32, 40, "scan", "52mb"},
    {"elasticity", "box", 40, 36, 32, 0, "scan", "57mb"},
    {"elasticity", "porous", 46, 38, 34, 40, "random", "64mb"},
    {"elasticity", "box", 13, 11, 11, 0, "random", "2mb"},
    {"elasticity", "porous", 24, 20, 18, 40, "scan", "10mb"},
    {"elasticity", "box", 32, 28, 26, 0, "natural", "30mb"},

    {"helmholtz", "box", 10, 8, 8, 0, "random", "250kb"},
    {"helmholtz", "porous", 17, 15, 13, 40, "natural", "1mb"},
    {"helmholtz", "porous", 24, 20, 18, 40, "scan", "3mb"},
    {"helmholtz", "box", 30, 26, 22, 0, "natural", "6mb"},
    {"helmholtz", "porous", 48, 40, 36, 40, "scan", "21mb"},
    {"helmholtz", "box", 56, 48, 40, 0, "scan", "37mb"},
    {"helmholtz", "porous", 66, 56, 46, 40, "random", "52mb"},
    {"helmholtz", "box", 64, 56, 48, 0, "random", "60mb"},
    {"helmholtz", "porous", 70, 58, 48, 40, "natural", "59mb"},
    {"helmholtz", "box", 20, 17, 16, 0, "scan", "2mb"},
    {"helmholtz", "porous", 36, 30, 28, 40, "random", "10mb"},
    {"helmholtz", "box", 50, 44, 38, 0, "natural", "29mb"},

    {"laplacian", "box", 12, 10, 9, 0, "natural", "250kb"},
    {"laplacian", "porous", 21, 17, 15, 40, "random", "1mb"},
    {"laplacian", "box", 36, 30, 26, 0, "scan", "6mb"},
    {"laplacian", "porous", 60, 48, 40, 40, "natural", "21mb"},
    {"laplacian", "box", 66, 56, 48, 0, "random", "36mb"},
    {"laplacian", "porous", 84, 68, 54, 40, "scan", "56mb"},
    {"laplacian", "box", 80, 64, 56, 0, "natural", "59mb"},
    {"laplacian", "porous", 88, 74, 58, 40, "random", "68mb"},
    {"laplacian", "box", 96, 80, 64, 0, "scan", "100mb"},
    {"laplacian", "box", 24, 20, 18, 0, "random", "2mb"},
    {"laplacian", "porous", 46, 38, 30, 40, "scan", "10mb"},
    {"laplacian", "box", 62, 52, 44, 0, "natural", "29mb"},

    {"graph", "rmat", 1400, 8, 0, 0, "natural", "250kb"},
    {"graph", "rmat45", 5000, 8, 0, 0, "random", "1mb"},
    {"graph", "rmat", 29000, 8, 0, 0, "random", "6mb"},
    {"graph", "rmat45", 90000, 8, 0, 0, "natural", "20mb"},
    {"graph", "rmat", 190000, 8, 0, 0, "natural", "40mb"},
    {"graph", "rmat45", 245000, 8, 0, 0, "random", "55mb"},
    {"graph", "rmat", 262000, 8, 0, 0, "random", "56mb"},
    {"graph", "rmat45", 310000, 8, 0, 0, "natural", "70mb"},
    {"graph", "rmat", 460000, 8, 0, 0, "random", "99mb"},
    {"graph", "rmat45", 10000, 8, 0, 0, "natural", "2mb"},
    {"graph", "rmat", 48000, 8, 0, 0, "natural", "10mb"},
    {"graph", "rmat45", 135000, 8, 0, 0, "random", "30mb"},
};

// The irregular set (builtin_specs("irregular")): one matrix per family, irregular valence or skewed rows, in
// random or scanner-like orders, each at least 4x the 50 MB L2 of an H100 in double (the measured sizes
// are in builtin_matrices.hpp). Not in "all": tuning them takes minutes, the main job must not.
constexpr TrainRow kIrregularRows[] = {
    {"dirac", "torusflip", 1024, 800, 0, 30, "scan", "260mb"},
    {"elasticity", "porous", 73, 60, 54, 40, "random", "250mb"},
    {"helmholtz", "porous", 112, 93, 77, 40, "scan", "240mb"},
    {"laplacian", "porous", 136, 114, 90, 40, "random", "250mb"},
    {"graph", "rmat", 1200000, 8, 0, 0, "random", "260mb"},
};

// The irregular matrices of the main job's set ("large", "all"), named <family>_irregular: one per family,
// 1.4-2.2x the 50 MB L2 of an H100 in double, so that a matrix nobody tuned finds irregular neighbours of
// its own family in the database (the selection model); small enough to keep tuning the set near 100 s.
constexpr TrainRow kMainIrregularRows[] = {
    {"dirac", "torusflip", 600, 480, 0, 30, "random", ""},
    {"elasticity", "porous", 50, 42, 38, 40, "scan", ""},
    {"helmholtz", "porous", 74, 62, 52, 40, "random", ""},
    {"laplacian", "porous", 100, 84, 66, 40, "scan", ""},
    {"graph", "rmat", 420000, 8, 0, 0, "random", ""},
};

// The tiny matrices of the main job's set ("tiny", "all"), named <family>_tiny: one per family at about 2 MB in
// double, irregular, in an order and mesh kind that no training matrix of that size has. Matrices this small
// run in 1-3 us, where launch and tail latency, not bandwidth, pick the kernel (few threads per row, small
// blocks): without them a matrix nobody tuned found only 6-13 MB neighbours in the main job's database
// (NOTES.md, twenty-eighth and twenty-ninth sessions).
constexpr TrainRow kMainTinyRows[] = {
    {"dirac", "torusflip", 84, 76, 0, 30, "natural", ""},
    {"elasticity", "porous", 14, 12, 11, 40, "scan", ""},
    {"helmholtz", "porous", 21, 17, 17, 40, "random", ""},
    {"laplacian", "porous", 25, 21, 20, 40, "scan", ""},
    {"graph", "rmat", 9000, 8, 0, 0, "natural", ""},
};

std::string order_description(const std::string& order, const std::string& mesh) {
  if (order == "random") return "random order (vertices renumbered by a seeded shuffle)";
  if (order == "scan") {
    if (mesh == "ico" || mesh == "icoflip") return "scan order (z slabs, by x within a slab)";
    if (mesh == "torus" || mesh == "torusflip") return "scan order (x slabs, by y within a slab)";
    return "scan order (z slabs of about 2.5 cubes, by x within a slab)";
  }
  return "natural order (the generator's)";
}

// set: "train" or "irregular" (the name's prefix and the spec's size); name: a name of its own instead.
BuiltinSpec train_spec(const TrainRow& r, const std::string& set = "train", const std::string& own_name = "") {
  BuiltinSpec s;
  s.family = r.family;
  s.entry = family_entry(r.family);
  s.size = set;
  s.order = r.order;
  const std::string mesh = r.mesh, order = r.order, family = r.family;
  s.regular = mesh == "ico" || mesh == "torus" || mesh == "box";
  s.name = own_name.empty() ? set + "_" + family + "_" + mesh + "_" + order + "_" + r.label : own_name;
  const std::string name = s.name;
  const uint64_t seed = name_seed(name);
  const int a = r.a, b = r.b, c = r.c;
  const double pct = r.pct / 100.0;
  const std::string dims = std::to_string(a) + " x " + std::to_string(b) + " x " + std::to_string(c);
  std::string source;
  if (mesh == "ico")
    source = "unit icosphere, level " + std::to_string(a);
  else if (mesh == "icoflip")
    source = "unit icosphere, level " + std::to_string(a);
  else if (mesh == "torus" || mesh == "torusflip")
    source = "torus grid " + std::to_string(a) + " x " + std::to_string(b) + " (radii 1, 0.4)";
  else if (mesh == "box")
    source = "box of " + dims + " Kuhn cubes (6 tetrahedra each), jittered interior";
  else if (mesh == "porous")
    source = "porous box: " + dims + " Kuhn cubes, " + std::to_string(r.pct) + "% of them removed at random";
  else if (mesh == "rmat")
    source = "R-MAT graph, " + std::to_string(a) + " vertices, " + std::to_string(b) +
             " edges per vertex, quadrants 0.57/0.19/0.19/0.05, symmetric";
  else
    source = "R-MAT graph, " + std::to_string(a) + " vertices, " + std::to_string(b) +
             " edges per vertex, quadrants 0.45/0.22/0.22/0.11, symmetric";
  if (mesh == "icoflip" || mesh == "torusflip")
    source += ", " + std::to_string(r.pct) + "% of the edges flipped at random";
  s.description =
      source + "; " + (s.regular ? "regular" : "irregular") + ", " + order_description(order, mesh);
  s.make = [=] {
    HostMatrix m;
    std::vector<Point3> points;  // for the scan order
    int slab_axis = 2, line_axis = 0, slabs = 1;
    if (mesh == "rmat" || mesh == "rmat45") {
      m = mesh == "rmat" ? rmat_graph(a, b, 0.57, 0.19, 0.19, seed)
                         : rmat_graph(a, b, 0.45, 0.22, 0.22, seed);
    } else if (mesh == "box" || mesh == "porous") {
      const TetMesh t = mesh == "box" ? box_tet_mesh(a, b, c) : porous_box_tet_mesh(a, b, c, pct, seed);
      m = family_matrix(family, t);
      if (order == "scan") points = t.vertices;
      slabs = std::max(1, 2 * c / 5);
    } else {
      TriangleMesh t = mesh == "ico" || mesh == "icoflip" ? icosphere(a) : torus(a, b);
      if (mesh == "icoflip" || mesh == "torusflip") t = flip_edges(t, pct, seed);
      m = dirac_operator(t);
      if (order == "scan") points = t.vertices;
      if (mesh == "torus" || mesh == "torusflip") slab_axis = 0, line_axis = 1;
      slabs =
          std::max(1, static_cast<int>(std::lround(std::sqrt(static_cast<double>(t.vertices.size())) / 2)));
    }
    if (order == "random")
      m = permute_symmetric(m, random_permutation(m.rows, seed ^ 0x6f72646572ull));
    else if (order == "scan")
      m = permute_symmetric(m, scan_permutation(points, slab_axis, line_axis, slabs));
    name_matrix(m, name);
    return m;
  };
  return s;
}

bool is_builtin_set(const std::string& which) {
  return which == "small" || which == "tiny" || which == "large" || which == "all" || which == "train" ||
         which == "irregular";
}

}  // namespace

std::vector<BuiltinSpec> builtin_specs(const std::string& which) {
  if (!is_builtin_set(which))
    throw InvalidArgument("built-in set '" + which + "': expected one of " + kBuiltinSetNames);
  if (which == "train" || which == "irregular") {
    std::vector<BuiltinSpec> specs;
    if (which == "train")
      for (const auto& r : kTrainRows) specs.push_back(train_spec(r));
    else
      for (const auto& r : kIrregularRows) specs.push_back(train_spec(r, which));
    return specs;
  }
  // Boxes are not cubes, so the row strides differ between the directions.
  struct Row {
    const char* family;
    const char* size;
    int a, b, c;  // icosphere: level; torus: n_major, n_minor; box: nx, ny, nz
    const char* shape;
  };
  // rows, entries, compulsory MB in double / float (measured; the whole large set builds in ~2-3 s on one
  // core).
  static const Row rows[] = {
      {"dirac", "small", 6, 0, 0, "icosphere"},    // 40,962 rows, 286,722 entries, 13.1 / 7.2 MB
      {"elasticity", "small", 24, 20, 20, "box"},  // 11,025 rows, 153,713 blocks, 12.3 / 6.5 MB
      {"helmholtz", "small", 40, 32, 28, "box"},   // 39,237 rows, 560,973 entries, 12.6 / 7.5 MB
      {"laplacian", "small", 48, 40, 32, "box"},   // 66,297 rows, 955,113 entries, 12.8 / 8.4 MB
      {"dirac", "large", 1024, 512, 0, "torus"},   // 524,288 rows, 3,670,016 entries, 167.8 / 92.3 MB
      {"elasticity", "large", 64, 48, 48, "box"},  // 156,065 rows, 2,271,457 blocks, 180.7 / 95.2 MB
      {"helmholtz", "large", 104, 88, 72, "box"},  // 682,185 rows, 10,045,785 entries, 225.5 / 134.2 MB
      {"laplacian", "large", 120, 96, 80, "box"},  // 950,697 rows, 14,026,489 entries, 187.3 / 123.6 MB
  };
  std::vector<BuiltinSpec> specs;
  for (const auto& r : rows) {
    if (which != "all" && which != r.size) continue;
    BuiltinSpec s;
    s.family = r.family;
    s.size = r.size;
    s.name = std::string(r.family) + "_" + r.size;
    s.entry = family_entry(r.family);
    const std::string shape = r.shape;
    const int a = r.a, b = r.b, c = r.c;
    const std::string family = r.family, name = s.name;
    if (shape == "icosphere") {
      s.description = "unit icosphere, level " + std::to_string(a);
      s.make = [=] {
        HostMatrix m = dirac_operator(icosphere(a));
        name_matrix(m, name);
        return m;
      };
    } else if (shape == "torus") {
      s.description = "torus grid " + std::to_string(a) + " x " + std::to_string(b) + " (radii 1, 0.4)";
      s.make = [=] {
        HostMatrix m = dirac_operator(torus(a, b));
        name_matrix(m, name);
        return m;
      };
    } else {
      s.description = "box of " + std::to_string(a) + " x " + std::to_string(b) + " x " + std::to_string(c) +
                      " Kuhn cubes (6 tetrahedra each), jittered interior";
      s.make = [=] {
        HostMatrix m = family_matrix(family, box_tet_mesh(a, b, c));
        name_matrix(m, name);
        return m;
      };
    }
    s.description += "; regular, natural order";
    specs.push_back(std::move(s));
  }
  if (which == "tiny" || which == "all")
    for (const auto& r : kMainTinyRows) specs.push_back(train_spec(r, "tiny", std::string(r.family) + "_tiny"));
  if (which == "large" || which == "all")
    for (const auto& r : kMainIrregularRows) specs.push_back(train_spec(r, "large", std::string(r.family) + "_irregular"));
  return specs;
}

std::vector<BuiltinMatrix> builtin_set(const std::string& which) {
  std::vector<BuiltinMatrix> set;
  for (const auto& s : builtin_specs(which)) set.push_back({s.name, s.family, s.entry, s.make()});
  return set;
}

namespace {
// The spec of one built-in matrix of any set, by name; throws InvalidArgument listing the names.
BuiltinSpec named_spec(const std::string& name) {
  std::string names;
  for (const char* which : {"all", "train", "irregular"})
    for (const auto& s : builtin_specs(which)) {
      if (s.name == name) return s;
      names += (names.empty() ? "" : ", ") + s.name;
    }
  throw InvalidArgument("no built-in matrix '" + name + "' (known: " + names + ")");
}
}  // namespace

BuiltinMatrix builtin_matrix(const std::string& name) {
  const BuiltinSpec s = named_spec(name);
  return {s.name, s.family, s.entry, s.make()};
}

std::vector<BuiltinSpec> builtin_specs_or_named(const std::string& which) {
  if (is_builtin_set(which)) return builtin_specs(which);
  try {
    return {named_spec(which)};
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("not a built-in set (") + kBuiltinSetNames + ") and " + e.what());
  }
}

}  // namespace jitsparse
