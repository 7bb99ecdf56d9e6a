#include <boost/program_options.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/yardstick.hpp"
#include "io/matrix_market.hpp"
#include "io/mesh.hpp"
#include "tuner/builtin_matrices.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace jitsparse::cli {
namespace {

const char* kUsage =
    "jitsparse generate: write the built-in domain matrices, or one built from your mesh, as Matrix "
    "Market\n\n"
    "  jitsparse generate --list\n"
    "  jitsparse generate --builtin small --output-dir matrices/\n"
    "  jitsparse generate --builtin train --output-dir train/\n"
    "  jitsparse generate --builtin dirac_large -o dirac.mtx\n"
    "  jitsparse generate --family dirac --mesh elephant.off -o dirac.mtx\n"
    "  jitsparse generate --family elasticity --mesh cube.node\n\n"
    "Families: dirac (quaternionic Dirac operator of Crane, Pinkall and Schroeder 2011, entry quaternion, "
    "from a\n"
    "closed triangle mesh: .off, .obj, .ply), elasticity (P1 linear elasticity, 3x3 blocks), helmholtz\n"
    "(K - (k^2 - i eps) M, complex) and laplacian (P1 stiffness, real), from a TetGen mesh (.node + .ele).\n"
    "The training set (--builtin train) adds the family graph (R-MAT graphs, real, no mesh), irregular "
    "meshes\n"
    "(edge flips, porous boxes) and vertex orders (natural, random, scan).\n"
    "Files: quaternion matrices use the field `quaternion` (i j w x y z), 3x3 blocks the expanded real "
    "matrix\n"
    "(read them back with --entry block3). The large built-ins are hundreds of MB of text each.\n\noptions";

std::string human_count(int64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void write_one(const HostMatrix& m, const std::string& family, const std::string& path, double gen_seconds) {
  m.validate();
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) throw Error("cannot create folder '" + parent.string() + "': " + ec.message());
  }
  const auto t0 = std::chrono::steady_clock::now();
  write_matrix_market(m, path);
  std::printf(
      "wrote %s: %s (%s), %s rows, %s %s, %.1f MB in double (generated in %.2f s, written in %.2f s)\n",
      path.c_str(), family.c_str(), m.entry.name.c_str(), human_count(m.rows).c_str(),
      human_count(m.nnz()).c_str(), m.components() == 9 ? "blocks" : "entries",
      compulsory_bytes(m, Precision::f64) / 1e6, gen_seconds, seconds_since(t0));
}

std::string stem_of(const std::string& path) {
  fs::path p(path);
  const std::string ext = p.extension().string();
  if (ext == ".node" || ext == ".ele" || ext == ".off" || ext == ".obj" || ext == ".ply" || ext == ".OFF" ||
      ext == ".OBJ" || ext == ".PLY")
    return p.stem().string();
  return p.filename().string();
}

}  // namespace

int run_generate(const std::vector<std::string>& args) {
  po::options_description opts(kUsage);
  // clang-format off
  opts.add_options()
      ("help,h", "show this help")
      ("list", "list the built-in matrices and the families")
      ("builtin", po::value<std::string>(), (std::string("a built-in set (") + kBuiltinSetNames + ") or one built-in matrix by name (see --list)").c_str())
      ("family", po::value<std::string>(), "dirac, elasticity, helmholtz or laplacian (needs --mesh)")
      ("mesh", po::value<std::string>(), "triangle mesh (.off, .obj, .ply) for dirac; TetGen .node/.ele (or "
                                         "their stem) for the others")
      ("output,o", po::value<std::string>(), "output file, for one matrix (default: <name>.mtx in --output-dir)")
      ("output-dir", po::value<std::string>()->default_value("."), "folder for the files")
      ("rho", po::value<double>(), "dirac: constant curvature change (default: a smooth positive function of "
                                   "position, scaled by 1/bounding-box diagonal)")
      ("young", po::value<double>()->default_value(1.0), "elasticity: Young's modulus")
      ("poisson", po::value<double>()->default_value(0.3, "0.3"), "elasticity: Poisson's ratio")
      ("wavenumber", po::value<double>(), "helmholtz: k (default 2 pi / (10 h), h the mean element size)")
      ("damping", po::value<double>(), "helmholtz: eps, the imaginary shift (default 0.1 k^2)");
  // clang-format on
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  if (vm.count("help") || args.empty()) {
    std::cout << opts << "\n";
    return args.empty() ? 2 : 0;
  }
  po::notify(vm);

  const int modes = static_cast<int>(vm.count("list")) + static_cast<int>(vm.count("builtin")) +
                    static_cast<int>(vm.count("family") || vm.count("mesh"));
  if (modes != 1) throw InvalidArgument("give exactly one of --list, --builtin, or --family with --mesh");
  const std::string dir = vm["output-dir"].as<std::string>();
  const bool has_output = vm.count("output") > 0;
  const bool physics_options = vm.count("rho") || !vm["young"].defaulted() || !vm["poisson"].defaulted() ||
                               vm.count("wavenumber") || vm.count("damping");

  if (vm.count("list")) {
    std::printf("%-40s %-6s %-11s %-11s %-10s %-8s %s\n", "name", "set", "family", "entry", "valence",
                "order", "made from");
    for (const char* set : {"all", "train", "irregular"})
      for (const auto& s : builtin_specs(set))
        std::printf("%-40s %-6s %-11s %-11s %-10s %-8s %s\n", s.name.c_str(), s.size.c_str(),
                    s.family.c_str(), s.entry.c_str(), s.regular ? "regular" : "irregular", s.order.c_str(),
                    s.description.c_str());
    std::printf(
        "\nsmall: 5-20 MB of compulsory bytes in double (inside a 50 MB L2), regular; large: 150-250 MB "
        "regular and 70-100 MB irregular (<family>_irregular); tiny: about 2 MB irregular (<family>_tiny); all: small, "
        "large and tiny.\n"
        "train: 60 matrices of 0.2-105 MB (about 1.7 GB in all) over five families, regular and irregular, "
        "in "
        "three orders.\n"
        "irregular: one matrix per family, irregular valence or skewed rows in random or scan order, 240-260 "
        "MB in double (at least 4x an H100's L2); tune and bench them with --builtin irregular.\n"
        "families for --mesh: dirac (triangle mesh), elasticity, helmholtz, laplacian (TetGen mesh); graph "
        "has no "
        "mesh\n");
    return 0;
  }

  if (vm.count("builtin")) {
    if (physics_options)
      throw InvalidArgument("--rho, --young, --poisson, --wavenumber and --damping apply to --mesh only");
    const std::string which = vm["builtin"].as<std::string>();
    const std::vector<BuiltinSpec> specs = builtin_specs_or_named(which);
    if (has_output && specs.size() != 1)
      throw InvalidArgument("-o names one file but --builtin " + which + " makes " +
                            std::to_string(specs.size()) + " matrices: use --output-dir");
    for (const auto& s : specs) {
      const auto t0 = std::chrono::steady_clock::now();
      const HostMatrix m = s.make();  // one at a time: a large one holds up to ~0.3 GB
      const double gen = seconds_since(t0);
      write_one(m, s.family,
                has_output ? vm["output"].as<std::string>() : (fs::path(dir) / (s.name + ".mtx")).string(),
                gen);
    }
    return 0;
  }

  if (vm.count("family") && !family_uses_mesh(vm["family"].as<std::string>()))  // throws on an unknown family
    throw InvalidArgument("family '" + vm["family"].as<std::string>() +
                          "' is built from no mesh: its matrices are the generated train_" +
                          vm["family"].as<std::string>() +
                          "_* built-ins (--builtin train, or one by name; see --list)");
  if (!vm.count("family"))
    throw InvalidArgument(
        "--mesh needs --family (dirac for a triangle mesh; elasticity, helmholtz or laplacian for a "
        "TetGen mesh)");
  if (!vm.count("mesh"))
    throw InvalidArgument(
        "--family needs --mesh FILE (or use --builtin <family>_small for a generated mesh)");
  const std::string family = vm["family"].as<std::string>();
  const std::string mesh_path = vm["mesh"].as<std::string>();
  const bool triangles = family_uses_triangles(family);  // throws on an unknown family
  if (vm.count("rho") && family != "dirac") throw InvalidArgument("--rho applies to --family dirac only");
  if ((!vm["young"].defaulted() || !vm["poisson"].defaulted()) && family != "elasticity")
    throw InvalidArgument("--young and --poisson apply to --family elasticity only");
  if ((vm.count("wavenumber") || vm.count("damping")) && family != "helmholtz")
    throw InvalidArgument("--wavenumber and --damping apply to --family helmholtz only");

  // A mesh of the other kind would fail with a confusing "cannot open" or "unknown format": say why instead.
  std::string ext = fs::path(mesh_path).extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (triangles && (ext == ".node" || ext == ".ele"))
    throw InvalidArgument("family 'dirac' needs a triangle mesh (.off, .obj, .ply); '" + mesh_path +
                          "' is a TetGen mesh (for elasticity, helmholtz or laplacian)");
  if (!triangles && (ext == ".off" || ext == ".obj" || ext == ".ply"))
    throw InvalidArgument("family '" + family + "' needs a tetrahedral TetGen mesh (.node + .ele); '" +
                          mesh_path + "' is a triangle mesh (for dirac)");

  const auto t0 = std::chrono::steady_clock::now();
  HostMatrix m;
  if (triangles) {
    const TriangleMesh mesh = read_triangle_mesh(mesh_path);
    if (const int64_t open = count_boundary_edges(mesh))
      std::fprintf(stderr,
                   "note: %s has %lld boundary edges; the Dirac operator is meant for closed surfaces\n",
                   mesh_path.c_str(), static_cast<long long>(open));
    CurvatureFunction rho;
    if (vm.count("rho")) {
      const double r = vm["rho"].as<double>();
      rho = [r](const Point3&) { return r; };
    }
    m = dirac_operator(mesh, rho);
  } else {
    const TetMesh mesh = read_tetgen(mesh_path);
    if (family == "elasticity") {
      m = elasticity_matrix(mesh, lame_parameters(vm["young"].as<double>(), vm["poisson"].as<double>()));
    } else if (family == "helmholtz") {
      const double k = vm.count("wavenumber") ? vm["wavenumber"].as<double>() : 0.0;
      const double eps = vm.count("damping") ? vm["damping"].as<double>() : -1.0;
      if (vm.count("wavenumber") && !(k > 0)) throw InvalidArgument("--wavenumber must be positive");
      if (vm.count("damping") && !(eps >= 0)) throw InvalidArgument("--damping must not be negative");
      m = helmholtz_matrix(mesh, k, eps);
    } else {
      m = laplacian_matrix(mesh);
    }
  }
  int64_t empty_rows = 0;
  for (int32_t r = 0; r < m.rows; ++r) empty_rows += m.row_ptr[r + 1] == m.row_ptr[r];
  if (empty_rows)
    std::fprintf(stderr, "note: %lld vertices belong to no element: their rows are empty\n",
                 static_cast<long long>(empty_rows));
  m.name = stem_of(mesh_path) + "_" + family;
  const double gen = seconds_since(t0);
  write_one(m, family,
            has_output ? vm["output"].as<std::string>() : (fs::path(dir) / (m.name + ".mtx")).string(), gen);
  return 0;
}

}  // namespace jitsparse::cli
