// The tuning database's SAX reader (selection/database_reader.hpp) against nlohmann's document parse, and its writer
// (selection/database_writer.hpp) against nlohmann's dump.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "selection/database.hpp"
#include "selection/database_reader.hpp"
#include "selection/database_writer.hpp"

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

// Every field a reader fills, compared exactly.
void check_same(const MeasurementRecord& got, const MeasurementRecord& expect) {
  CHECK(got.variant == expect.variant);
  CHECK(got.status == expect.status);
  CHECK(got.bytes == expect.bytes);
  CHECK(got.median_us == expect.median_us);
  CHECK(got.samples_us == expect.samples_us);
  CHECK(got.reps_per_sample == expect.reps_per_sample);
  CHECK(got.gbps == expect.gbps);
  CHECK(got.seconds == expect.seconds);
  CHECK(got.cold_us == expect.cold_us);
  CHECK(got.origin == expect.origin);
}

}  // namespace

TEST_CASE("database reader: the same document and records as a document parse, measurements aside") {
  std::vector<std::vector<MeasurementRecord>> measured;
  json got = parse_database_document(kDatabase, measured);
  json want = json::parse(kDatabase);
  REQUIRE(measured.size() == 2);
  REQUIRE(measured[0].size() == 3);
  CHECK(measured[1].empty());
  for (size_t i = 0; i < 3; ++i)
    check_same(measured[0][i], want["matrices"][0]["measurements"][i].get<MeasurementRecord>());
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

TEST_CASE("database writer: its text parses to the document nlohmann builds, and the reader reads it back") {
  MatrixRecord r;
  r.name = "quoted \"name\"\nwith a newline, tabs\tand UTF-8: \xc3\xa9";
  r.hash = "h2-0123456789abcdef";
  r.entry = "complex";
  r.precision = "f32";
  r.op = "t";
  r.domain = "d";
  r.features.rows = 7;
  r.features.mean_row = 2.5;
  r.compulsory_bytes = 1234.0;  // integral: stays a float
  r.winner = "complex.f32/csr-aos-aos/static-256x8/t-copy";
  r.complete = true;
  MeasurementRecord ok;
  ok.variant = r.winner;
  ok.status = "ok";
  ok.bytes = 5000000000LL;  // past 32 bits
  ok.median_us = 0.1 + 0.2;  // not a short decimal
  ok.samples_us = {1e-7, 3.0, 123456789.125, 0.30000000000000004};
  ok.reps_per_sample = 12;
  ok.gbps = 2.5e3;
  ok.seconds = 0.25;
  ok.cold_us = 6.0;
  MeasurementRecord failed;
  failed.variant = "complex.f32/ell-aos-aos/static-256x8/t-atomic";
  failed.status = "error: \"ptxas\" said\\n: \x01 no";
  failed.seconds = 1.0 / 3.0;
  MeasurementRecord evaluated;
  evaluated.variant = "complex.f32/sell16-aos-aos/static-128x4/t-copy";
  evaluated.status = "ok";
  evaluated.median_us = 5;
  evaluated.origin = "evaluation";
  r.measurements = {ok, failed, evaluated};
  MatrixRecord empty;  // no measurements at all
  empty.name = "b";
  empty.hash = "h2-1";
  empty.entry = "real";
  empty.precision = "f64";

  json head = {{"format", 1}, {"generator_version", "x"}, {"saved", 17}, {"gpu", {{"l2_bytes", 52428800}}},
               {"domains", json::array({{{"domain", "d"}, {"winner", "w"}}, {{"domain", "e"}, {"winner", "v"}}})}};
  const std::vector<MatrixRecord> records = {r, empty};
  const std::string text = database_text(head, records);
  json want = head;
  want["matrices"] = records;
  CHECK(json::parse(text) == want);

  std::vector<std::vector<MeasurementRecord>> measured;
  const json document = parse_database_document(text, measured);
  REQUIRE(measured.size() == 2);
  REQUIRE(measured[0].size() == 3);
  CHECK(measured[1].empty());
  for (size_t i = 0; i < 3; ++i) check_same(measured[0][i], r.measurements[i]);  // numbers exact: round-trip text
  CHECK(document["matrices"][0]["name"] == r.name);
  CHECK(document["matrices"][0]["compulsory_bytes"].is_number_float());

  // A string that is not UTF-8 is refused as nlohmann's dump refuses it, not written unreadable.
  MatrixRecord bad = empty;
  bad.measurements.push_back(failed);
  bad.measurements.back().status = "error: \xff\xfe";
  CHECK_THROWS_AS(database_text(head, {bad}), json::type_error);
}
