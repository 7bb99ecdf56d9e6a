// The tuning database's SAX reader (selection/database_reader.hpp) against nlohmann's document parse.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "selection/database.hpp"
#include "selection/database_reader.hpp"

using namespace jitsparse;
using nlohmann::json;

namespace {

// Two matrices; the first with a full measurement, a failed one and one from an evaluation, fields in
// any order and a key of no known meaning holding containers (skipped, as from_json ignores it).
const char* kDatabase = R"({
  "format": 1, "generator_version": "x", "gpu": {"l2_bytes": 52428800},
  "matrices": [
    {"name": "a", "hash": "h1", "entry": "real", "precision": "f64", "op": "n", "features": {"rows": 3},
     "measurements": [
       {"status": "ok", "variant": "real.f64/csr-aos-aos/static-256x8", "bytes": 1200, "deterministic": true,
        "seconds": 0.25, "median_us": 4.5, "samples_us": [4.5, 4.75, 4.25], "reps_per_sample": 12,
        "gbps": 880.5, "cold_us": 6.0, "future": {"nested": [1, {"deep": null}]}},
       {"variant": "real.f64/ell-aos-aos/static-256x8", "status": "wrong: y[3]", "bytes": 0, "seconds": 0.1},
       {"variant": "real.f64/sell16-aos-aos/static-256x8", "status": "ok", "median_us": 5, "samples_us": [],
        "origin": "evaluation", "extra": [[1], []]}
     ],
     "winner": "real.f64/csr-aos-aos/static-256x8", "complete": true},
    {"name": "b", "hash": "h2", "entry": "complex", "precision": "f32", "features": {}, "measurements": []}
  ],
  "domains": [{"domain": "d", "measurements": [{"not": "a measurement"}]}]
})";

}  // namespace

TEST_CASE("database reader: the same document and records as a document parse, measurements aside") {
  std::vector<std::vector<MeasurementRecord>> measured;
  json got = parse_database_document(kDatabase, measured);
  json want = json::parse(kDatabase);
  REQUIRE(measured.size() == 2);
  REQUIRE(measured[0].size() == 3);
  CHECK(measured[1].empty());
  for (size_t i = 0; i < 3; ++i) {
    const MeasurementRecord expect = want["matrices"][0]["measurements"][i].get<MeasurementRecord>();
    const MeasurementRecord& m = measured[0][i];
    CHECK(m.variant == expect.variant);
    CHECK(m.status == expect.status);
    CHECK(m.bytes == expect.bytes);
    CHECK(m.median_us == expect.median_us);
    CHECK(m.samples_us == expect.samples_us);
    CHECK(m.reps_per_sample == expect.reps_per_sample);
    CHECK(m.gbps == expect.gbps);
    CHECK(m.seconds == expect.seconds);
    CHECK(m.cold_us == expect.cold_us);
    CHECK(m.origin == expect.origin);
  }
  CHECK(measured[0][0].samples_us == std::vector<double>{4.5, 4.75, 4.25});
  CHECK(measured[0][2].origin == "evaluation");
  // Apart from the measurement objects the document is the one json::parse builds (a "measurements" key
  // elsewhere, as under domains, is left alone).
  for (auto& m : want["matrices"]) m["measurements"] = json::array();
  CHECK(got == want);
}

TEST_CASE("database reader: malformed JSON and malformed measurements are errors, not records") {
  std::vector<std::vector<MeasurementRecord>> measured;
  auto with_measurement = [](const std::string& m) {
    return R"({"format": 1, "matrices": [{"name": "a", "measurements": [)" + m + "]}]}";
  };
  CHECK_THROWS_AS(parse_database_document("{ truncated", measured), ParseError);
  CHECK_THROWS_AS(parse_database_document(std::string(kDatabase) + " trailing", measured), ParseError);
  CHECK_NOTHROW(parse_database_document(with_measurement(R"({"variant": "v", "status": "ok"})"), measured));
  for (const char* bad : {R"({"status": "ok"})", R"({"variant": "v"})", R"({"variant": 3, "status": "ok"})",
                          R"({"variant": "v", "status": "ok", "bytes": "many"})",
                          R"({"variant": "v", "status": "ok", "bytes": 1.5})",
                          R"({"variant": "v", "status": "ok", "median_us": [1]})",
                          R"({"variant": "v", "status": "ok", "samples_us": [1, "two"]})",
                          R"({"variant": "v", "status": "ok", "samples_us": [[1]]})",
                          R"({"variant": "v", "status": "ok", "samples_us": 3})",
                          R"({"variant": "v", "status": "ok", "gbps": {"x": 1}})",
                          R"({"variant": "v", "status": "ok", "origin": "guess"})"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_database_document(with_measurement(bad), measured), ParseError);
  }
}
