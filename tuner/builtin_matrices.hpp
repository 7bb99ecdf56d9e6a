#pragma once
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"
#include "io/mesh.hpp"

namespace jitsparse {

using Point3 = std::array<double, 3>;

// ---- meshes generated on the fly (deterministic: the same call gives bit-identical meshes)

// Unit sphere from a subdivided icosahedron: 10*4^level + 2 vertices, 20*4^level triangles, outward.
TriangleMesh icosphere(int level);
// Torus grid (n_major x n_minor vertices, every vertex of valence 6), radii R > r > 0, outward.
TriangleMesh torus(int n_major, int n_minor, double major_radius = 1.0, double minor_radius = 0.4);
// Box of nx x ny x nz cubes of side h = 1/max(nx,ny,nz), each split into 6 Kuhn tetrahedra (all sharing
// the cube's main diagonal, so neighbours match), positively oriented. Interior vertices move by a
// deterministic pseudo-random offset of at most jitter*h per coordinate so that elements differ
// (jitter <= 0.2 keeps every tetrahedron positive). Vertex (i,j,k) is i + (nx+1)*(j + (ny+1)*k).
TetMesh box_tet_mesh(int nx, int ny, int nz, double jitter = 0.1);

// Edges used by exactly one triangle: 0 for a closed surface.
int64_t count_boundary_edges(const TriangleMesh& mesh);

// ---- operators (each throws InvalidArgument on a degenerate element, naming it)

using CurvatureFunction = std::function<double(const Point3& centroid)>;
// A smooth, positive curvature change: (2 + sin(2 pi u) cos(2 pi v) + sin(2 pi w)/2) / L, where u,v,w are
// the centroid's coordinates relative to the bounding box and L its diagonal (rho has units 1/length).
CurvatureFunction default_curvature(const TriangleMesh& mesh);
// Quaternionic Dirac operator of Crane, Pinkall and Schroeder (2011), entry "quaternion", vertices x
// vertices. Per triangle (i0,i1,i2) with area A, edges e0 = p2-p1, e1 = p0-p2, e2 = p1-p0 as imaginary
// quaternions and rho = rho(centroid), for all a, b in {0,1,2}: D[i_a][i_b] += -e_a e_b/(4A) + rho (e_b -
// e_a)/6 + A rho^2/9. An empty rho means default_curvature(mesh). D is quaternion-Hermitian (D_ba =
// conj(D_ab)); with rho = 0 its real part is the cotangent Laplacian and D annihilates constant quaternion
// fields.
HostMatrix dirac_operator(const TriangleMesh& mesh, const CurvatureFunction& rho = {});

// Lame parameters from Young's modulus and Poisson's ratio.
struct Lame {
  double lambda;
  double mu;
};
Lame lame_parameters(double young = 1.0, double poisson = 0.3);
// P1 linear elasticity, entry "block3" (row-major 3x3): K_ab += V (lambda g_a g_b^T + mu g_b g_a^T + mu
// g_a.g_b I) with g the barycentric gradients and V the volume. Symmetric (K_ba = K_ab^T), rigid motions in
// its kernel.
HostMatrix elasticity_matrix(const TetMesh& mesh, Lame lame = lame_parameters());
// P1 stiffness (Laplacian), entry "real": symmetric, rows sum to zero.
HostMatrix laplacian_matrix(const TetMesh& mesh);
// K - (k^2 - i eps) M with P1 stiffness K and consistent mass M, entry "complex": complex symmetric.
// wavenumber <= 0 picks 2 pi / (10 h) (ten elements per wavelength, h from the mean element volume);
// damping < 0 picks eps = 0.1 k^2.
HostMatrix helmholtz_matrix(const TetMesh& mesh, double wavenumber = 0, double damping = -1);

// Families by name: "dirac" (triangle mesh) and "elasticity", "helmholtz", "laplacian" (tet mesh).
std::vector<std::string> builtin_families();
bool family_uses_triangles(const std::string& family);  // throws InvalidArgument for an unknown family
std::string family_entry(const std::string& family);    // entry type name of the family's matrices
HostMatrix family_matrix(const std::string& family, const TriangleMesh& mesh);  // dirac only
HostMatrix family_matrix(const std::string& family, const TetMesh& mesh);       // the tet families

// ---- the built-in set: two sizes per family. "small": 5-20 MB of compulsory bytes in double (inside the
// H100's 50 MB L2); "large": 150-250 MB (bandwidth-bound).

struct BuiltinSpec {
  std::string name;         // e.g. "dirac_small"
  std::string family;       // dirac, elasticity, helmholtz, laplacian
  std::string entry;        // quaternion, block3, complex, real
  std::string size;         // small, large
  std::string description;  // the mesh it comes from
  std::function<HostMatrix()> make;
};

struct BuiltinMatrix {
  std::string name;
  std::string family;
  std::string entry;
  HostMatrix matrix;  // matrix.name == name
};

// which: "small", "large" or "all". Specs are cheap; make() generates (a large one takes about a second)
// so a caller can hold one large matrix at a time.
std::vector<BuiltinSpec> builtin_specs(const std::string& which = "all");
std::vector<BuiltinMatrix> builtin_set(const std::string& which = "all");
// One by name; throws InvalidArgument listing the names.
BuiltinMatrix builtin_matrix(const std::string& name);

}  // namespace jitsparse
