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
// Number of distinct neighbours (edges) of each vertex.
std::vector<int> vertex_valences(const TriangleMesh& mesh);

// ---- irregular meshes and graphs (deterministic per seed, platform-independent: splitmix64, no std RNG)

// Random edge flips on a closed, consistently oriented 2-manifold: about fraction * edges flips, each of an
// edge picked by hash. Edge (a,b) with triangles (a,b,c) and (b,a,d) becomes (c,d) with (a,d,c) and
// (b,c,d), only when: a and b keep valence >= 3, c-d is not an edge yet (no duplicate edges), both new
// triangles face the way the old pair did and have quality 4 sqrt(3) area / sum(edge^2) >= 0.3 (no
// degenerate or folded triangle). The result stays closed and manifold, vertices unmoved, with valences
// spread around the mean (fraction 0.3 on an icosphere or torus: 3..13, 95% in 4..9). Throws InvalidArgument
// for a mesh that is not a closed manifold or a fraction outside [0, 1].
TriangleMesh flip_edges(const TriangleMesh& mesh, double fraction, uint64_t seed);
// box_tet_mesh(nx, ny, nz, jitter) with each cube removed (all 6 of its tetrahedra) with probability
// hole_fraction, picked by hash: a porous block whose holes leave vertices 4..14 neighbours (14 for every
// interior vertex of the full box). Vertices no kept tetrahedron uses are dropped and the rest renumbered
// compactly in their original order. Throws InvalidArgument for hole_fraction outside [0, 0.9] or when no
// cube is left.
TetMesh porous_box_tet_mesh(int nx, int ny, int nz, double hole_fraction, uint64_t seed, double jitter = 0.1);
// An undirected R-MAT graph (Chakrabarti, Zhan and Faloutsos 2004; the Graph500 Kronecker generator without
// its noise): edge_factor * n edges, each dropped into quadrant a / b / c / 1-a-b-c of the 2^s x 2^s
// adjacency matrix, level after level (16-bit hashed draws; an edge with an end >= n is drawn again).
// Power-law-like degrees, the hubs at low indices (vertex 0 the largest). Entry "real", symmetric pattern
// and values: -w_ij off the diagonal (w in [0.5, 1) hashed from the pair, duplicate edges and self-loops
// merged) and 1 + sum_j w_ij on it, so every row has its diagonal and the matrix is diagonally dominant.
HostMatrix rmat_graph(int32_t n, int edge_factor, double a, double b, double c, uint64_t seed);

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

// Families by name: "dirac" (triangle mesh), "elasticity", "helmholtz", "laplacian" (tet mesh) and "graph"
// (entry real, an R-MAT graph: generated, built from no mesh).
std::vector<std::string> builtin_families();
bool family_uses_mesh(const std::string& family);  // false for graph; throws InvalidArgument if unknown
// Throws InvalidArgument for an unknown family and for graph (it has no mesh, the message says so).
bool family_uses_triangles(const std::string& family);
std::string family_entry(const std::string& family);  // entry type name of the family's matrices
HostMatrix family_matrix(const std::string& family, const TriangleMesh& mesh);  // dirac only
HostMatrix family_matrix(const std::string& family, const TetMesh& mesh);       // the tet families

// ---- the built-in sets. "small", "tiny" and "large" (= "all", the main job's set).
// "small": 5-20 MB of compulsory bytes in double (inside the H100's 50 MB L2), regular meshes in natural
// order. "large": the regular meshes at 150-250 MB (bandwidth-bound), and <family>_irregular, one per
// family incl. an R-MAT graph, irregular valence or skewed rows in random or scan order, 72-100 MB (1.4-2x
// the L2; measured in double / float: dirac 92.2 / 50.7, elasticity 85.7 / 45.2, helmholtz 72.5 / 43.1,
// laplacian 99.6 / 65.7, graph 90.3 / 59.6 MB; built in 0.6-1.6 s each on one core).
// "tiny": <family>_tiny, one per family, irregular, 1.8-2.1 MB in double (1.1-1.3 in float), in orders and
// mesh kinds no training matrix of that size has: dirac 6,384 rows (torus flips, natural), elasticity 2,303
// (porous, scan), helmholtz 7,046 (porous, random), laplacian 11,893 (porous, scan), graph 9,000 (R-MAT,
// natural, longest row 1,543). The selection model's neighbours for small matrices nobody tuned.
// "irregular": one irregular matrix per family at 240-265 MB in double (at least 4x an H100's L2; f32
// 2.4-2.9x): irregular_dirac_torusflip_scan_260mb (819,200 rows, 5.7M entries), ..._elasticity_porous_
// random_250mb (247,411 rows, 3.1M blocks), ..._helmholtz_porous_scan_240mb (826,602 rows, 10.6M),
// ..._laplacian_porous_random_250mb (1.43M rows, 18.4M), ..._graph_rmat_random_260mb (1.2M rows, 19.8M,
// longest row 41,101). Tuning them takes minutes: bench --builtin irregular, not the main job.
//
// "train": matrices for a model that picks the kernel variant of untuned matrices: 60 over the five
// families (12 each; the last three of each, 2-30 MB, were added in the seventh session), named train_<family>_<mesh>_<order>_<about the compulsory size in double>. Every one is
// generated here (no external data), deterministically (the seeds are hashes of the names). Meshes:
//   ico, torus          icosphere(level) and torus(a, b): regular valence (5-6, 6)
//   icoflip, torusflip  the same after flip_edges(mesh, 0.3): valence 3..13, irregular
//   box                 box_tet_mesh(nx, ny, nz): regular (14 neighbours inside)
//   porous              porous_box_tet_mesh(nx, ny, nz, 0.4): 40% of the cubes removed, irregular (4..14)
//   rmat, rmat45        rmat_graph(n, 8, ...), Graph500 quadrants 0.57/0.19/0.19 or milder 0.45/0.22/0.22:
//                       symmetric, max row / mean row 25..1400, irregular; no mesh
// Orders: natural (the generator's; an icosphere's subdivision order and R-MAT's are far from local
// already), random (random_permutation, seeded by the name) and scan (scan_permutation: z slabs, by x, on
// an icosphere; x slabs, by y, on a torus; sqrt(n)/2 slabs on surfaces; z slabs of about 2.5 cubes, by x, on
// a box). Sizes 0.2-105 MB in double: 43 inside the 50 MB L2, 15 at 1-2x L2, 2 past 100 MB (and one at 99);
// 1676 MB in double (1,000 MB in float) in all, generated in about 18 s on one core, none in more than 2 s.
// (The added rows' MB below are rounded to 0.1.)
// Measured (compulsory MB in double / float):
//   name                                      rows     entries  MB f64    f32
//   train_dirac_ico_natural_200kb              642       4,482    0.21   0.11
//   train_dirac_icoflip_random_800kb         2,562      17,922    0.82   0.45
//   train_dirac_ico_scan_3mb                10,242      71,682    3.28   1.80
//   train_dirac_icoflip_natural_13mb        40,962     286,722   13.11   7.21
//   train_dirac_torus_random_20mb           61,440     430,080   19.66  10.81
//   train_dirac_torusflip_scan_39mb        122,880     860,160   39.32  21.63
//   train_dirac_icoflip_random_52mb        163,842   1,146,882   52.43  28.84
//   train_dirac_torus_scan_60mb            188,416   1,318,912   60.29  33.16
//   train_dirac_torusflip_natural_105mb    327,680   2,293,760  104.86  57.67
//   train_dirac_torus_scan_2mb               6,080      42,560    1.90    1.10
//   train_dirac_torusflip_random_10mb       30,600     214,200    9.80    5.40
//   train_dirac_torus_natural_30mb          92,160     645,120   29.50   16.20
//   train_elasticity_box_scan_200kb            210       2,364    0.19   0.10
//   train_elasticity_porous_random_1mb       1,174      12,836    1.04   0.55
//   train_elasticity_box_natural_3mb         2,912      38,938    3.11   1.64
//   train_elasticity_box_natural_6mb         5,168      70,534    5.63   2.97
//   train_elasticity_porous_natural_20mb    20,785     254,995   20.46  10.78
//   train_elasticity_box_random_36mb        31,465     448,361   35.71  18.82
//   train_elasticity_porous_scan_52mb       52,202     650,778   52.17  27.49
//   train_elasticity_box_scan_57mb          50,061     718,629   57.22  30.15
//   train_elasticity_porous_random_64mb     63,825     798,023   63.97  33.71
//   train_elasticity_box_random_2mb          2,016      26,550    2.10    1.10
//   train_elasticity_porous_scan_10mb        9,878     119,088    9.60    5.00
//   train_elasticity_box_natural_30mb       25,839     366,891   29.20   15.40
//   train_helmholtz_box_random_250kb           891      11,247    0.26   0.15
//   train_helmholtz_porous_natural_1mb       3,979      46,487    1.07   0.64
//   train_helmholtz_porous_scan_3mb          9,878     119,486    2.75   1.63
//   train_helmholtz_box_natural_6mb         19,251     271,719    6.13   3.65
//   train_helmholtz_porous_scan_21mb        73,987     927,875   21.22  12.61
//   train_helmholtz_box_scan_37mb          114,513   1,661,169   37.35  22.22
//   train_helmholtz_porous_random_52mb     178,747   2,265,001   51.73  30.75
//   train_helmholtz_box_random_60mb        181,545   2,646,393   59.46  35.39
//   train_helmholtz_porous_natural_59mb    204,550   2,598,668   59.34  35.28
//   train_helmholtz_box_scan_2mb             6,426      88,284    2.00    1.20
//   train_helmholtz_porous_random_10mb      33,049     409,245    9.40    5.60
//   train_helmholtz_box_natural_29mb        89,505   1,294,801   29.10   17.30
//   train_laplacian_box_natural_250kb        1,430      18,520    0.25   0.17
//   train_laplacian_porous_random_1mb        6,265      74,575    1.02   0.67
//   train_laplacian_box_scan_6mb            30,969     441,049    5.91   3.90
//   train_laplacian_porous_natural_21mb    121,992   1,539,010   20.91  13.78
//   train_laplacian_box_random_36mb        187,131   2,728,495   36.48  24.07
//   train_laplacian_porous_scan_56mb       321,555   4,101,275   55.65  36.67
//   train_laplacian_box_natural_59mb       300,105   4,393,689   58.73  38.75
//   train_laplacian_porous_random_68mb     392,646   5,012,702   68.01  44.81
//   train_laplacian_box_scan_100mb         510,705   7,506,129  100.29  66.18
//   train_laplacian_box_random_2mb           9,975     138,691    1.90    1.20
//   train_laplacian_porous_scan_10mb        56,511     705,563    9.60    6.30
//   train_laplacian_box_natural_29mb       150,255   2,185,995   29.20   19.30
//   train_graph_rmat_natural_250kb           1,400      18,868    0.25   0.17
//   train_graph_rmat45_random_1mb            5,000      83,332    1.10   0.73
//   train_graph_rmat_random_6mb             29,000     445,716    5.93   3.91
//   train_graph_rmat45_natural_20mb         90,000   1,525,720   20.11  13.29
//   train_graph_rmat_natural_40mb          190,000   3,052,488   40.43  26.70
//   train_graph_rmat45_random_55mb         245,000   4,158,902   54.81  36.21
//   train_graph_rmat_random_56mb           262,000   4,200,064   55.64  36.74
//   train_graph_rmat45_natural_70mb        310,000   5,263,932   69.37  45.83
//   train_graph_rmat_random_99mb           460,000   7,469,294   98.83  65.27
//   train_graph_rmat45_natural_2mb          10,000     167,978    2.20    1.50
//   train_graph_rmat_natural_10mb           48,000     749,574   10.00    6.60
//   train_graph_rmat45_random_30mb         135,000   2,289,912   30.20   19.90

struct BuiltinSpec {
  std::string name;         // e.g. "dirac_small", "train_graph_rmat_random_6mb"
  std::string family;       // dirac, elasticity, helmholtz, laplacian, graph
  std::string entry;        // quaternion, block3, complex, real
  std::string size;         // small, tiny, large, train, irregular (the set it belongs to)
  std::string description;  // the mesh it comes from, regular or not, the order
  bool regular = true;  // regular grid / valence (icosphere, torus, box) vs irregular (flips, holes, graphs)
  std::string order = "natural";  // natural (generator order), random (shuffled) or scan (scanner-like)
  std::function<HostMatrix()> make;
};

struct BuiltinMatrix {
  std::string name;
  std::string family;
  std::string entry;
  HostMatrix matrix;  // matrix.name == name
};

// The names of the built-in sets, as help texts and errors list them.
constexpr const char* kBuiltinSetNames = "small, tiny, large, all, train, irregular";
// which: "small", "tiny", "large", "all" (the three), "train" or "irregular". Specs are cheap;
// make() generates (a large one takes about a second) so a caller can hold one large matrix at a time.
std::vector<BuiltinSpec> builtin_specs(const std::string& which = "all");
std::vector<BuiltinMatrix> builtin_set(const std::string& which = "all");
// One by name, from any set ("all", "train", "irregular"); throws InvalidArgument listing the names.
BuiltinMatrix builtin_matrix(const std::string& name);
// A set ("small", "tiny", "large", "all", "train", "irregular") or one matrix of any set by name (its spec, so that
// `bench --builtin laplacian_large` runs just that one); throws InvalidArgument listing the names.
std::vector<BuiltinSpec> builtin_specs_or_named(const std::string& which);

}  // namespace jitsparse
