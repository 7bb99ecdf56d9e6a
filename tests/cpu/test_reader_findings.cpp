// Inputs the fuzzers (fuzz/README.md) found to crash or mislead a reader, each with the message it must now
// give. The raw crash inputs are replayed by the fuzz_replay test from fuzz/regressions/.
#include <doctest/doctest.h>

#include <string>

#include "parse_error_util.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "io/matrix_market.hpp"
#include "io/mesh.hpp"

using namespace jitsparse;
using jitsparse::test::contains;
using jitsparse::test::parse_error;

namespace {

const std::string kEntryHead = R"({"name":"t","components":["a"],"vector_components":["v"],)";

}  // namespace

TEST_CASE("reader findings: entry-type JSON") {
  auto err = [](const std::string& text) { return parse_error([&] { load_entry_type_string(text, "t.json"); }); };
  // nlohmann throws out_of_range (not parse_error) for a number beyond double.
  CHECK(contains(err(R"({"name":"x","components":[1e999]})"), "t.json: not valid JSON: "));
  // j.value("description", "") threw nlohmann's type_error for a non-string.
  CHECK(contains(err(kEntryHead + R"("description":5,"multiply":[["a"]],"mac":"m"})"),
                 "t.json: entry type: 'description' must be a string"));
  // strtod reads "inf" and "nan": every product would be Inf or NaN.
  CHECK(contains(err(kEntryHead + R"("multiply":[["inf*a"]],"mac":"m"})"), "is not a finite number"));
  CHECK(contains(err(kEntryHead + R"("multiply":[["nan*a"]],"mac":"m"})"), "is not a finite number"));
  // The message printed the offending value with json::dump(), which recurses: a component nested a
  // million arrays deep overflowed the stack.
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  CHECK(contains(err(R"({"name":"x","components":[)" + deep + "]}"), "t.json: entry type: 'components' holds an array"));
  CHECK(contains(err(R"({"name":"x","components":["1a"]})"), "'components' holds \"1a\", which is not a C++ identifier"));
  CHECK(load_entry_type_string(kEntryHead + R"("multiply":[["-2.5e3*a"]],"mac":"m"})", "t.json").terms[0].coeff ==
        -2500.0);
}

TEST_CASE("reader findings: OFF") {
  // A face vertex count of INT64_MAX overflowed 'n + 1'.
  CHECK(contains(parse_error([] {
                   read_triangle_mesh_string("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n9223372036854775807 0 1 2\n", "a.off");
                 }),
                 "a.off:6: face announces 9223372036854775807 vertices but lists 3"));
}

TEST_CASE("reader findings: PLY") {
  // An element without properties and a count of 2 billion spun for minutes (a fuzzer timeout); it holds
  // no data and is skipped.
  const TriangleMesh m = read_triangle_mesh_string(
      "ply\nformat ascii 1.0\nelement junk 2000000000\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n"
      "0 1 0\n3 0 1 2\n",
      "junk.ply");
  CHECK(m.vertices.size() == 3);
  CHECK(m.triangles.size() == 1);
  // Two 'face' elements: the reader read the last one with the index property of the first, and with no
  // properties in the last accepted a mesh without triangles (fuzz_mesh_ply).
  const std::string two_faces =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 1\nproperty list uchar int vertex_indices\nelement face 1\nend_header\n0 0 0\n1 0 0\n"
      "0 1 0\n3 0 1 2\n";
  CHECK(contains(parse_error([&] { read_triangle_mesh_string(two_faces, "f.ply"); }),
                 "f.ply:9: a second 'face' element (a mesh has one)"));
  std::string two_vertices = two_faces;
  two_vertices.replace(two_vertices.find("element face 1\nend"), 14, "element vertex 1");
  CHECK(contains(parse_error([&] { read_triangle_mesh_string(two_vertices, "v.ply"); }),
                 "v.ply:9: a second 'vertex' element"));
}

TEST_CASE("reader findings: Matrix Market duplicates that sum to Inf") {
  // Each value is finite, the summed duplicates were not: the reader returned Inf (HostMatrix::validate
  // failed on the result).
  const std::string head = "%%MatrixMarket matrix coordinate real general\n% c\n3 3 4\n";
  CHECK(contains(parse_error([&] { read_matrix_market_string(head + "1 1 1e308\n2 2 1\n1 1 1e308\n3 3 1\n", "d"); }),
                 "d:6: entry (1, 1): the duplicates on lines 4, 6 sum to a non-finite value"));
  CHECK(contains(parse_error([&] {
                   read_matrix_market_string(head + "1 1 -1e308\n2 2 1\n1 1 -1e308\n3 3 1\n", "d", {"complex"});
                 }),
                 "d:6: entry (1, 1): the duplicates"));
  // As 3x3 blocks: two scalars of one block, summed (no quaternion-style check catches plain blocks).
  const std::string blocks = "%%MatrixMarket matrix coordinate real general\n3 3 2\n2 3 1e308\n2 3 1e308\n";
  CHECK(contains(parse_error([&] { read_matrix_market_string(blocks, "b", {"block3"}); }),
                 "b:4: block (1, 1): the duplicates on lines 3, 4 sum to a non-finite value"));
  // Large values that are not summed stay accepted (a symmetric file's mirror is a copy, not a sum).
  CHECK(read_matrix_market_string("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1e308\n2 2 1e308\n",
                                  "s")
            .values.size() == 3);
}
