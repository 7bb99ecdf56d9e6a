// The tuner on the GPU: a search that verifies and records everything, reuse of the database, the
// budget stop and resume, and run-time selection through Context::load.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "core/random_matrix.hpp"
#include "gpu_test_util.hpp"
#include "runtime/spmv.hpp"
#include "tuner/database.hpp"
#include "tuner/tuner.hpp"

using namespace jitsparse;

namespace {

TuneOptions small_search() {
  TuneOptions o;
  o.precisions = {Precision::f64};
  o.threads_per_row = {1, 4};
  o.top_layouts = 1;
  o.progress = false;
  return o;
}

HostMatrix test_matrix(const char* entry, const char* name, uint64_t seed = 1) {
  RandomMatrixOptions o;
  o.seed = seed;
  o.rows = 3001;
  o.cols = 2999;
  o.mean_row = 8;
  o.empty_fraction = 0.05;
  o.long_row = 900;
  o.name = name;
  return random_matrix(EntryRegistry::instance().get(entry), o);
}

}  // namespace

TEST_CASE("gpu tuner: search, record, reuse, select") {
  Context& ctx = test::gpu_context();
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-gpu-tuner-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const HostMatrix a = test_matrix("quaternion", "tuner_test_quaternion");
  {
    TuningDatabase db(ctx.device(), dir);
    Tuner tuner(ctx, db, small_search());
    CHECK(tuner.tune(a, "test"));
    tuner.finish();
    const MatrixRecord* r = db.find(matrix_hash(a), "f64");
    REQUIRE(r != nullptr);
    CHECK(r->complete);
    CHECK_FALSE(r->winner.empty());
    CHECK_FALSE(r->schedule_only.empty());
    CHECK(r->schedule_only.find("/csr-aos-aos/") != std::string::npos);
    size_t ok = 0;
    for (const auto& m : r->measurements) {
      INFO(m.variant, ": ", m.status);
      CHECK((m.ok() || m.status.rfind("skipped", 0) == 0));
      ok += m.ok();
    }
    CHECK(ok > 16 * 2);  // every layout x tpr, then the grids
    CHECK(r->find(r->winner)->median_us <= r->find(r->schedule_only)->median_us);
    const auto doc = tuner.report();
    REQUIRE(doc["matrices"].size() == 1);
    CHECK(doc["matrices"][0]["layouts"].size() == all_layouts().size());
    CHECK(doc["matrices"][0]["heatmaps"].size() >= 2);
  }
  {
    // A second run over the same matrix and GPU reuses the database: nothing is measured again.
    TuningDatabase db(ctx.device(), dir);
    const size_t before = db.find(matrix_hash(a), "f64")->measurements.size();
    Tuner tuner(ctx, db, small_search());
    CHECK(tuner.tune(a, "test"));
    CHECK(db.find(matrix_hash(a), "f64")->measurements.size() == before);
  }
  {
    // Selection from the database the context reads.
    Context other(0, dir);
    const auto choice = other.load(a, Precision::f64);
    CHECK(choice.level == "exact");
    TuningDatabase db(ctx.device(), dir);
    CHECK(choice.variant.name() == db.find(matrix_hash(a), "f64")->winner);
    const auto fresh = other.load(test_matrix("quaternion", "unseen", 2), Precision::f64);
    CHECK(fresh.level == "nearest");
    const auto none = other.load(test_matrix("complex", "complex_unseen"), Precision::f64);
    CHECK(none.level == "default");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("gpu tuner: a budget stops cleanly and a second run resumes") {
  Context& ctx = test::gpu_context();
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-gpu-budget-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const HostMatrix a = test_matrix("block3", "tuner_test_block3");
  TuneOptions o = small_search();
  o.budget_seconds = 1.5;  // enough for part of the search on a warm cache, never all of it
  size_t first = 0;
  {
    TuningDatabase db(ctx.device(), dir);
    Tuner tuner(ctx, db, o);
    CHECK_FALSE(tuner.tune(a, "test"));
    const MatrixRecord* r = db.find(matrix_hash(a), "f64");
    if (r) {  // stopped during the search: the best so far is recorded, the record says incomplete
      CHECK_FALSE(r->complete);
      if (r->best()) CHECK(r->winner == r->best()->variant);
      first = r->measurements.size();
    }
  }
  {
    TuningDatabase db(ctx.device(), dir);
    Tuner tuner(ctx, db, small_search());
    CHECK(tuner.tune(a, "test"));
    const MatrixRecord* r = db.find(matrix_hash(a), "f64");
    REQUIRE(r != nullptr);
    CHECK(r->complete);
    CHECK(r->measurements.size() > first);
  }
  std::filesystem::remove_all(dir);
}
