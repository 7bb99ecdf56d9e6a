#include "tuner/builtin_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "core/entry_type.hpp"
#include "core/error.hpp"

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

int64_t count_boundary_edges(const TriangleMesh& mesh) {
  std::vector<uint64_t> edges;
  edges.reserve(mesh.triangles.size() * 3);
  for (const auto& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = t[k], b = t[(k + 1) % 3];
      edges.push_back((static_cast<uint64_t>(std::min(a, b)) << 32) | std::max(a, b));
    }
  std::sort(edges.begin(), edges.end());
  int64_t boundary = 0;
  for (size_t i = 0; i < edges.size();) {
    size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) ++boundary;
    i = j;
  }
  return boundary;
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

std::vector<std::string> builtin_families() { return {"dirac", "elasticity", "helmholtz", "laplacian"}; }

bool family_uses_triangles(const std::string& family) {
  if (family == "dirac") return true;
  if (family == "elasticity" || family == "helmholtz" || family == "laplacian") return false;
  throw InvalidArgument("unknown matrix family '" + family + "' (dirac, elasticity, helmholtz, laplacian)");
}

std::string family_entry(const std::string& family) {
  family_uses_triangles(family);  // validates the name
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

std::vector<BuiltinSpec> builtin_specs(const std::string& which) {
  if (which != "small" && which != "large" && which != "all")
    throw InvalidArgument("built-in set '" + which + "': expected small, large or all");
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
    specs.push_back(std::move(s));
  }
  return specs;
}

std::vector<BuiltinMatrix> builtin_set(const std::string& which) {
  std::vector<BuiltinMatrix> set;
  for (const auto& s : builtin_specs(which)) set.push_back({s.name, s.family, s.entry, s.make()});
  return set;
}

BuiltinMatrix builtin_matrix(const std::string& name) {
  std::string names;
  for (const auto& s : builtin_specs("all")) {
    if (s.name == name) return {s.name, s.family, s.entry, s.make()};
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw InvalidArgument("no built-in matrix '" + name + "' (known: " + names + ")");
}

}  // namespace jitsparse
