#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "parse_error_util.hpp"
#include "core/error.hpp"
#include "io/mesh.hpp"
#include "tuner/builtin_matrices.hpp"

using namespace jitsparse;
using jitsparse::test::contains;
using jitsparse::test::parse_error;
namespace fs = std::filesystem;

namespace {

// A fresh folder per test case, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("jitsparse_mesh_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& content) const {
    const std::string p = (path / name).string();
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
};

// A unit cube of 6 quads as (vertices, faces); its fan triangulation has 12 triangles.
const double kCube[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                            {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
const int kQuads[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

void check_cube(const TriangleMesh& m) {
  REQUIRE(m.vertices.size() == 8);
  REQUIRE(m.triangles.size() == 12);
  for (int v = 0; v < 8; ++v)
    for (int k = 0; k < 3; ++k) CHECK(m.vertices[v][k] == kCube[v][k]);
  // Fan triangulation of quad (a,b,c,d): (a,b,c), (a,c,d).
  for (int f = 0; f < 6; ++f) {
    CHECK(m.triangles[2 * f] == std::array<int, 3>{kQuads[f][0], kQuads[f][1], kQuads[f][2]});
    CHECK(m.triangles[2 * f + 1] == std::array<int, 3>{kQuads[f][0], kQuads[f][2], kQuads[f][3]});
  }
  CHECK(count_boundary_edges(m) == 0);
}

std::string cube_off() {
  std::string s = "OFF\n# a cube\n8 6 12\n";
  for (auto& p : kCube)
    s += std::to_string(p[0]) + " " + std::to_string(p[1]) + " " + std::to_string(p[2]) + "\n";
  for (auto& q : kQuads)
    s += "4 " + std::to_string(q[0]) + " " + std::to_string(q[1]) + " " + std::to_string(q[2]) + " " +
         std::to_string(q[3]) + " 255 0 0\n";  // trailing colour values are skipped
  return s;
}

// PLY of the cube: vertex (float x, uchar red, double y, float z), faces (uchar count, int indices, then an
// int flag), then an element the reader must skip (a list of ushort). Binary in either byte order or ascii.
std::string cube_ply(const std::string& format) {
  std::string s =
      "ply\nformat " + format +
      " 1.0\ncomment made by a test\nelement vertex 8\nproperty float x\nproperty uchar red\n"
      "property double y\nproperty float z\nelement face 6\nproperty list uchar int vertex_indices\n"
      "property int flags\nelement extra 2\nproperty list uchar ushort stuff\nproperty float w\n"
      "end_header\n";
  if (format == "ascii") {
    for (auto& p : kCube)
      s += std::to_string(p[0]) + " 7 " + std::to_string(p[1]) + " " + std::to_string(p[2]) + "\n";
    for (auto& q : kQuads)
      s += "4 " + std::to_string(q[0]) + " " + std::to_string(q[1]) + " " + std::to_string(q[2]) + " " +
           std::to_string(q[3]) + " 1\n";
    s += "2 5 6 1.5\n0 2.5\n";
    return s;
  }
  const bool big = format == "binary_big_endian";
  auto put = [&](const void* data, int n) {
    unsigned char b[8];
    std::memcpy(b, data, n);
    uint16_t one = 1;
    const bool host_big = *reinterpret_cast<unsigned char*>(&one) == 0;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>(b[big != host_big ? n - 1 - i : i]));
  };
  for (auto& p : kCube) {
    float x = static_cast<float>(p[0]), z = static_cast<float>(p[2]);
    double y = p[1];
    unsigned char red = 7;
    put(&x, 4);
    put(&red, 1);
    put(&y, 8);
    put(&z, 4);
  }
  for (auto& q : kQuads) {
    unsigned char n = 4;
    put(&n, 1);
    for (int v : q) {
      int32_t i = v;
      put(&i, 4);
    }
    int32_t flag = 1;
    put(&flag, 4);
  }
  for (int e = 0; e < 2; ++e) {
    unsigned char n = 2;
    uint16_t a = 5, b = 6;
    float w = 1.5f;
    put(&n, 1);
    put(&a, 2);
    put(&b, 2);
    put(&w, 4);
  }
  return s;
}

}  // namespace

TEST_CASE("mesh: the shipped OFF files are closed triangle meshes") {
  const std::string dir = JITSPARSE_TEST_DATA "/meshes/";
  const TriangleMesh elephant = read_triangle_mesh(dir + "elephant.off");
  CHECK(elephant.vertices.size() == 2775);
  CHECK(elephant.triangles.size() == 5558);
  CHECK(count_boundary_edges(elephant) == 0);
  CHECK(elephant.vertices[0][0] == doctest::Approx(0.262933));
  CHECK(elephant.triangles.back() == std::array<int, 3>{1042, 875, 2769});
  const TriangleMesh fandisk = read_triangle_mesh(dir + "fandisk.off");
  CHECK(fandisk.vertices.size() == 6475);
  CHECK(fandisk.triangles.size() == 12946);
  CHECK(count_boundary_edges(fandisk) == 0);
}

TEST_CASE("mesh: OFF with comments, counts on the header line and polygons") {
  TempDir d;
  check_cube(read_triangle_mesh(d.write("cube.off", cube_off())));
  std::string inline_counts = cube_off();
  inline_counts.replace(0, inline_counts.find("8 6 12\n") + 7, "OFF 8 6 12\n");
  check_cube(read_triangle_mesh(d.write("cube2.off", inline_counts)));
  // Unknown extension: recognised by its header.
  check_cube(read_triangle_mesh(d.write("cube.mesh", cube_off())));
}

TEST_CASE("mesh: OBJ with v/vt/vn forms, negative indices and polygons") {
  TempDir d;
  std::string s = "# cube\nmtllib x.mtl\no cube\n";
  for (auto& p : kCube)
    s += "v " + std::to_string(p[0]) + " " + std::to_string(p[1]) + " " + std::to_string(p[2]) + "\n";
  s += "vt 0 0\nvn 0 0 1\ns off\nusemtl m\n";
  const char* forms[6] = {"%d", "%d/1", "%d//1", "%d/1/1", "NEG", "%d"};
  for (int f = 0; f < 6; ++f) {
    s += "f";
    for (int v : kQuads[f]) {
      char buf[32];
      if (std::string(forms[f]) == "NEG")
        std::snprintf(buf, sizeof buf, "%d/1", v - 8);  // -8 is vertex 0
      else
        std::snprintf(buf, sizeof buf, forms[f], v + 1);
      s += std::string(" ") + buf;
    }
    s += "\n";
  }
  check_cube(read_triangle_mesh(d.write("cube.obj", s)));
}

TEST_CASE("mesh: PLY in ascii and both binary byte orders gives the same cube") {
  TempDir d;
  for (const char* f : {"ascii", "binary_little_endian", "binary_big_endian"}) {
    CAPTURE(f);
    check_cube(read_triangle_mesh(d.write(std::string("cube_") + f + ".ply", cube_ply(f))));
  }
  // CRLF header lines and the name vertex_index.
  std::string crlf = cube_ply("ascii");
  crlf.replace(crlf.find("vertex_indices"), 14, "vertex_index");
  std::string out;
  for (char c : crlf) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  check_cube(read_triangle_mesh(d.write("crlf.ply", out)));
}

TEST_CASE("mesh: TetGen files, 1-based and 0-based, attributes and markers skipped") {
  TempDir d;
  // Two tetrahedra sharing a face; 1 attribute and boundary markers on the points, 1 attribute on elements.
  const char* node1 =
      "# points\n5 3 1 1\n1 0 0 0 9.5 1\n2 1 0 0 9.5 1\n3 0 1 0 9.5 0\n4 0 0 1 9.5 1\n5 1 1 1 9.5 1\n";
  const char* ele1 = "2 4 1\n1 1 2 3 4 7\n2 2 3 4 5 7  # second\n";
  d.write("a.node", node1);
  d.write("a.ele", ele1);
  for (const char* p : {"a", "a.node", "a.ele"}) {
    const TetMesh m = read_tetgen((d.path / p).string());
    REQUIRE(m.vertices.size() == 5);
    REQUIRE(m.tets.size() == 2);
    CHECK(m.tets[0] == std::array<int, 4>{0, 1, 2, 3});
    CHECK(m.tets[1] == std::array<int, 4>{1, 2, 3, 4});
    CHECK(m.vertices[4] == std::array<double, 3>{1, 1, 1});
  }
  d.write("b.node", "3 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n");  // wrong count line: 3 then 4 lines
  d.write("b.ele", "1 4 0\n0 0 1 2 3\n");
  // The fourth point line is trailing junk after the declared 3 points; node 3 is then out of range.
  CHECK(contains(parse_error([&] { read_tetgen((d.path / "b").string()); }), "b.ele:2: node 3 out of range"));
  d.write("c.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n");
  d.write("c.ele", "1 10 0\n0 0 1 2 3 4 5 6 7 8 9\n");  // quadratic: corners used, but 4..9 are not checked
  CHECK(read_tetgen((d.path / "c").string()).tets[0] == std::array<int, 4>{0, 1, 2, 3});
}

TEST_CASE("mesh: malformed files give file and line") {
  TempDir d;
  auto err = [&](const std::string& name, const std::string& text) {
    const std::string p = d.write(name, text);
    return parse_error([&] { read_triangle_mesh(p); });
  };
  // OFF
  CHECK(contains(err("a.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"),
                 "a.off:6: vertex index 3 out of range"));
  CHECK(contains(err("b.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n"),
                 "b.off:5: unexpected end of file after 2 of 3 vertices"));
  CHECK(contains(err("c.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"),
                 "c.off:7: unexpected end of file after 1 of 2 faces"));
  CHECK(contains(err("d.off", "OFX\n"), "d.off:1: expected the header 'OFF'"));
  CHECK(contains(err("e.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n"),
                 "e.off:6: a face needs at least 3 vertices"));
  CHECK(contains(err("f.off", "OFF\n3 1 0\n0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n"),
                 "f.off:4: expected a finite coordinate"));
  CHECK(contains(err("g.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n"),
                 "g.off:6: face announces 4 vertices but lists 3"));
  CHECK(contains(err("h.off", "OFF\n0 0 0\n"), "h.off:2: the mesh has no vertices"));
  CHECK(contains(err("i.off", "OFF\n-3 1 0\n"), "i.off:2: negative vertex count"));
  CHECK(
      contains(err("j.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 1\n"), "j.off:6: face repeats vertex 1"));
  CHECK(contains(err("k.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 nan\n3 0 1 2\n"),
                 "k.off:5: expected a finite coordinate"));
  CHECK(contains(err("l.off", ""), "l.off:1: empty file"));
  // A corrupt huge count reads to the end of the file instead of allocating gigabytes.
  CHECK(contains(err("m.off", "OFF\n2000000000 1 0\n0 0 0\n"),
                 "m.off:4: unexpected end of file after 1 of 2000000000"));
  // OBJ
  CHECK(
      contains(err("a.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n"), "a.obj:4: vertex index 4 out of range"));
  CHECK(contains(err("b.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"), "b.obj:4: vertex index 0"));
  CHECK(contains(err("c.obj", "v 0 0 0\nf -1 -2 -3\n"), "c.obj:2: relative vertex index -2 reaches before"));
  CHECK(contains(err("d.obj", "v 0 0\n"), "d.obj:1: a vertex needs 3 coordinates"));
  CHECK(contains(err("e.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n"), "e.obj:3: a face needs at least 3 vertices"));
  CHECK(contains(err("f.obj", "# nothing\nv 0 0 0\n"), "f.obj:3: the mesh has no faces"));
  CHECK(contains(err("g.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 x 3\n"),
                 "g.obj:4: expected an integer vertex index"));
  // PLY: header errors by line, ascii data by line, binary data by byte offset
  const std::string good = cube_ply("binary_little_endian");
  const size_t data = good.find("end_header\n") + 11;
  CHECK(contains(
      err("a.ply", good.substr(0, data + 10)),
      "a.ply: byte " + std::to_string(data + 5) + ": unexpected end of file in element 'vertex' 0 of 8"));
  CHECK(contains(err("b.ply", good.substr(0, good.size() - 3)),
                 "unexpected end of file in element 'extra' 1 of 2"));
  std::string bad_index = good;
  const size_t first_face = data + 8 * 17;
  bad_index[first_face + 1] = 9;  // first index of the first face: 9 (little endian low byte)
  CHECK(contains(err("c.ply", bad_index),
                 "c.ply: byte " + std::to_string(first_face + 1) + ": vertex index 9 out of range"));
  CHECK(contains(err("d.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"),
                 "d.ply:5: unexpected end of file: no 'end_header'"));
  CHECK(contains(err("e.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n0\n"),
                 "e.ply:5: the vertex element lacks one of the properties x, y, z"));
  CHECK(contains(err("f.ply", "ply\nformat binary_middle_endian 1.0\n"), "f.ply:2: unknown PLY format"));
  CHECK(contains(err("g.ply",
                     "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                     "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                     "0 0 0\n1 0 0\n0 1 0\n3 0 1 5\n"),
                 "g.ply:13: vertex index 5 out of range"));
  CHECK(contains(err("h.ply",
                     "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                     "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                     "0 0 0\n1 0 0\n0 1 0\n"),
                 "h.ply:13: unexpected end of file in element 'face' 0 of 1"));
  CHECK(contains(err("j.ply",
                     "ply\nformat binary_little_endian 1.0\nelement vertex 2000000000\nproperty float x\n"
                     "property float y\nproperty float z\nelement face 1\n"
                     "property list uchar int vertex_indices\nend_header\n"),
                 "unexpected end of file in element 'vertex' 0 of 2000000000"));
  CHECK(contains(err("i.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty bogus x\n"),
                 "i.ply:4: expected 'property <type> <name>'"));
  // Unknown format, missing file
  CHECK(contains(err("x.stl", "solid x\n"), "x.stl: unknown mesh format"));
  CHECK(contains(parse_error([&] { read_triangle_mesh((d.path / "missing.off").string()); }), "cannot open"));
}

TEST_CASE("mesh: malformed TetGen files give file and line") {
  TempDir d;
  auto err = [&](const std::string& node, const std::string& ele) {
    d.write("t.node", node);
    d.write("t.ele", ele);
    return parse_error([&] { read_tetgen((d.path / "t").string()); });
  };
  const std::string node = "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n";
  CHECK(err(node, "1 4 0\n1 1 2 3 4\n").empty());
  CHECK(contains(err(node, "1 4 0\n1 1 2 3 5\n"), "t.ele:2: node 5 out of range"));
  CHECK(contains(err(node, "1 4 0\n1 0 1 2 3\n"), "t.ele:2: node 0 out of range"));  // 1-based file
  CHECK(contains(err(node, "2 4 0\n1 1 2 3 4\n"), "t.ele:3: unexpected end of file after 1 of 2 tetrahedra"));
  CHECK(contains(err(node, "1 5 0\n1 1 2 3 4 4\n"), "t.ele:1: 5 nodes per tetrahedron"));
  CHECK(contains(err(node, "1 4 1\n1 1 2 3 4\n"), "t.ele:2: a tetrahedron line needs 6 values"));
  CHECK(contains(err(node, "1 4 0\n1 1 2 3 3\n"), "t.ele:2: tetrahedron repeats node 3"));
  CHECK(contains(err("4 3 0 0\n1 0 0 0\n3 1 0 0\n", "1 4 0\n1 1 2 3 4\n"),
                 "t.node:3: point numbered 3, expected 2"));
  CHECK(contains(err("4 2 0 0\n", ""), "t.node:1: dimension 2"));
  CHECK(contains(err("4 3 0 1\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", ""),
                 "t.node:2: a point line needs 5 values"));
  CHECK(contains(err("4 3 0 0\n1 0 0 0\n2 1 0 0\n", ""),
                 "t.node:4: unexpected end of file after 2 of 4 points"));
  CHECK(contains(err("0 3 0 0\n", ""), "t.node:1: the mesh has no points"));
  CHECK(contains(err(node, ""), "t.ele:1: empty file"));
  fs::remove(d.path / "t.ele");
  CHECK(contains(parse_error([&] { read_tetgen((d.path / "t.node").string()); }), "t.ele: cannot open"));
}
