#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/entry_type.hpp"
#include "core/error.hpp"

using namespace jitsparse;

TEST_CASE("built-in entry types load from the embedded configs") {
  const auto& reg = EntryRegistry::instance();
  for (const char* n : {"real", "complex", "quaternion", "block2", "block3", "block8", "dual_quaternion"})
    CHECK(reg.contains(n));
  CHECK(reg.get("block3").num_components() == 9);
  CHECK(reg.get("block3").num_vector_components() == 3);
  CHECK_THROWS_AS(reg.get("octonion"), InvalidArgument);
}

TEST_CASE("quaternion multiply is the Hamilton product") {
  const auto& q = EntryRegistry::instance().get("quaternion");
  // i * j = k
  double i[4] = {0, 1, 0, 0}, j[4] = {0, 0, 1, 0}, y[4] = {0, 0, 0, 0};
  q.multiply_add(i, j, y);
  CHECK(y[0] == 0);
  CHECK(y[1] == 0);
  CHECK(y[2] == 0);
  CHECK(y[3] == 1);
  // j * i = -k
  double y2[4] = {0, 0, 0, 0};
  q.multiply_add(j, i, y2);
  CHECK(y2[3] == -1);
  // adjoint: conj(i) * j = -i * j = -k
  double y3[4] = {0, 0, 0, 0};
  q.adjoint_multiply_add(i, j, y3);
  CHECK(y3[3] == -1);
}

TEST_CASE("block adjoint is the transposed block") {
  const auto& b = EntryRegistry::instance().get("block2");
  double a[4] = {1, 2, 3, 4}, x[2] = {1, 10}, y[2] = {0, 0}, yt[2] = {0, 0};
  b.multiply_add(a, x, y);
  CHECK(y[0] == 21);
  CHECK(y[1] == 43);
  b.adjoint_multiply_add(a, x, yt);
  CHECK(yt[0] == 31);
  CHECK(yt[1] == 42);
}

TEST_CASE("bad entry definitions are rejected with the source named") {
  auto bad = [](const char* text) { return parse_entry_type(nlohmann::json::parse(text), "my.json"); };
  CHECK_THROWS_WITH_AS(bad(R"({"components":["a"]})"), doctest::Contains("my.json"), ParseError);
  CHECK_THROWS_AS(bad(R"({"name":"t","components":["a","a"],"vector_components":["v"],"multiply":[["a"]],"mac":"x"})"),
                  ParseError);
  CHECK_THROWS_AS(bad(R"({"name":"t","components":["a"],"vector_components":["v"],"multiply":[["b"]],"mac":"x"})"),
                  ParseError);
  CHECK_THROWS_AS(bad(R"({"name":"t","components":["a"],"vector_components":["v"],"multiply":[["1"]],"mac":"x"})"),
                  ParseError);
  CHECK_THROWS_AS(bad(R"({"name":"t","components":["a"],"vector_components":["v"],"multiply":[["a"]]})"),
                  ParseError);
  auto ok = bad(R"({"name":"t","components":["a","b"],"vector_components":["v"],"multiply":[["2*a - 0.5*b"]],"mac":"acc.v += a.a*x.v;"})");
  REQUIRE(ok.terms.size() == 2);
  CHECK(ok.terms[1].coeff == -0.5);
}
