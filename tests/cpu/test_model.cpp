// The selection model on a synthetic tuning database whose timings follow known rules per family: it must
// learn them (leave-one-out picks each family's winner), keep held-out and quick records out of its
// training, estimate what a neighbour did not time, and the evaluation must score it honestly.
#include <doctest/doctest.h>

#include "fake_gpu_util.hpp"

#include <set>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/features.hpp"
#include "core/file_util.hpp"
#include "core/random_matrix.hpp"
#include "core/yardstick.hpp"
#include "selection/database.hpp"
#include "selection/model.hpp"
#include "selection/model_terms.hpp"
#include "selection/quick_plan.hpp"
#include "selection/select.hpp"
#include "tuner/evaluate.hpp"
#include "tuner/tuner.hpp"

using namespace jitsparse;

namespace {

const std::string kEll = "real.f64/ell-aos-aos/static-256x8";
const std::string kSell = "real.f64/sell32-aos-aos/static-256x8";
const std::string kCsr = "real.f64/csr-aos-aos/static-256x8";
const std::string kCsr4 = "real.f64/csr-aos-aos/static-256x8-tpr4";
const std::string kCsr4Dynamic = "real.f64/csr-aos-aos/dynamic-128x16-tpr4";

// Exactly `per_row` entries in every row, around the diagonal: ELL's best case.
HostMatrix banded(int32_t n, int per_row, const std::string& name) {
  HostMatrix m;
  m.entry = EntryRegistry::instance().get("real");
  m.name = name;
  m.rows = m.cols = n;
  m.row_ptr = {0};
  for (int32_t r = 0; r < n; ++r) {
    const int32_t first = std::clamp(r - per_row / 2, 0, n - per_row);
    for (int k = 0; k < per_row; ++k) {
      m.col_idx.push_back(first + k);
      m.values.push_back(1.0 + k);
    }
    m.row_ptr.push_back(static_cast<int64_t>(m.col_idx.size()));
  }
  return m;
}

struct Family {
  std::string domain;
  std::map<std::string, double> relative;  // variant -> time over the family's best; < 0: failed
};

const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {"regular", {{kEll, 1.0}, {kSell, 1.06}, {kCsr, 1.3}, {kCsr4, 1.5}}},
      {"moderate", {{kSell, 1.0}, {kCsr, 1.12}, {kCsr4, 1.3}, {kEll, 1.9}}},
      {"skewed", {{kCsr4, 1.0}, {kCsr4Dynamic, 0.97}, {kCsr, 1.25}, {kSell, 1.6}, {kEll, -1}}},
  };
  return f;
}

HostMatrix family_matrix_of(const std::string& domain, int i) {
  const int32_t n = 2000 + 1500 * i;
  const std::string name = domain + "_" + std::to_string(i);
  if (domain == "regular") return banded(n, 7, name);
  RandomMatrixOptions o;
  o.rows = o.cols = n;
  o.mean_row = 7;
  o.band = 40;
  o.seed = 100 + static_cast<uint64_t>(i);
  o.name = name;
  if (domain == "skewed") {
    o.mean_row = 3;
    o.long_row = n / 2;  // one row holds a large share of the entries
  }
  return random_matrix(EntryRegistry::instance().get("real"), o);
}

MatrixRecord record_of(const HostMatrix& a, const std::string& domain, const std::map<std::string, double>& rel) {
  MatrixRecord r;
  r.name = a.name;
  r.hash = matrix_hash(a);
  r.entry = "real";
  r.precision = "f64";
  r.domain = domain;
  r.features = compute_features(a);
  r.compulsory_bytes = compulsory_bytes(a, Precision::f64);
  const double base_us = 1e-3 * static_cast<double>(a.nnz());
  for (const auto& [variant, f] : rel) {
    MeasurementRecord m;
    m.variant = variant;
    m.seconds = 0.01;
    if (f < 0) {
      m.status = "wrong: row 1";
    } else {
      m.status = "ok";
      m.median_us = base_us * f;
    }
    r.measurements.push_back(m);
  }
  r.winner = r.best()->variant;
  r.complete = true;
  return r;
}

DeviceInfo test_gpu() { return test::fake_gpu("Model GPU", 16 << 20); }

struct TempDb {
  std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-model-test-" + std::to_string(::getpid()));
  TuningDatabase db{test_gpu(), dir};
  TempDb() {
    for (const auto& f : families())
      for (int i = 0; i < 6; ++i) db.upsert(record_of(family_matrix_of(f.domain, i), f.domain, f.relative));
  }
  ~TempDb() { std::filesystem::remove_all(dir); }
};

// A database of the regular family alone (ELL fastest) with `extra` timings added, every record's
// compulsory bytes set to `compulsory` where that is > 0; its folder goes with it.
struct GridDb {
  std::string dir;
  TuningDatabase db;
  GridDb(const std::string& name, const std::map<std::string, double>& extra, double compulsory = 0)
      : dir(std::filesystem::temp_directory_path() / ("jitsparse-model-" + name + "-" + std::to_string(::getpid()))),
        db(test_gpu(), dir) {
    auto rel = families()[0].relative;
    for (const auto& [variant, relative] : extra) rel[variant] = relative;
    for (int i = 0; i < 6; ++i) {
      MatrixRecord r = record_of(family_matrix_of("regular", i), "regular", rel);
      if (compulsory > 0) r.compulsory_bytes = compulsory;
      db.upsert(r);
    }
  }
  ~GridDb() { std::filesystem::remove_all(dir); }
};

// A real f64 record as a complex one (the same timings under "complex.f64/..." names, its own key).
MatrixRecord as_complex(MatrixRecord r) {
  r.entry = "complex";
  for (auto& m : r.measurements) m.variant.replace(0, 4, "complex");
  r.winner.replace(0, 4, "complex");
  r.hash += "c";
  return r;
}

ModelQuery query_of(const MatrixRecord& r) {
  return {r.features, r.compulsory_bytes, r.entry, Precision::f64, Op::n, false};
}

// A real query of 7 entries a row, `rows` rows, in random order (its columns a third of the rows away from
// the diagonal on average): renumbering may pay, by reverse Cuthill-McKee.
ModelQuery scattered_query(int64_t rows) {
  const HostMatrix grid = banded(7000, 7, "grid");
  ModelQuery q{compute_features(grid), compulsory_bytes(grid, Precision::f64), "real", Precision::f64, Op::n, false};
  q.features.rows = q.features.cols = rows;
  q.features.mean_distance_from_diagonal = 0.3 * static_cast<double>(rows);
  REQUIRE(renumbering_may_pay(q.features));
  REQUIRE(preferred_ordering(q.features) == Ordering::rcm);
  return q;
}

// Record i of the "scattered" domain: the given features and exactly these timings (variant -> us).
MatrixRecord scattered_record(int i, const MatrixFeatures& f, const std::map<std::string, double>& us) {
  MatrixRecord r = record_of(banded(3000 + 500 * i, 7, "scattered_" + std::to_string(i)), "scattered", {{kEll, 1.0}});
  r.features = f;
  r.measurements.clear();
  for (const auto& [v, t] : us) {
    MeasurementRecord m;
    m.variant = v;
    m.status = "ok";
    m.median_us = t;
    r.measurements.push_back(m);
  }
  r.winner = r.best()->variant;
  return r;
}

}  // namespace

TEST_CASE("model: leave-one-out learns each family's winner from its neighbours' profiles") {
  TempDb t;
  const SelectionModel model(t.db, test_gpu().l2_bytes);
  for (const MatrixRecord* r : t.db.records()) {
    CAPTURE(r->name);
    const Prediction p = model.predict(query_of(*r), {r->hash, ""});
    REQUIRE_FALSE(p.empty());
    CHECK(p.ranked.front().variant == r->winner);
    // The held-out matrix never teaches itself; its family holds the nearest neighbour and most of the
    // weight (size counts too: a matrix of another family and the same size may be among the five).
    double family_weight = 0;
    for (const auto& n : p.neighbours) {
      CHECK(n.name != r->name);
      if (n.name.rfind(r->domain, 0) == 0) family_weight += n.weight;
    }
    CHECK(p.neighbours.front().name.rfind(r->domain, 0) == 0);
    CHECK(family_weight > 0.5);
    CHECK(p.confidence > 0);
    CHECK(p.confidence <= 1);
    // The expected time of the first candidate is what its family's rule says (1.0 or the 0.97 variant).
    CHECK(p.ranked.front().expected_relative == doctest::Approx(1.0).epsilon(0.05));
  }
}

TEST_CASE("model: one model kept for many queries predicts what a fresh model predicts for each") {
  // load_tuned keeps one prepared model per database; evaluate asks one model for every record.
  TempDb t;
  const SelectionModel kept(t.db, test_gpu().l2_bytes);
  kept.prepare();
  auto same = [](const Prediction& a, const Prediction& b) {
    REQUIRE(a.ranked.size() == b.ranked.size());
    for (size_t i = 0; i < a.ranked.size(); ++i) {
      CHECK(a.ranked[i].variant == b.ranked[i].variant);
      CHECK(a.ranked[i].expected_relative == b.ranked[i].expected_relative);
      CHECK(a.ranked[i].spread == b.ranked[i].spread);
    }
    REQUIRE(a.neighbours.size() == b.neighbours.size());
    for (size_t i = 0; i < a.neighbours.size(); ++i) CHECK(a.neighbours[i].name == b.neighbours[i].name);
    CHECK(a.transferred == b.transferred);
    CHECK(a.confidence == b.confidence);
  };
  for (const MatrixRecord* r : t.db.records()) {
    CAPTURE(r->name);
    for (const bool deterministic : {false, true}) {
      ModelQuery q = query_of(*r);
      q.deterministic = deterministic;
      same(kept.predict(q, {r->hash, ""}), SelectionModel(t.db, test_gpu().l2_bytes).predict(q, {r->hash, ""}));
    }
    // transferred to complex entries: renamed profiles, kept apart from the records' own
    const ModelQuery complex{r->features, 2 * r->compulsory_bytes, "complex", Precision::f64, Op::n, false, 2};
    const Prediction transferred = kept.predict(complex);
    CHECK(transferred.transferred);
    same(transferred, SelectionModel(t.db, test_gpu().l2_bytes).predict(complex));
    same(kept.predict(query_of(*r)), SelectionModel(t.db, test_gpu().l2_bytes).predict(query_of(*r)));
  }
}

TEST_CASE("model: a variant a neighbour never timed is estimated from its layout there") {
  TempDb t;
  const MatrixRecord* skewed = nullptr;
  for (const MatrixRecord* r : t.db.records())
    if (r->name == "skewed_5") skewed = r;
  REQUIRE(skewed);
  // Remove the dynamic variant from every skewed record but one: the others estimate it from their tpr4
  // csr pair (+5%), so it is measured on one neighbour and estimated on the rest.
  for (const MatrixRecord* r : t.db.records()) {
    if (r->domain != "skewed" || r->name == "skewed_0") continue;
    MatrixRecord copy = *r;
    copy.measurements.erase(std::remove_if(copy.measurements.begin(), copy.measurements.end(),
                                           [](const MeasurementRecord& m) { return m.variant == kCsr4Dynamic; }),
                            copy.measurements.end());
    copy.winner = copy.best()->variant;
    t.db.upsert(copy);
  }
  const SelectionModel model(t.db, test_gpu().l2_bytes);
  const Prediction p = model.predict(query_of(*t.db.find(skewed->hash, "f64")), {skewed->hash, ""});
  const auto dynamic = std::find_if(p.ranked.begin(), p.ranked.end(), [](const Candidate& c) { return c.variant == kCsr4Dynamic; });
  REQUIRE(dynamic != p.ranked.end());
  CHECK(dynamic->measured_on == 1);
  CHECK(dynamic->spread > 0);
  // A variant that failed on a neighbour (ELL on the skewed rows) ranks last there.
  const auto ell = std::find_if(p.ranked.begin(), p.ranked.end(), [](const Candidate& c) { return c.variant == kEll; });
  CHECK(ell == p.ranked.end());  // never near any neighbour's best: not even a candidate
}

TEST_CASE("model: quick and incomplete records and other entry types never teach it") {
  TempDb t;
  const HostMatrix probe = family_matrix_of("moderate", 2);
  // Every record of the family turned into a quick or an incomplete search: the model falls back on the
  // other families.
  for (const MatrixRecord* r : t.db.records()) {
    if (r->domain != "moderate") continue;
    MatrixRecord copy = *r;
    if (r->name.back() % 2) copy.search = "quick";
    else copy.complete = false;
    t.db.upsert(copy);
  }
  const SelectionModel model(t.db, test_gpu().l2_bytes);
  const Prediction p = model.predict({compute_features(probe), compulsory_bytes(probe, Precision::f64), "real",
                                      Precision::f64, Op::n, false});
  REQUIRE_FALSE(p.empty());
  for (const auto& n : p.neighbours) CHECK(n.name.rfind("moderate", 0) != 0);
  // Another entry type learns from these real records, transferred, with the variants renamed.
  const Prediction transfer = model.predict({compute_features(probe), 1e6, "complex", Precision::f64, Op::n, false, 2});
  REQUIRE_FALSE(transfer.empty());
  CHECK(transfer.transferred);
  CHECK(transfer.ranked.front().variant.rfind("complex.f64/", 0) == 0);
  CHECK_FALSE(model.predict({compute_features(probe), 1e6, "real", Precision::f64, Op::n, false}).transferred);
  CHECK(model.predict({compute_features(probe), 1e6, "real", Precision::f32, Op::n, false}).empty());
  CHECK(model.predict({compute_features(probe), 1e6, "real", Precision::f64, Op::t, false}).empty());
  // Leave the whole family out: no neighbour of that domain.
  const Prediction lofo = model.predict(query_of(*t.db.records().front()), {"", t.db.records().front()->domain});
  CHECK(family_of_domain("train-dirac") == "dirac");
  CHECK(family_of_domain("builtin-dirac") == "dirac");
  CHECK(family_of_domain("my_meshes") == "my_meshes");
  for (const auto& n : lofo.neighbours) CHECK(n.name.rfind(t.db.records().front()->domain, 0) != 0);
  // Learning only from the domains of a prefix (evaluate --holdout main: the main job's built-in set).
  TrainingFilter only_moderate;
  only_moderate.learn_only_prefix = "mod";
  const Prediction from_moderate = model.predict(query_of(*t.db.records().front()), only_moderate);
  for (const auto& n : from_moderate.neighbours) CHECK(n.name.rfind("moderate", 0) == 0);
}

TEST_CASE("model: the main-set holdout learns from the built-in domains and predicts for every other matrix") {
  TempDb t;
  std::set<std::string> builtin;
  for (const MatrixRecord* r : t.db.records()) {
    if (r->name.back() % 3) continue;  // a third of each family plays the built-in set
    MatrixRecord copy = *r;
    copy.domain = std::string(kMainSetDomainPrefix) + r->domain;
    builtin.insert(copy.name);
    t.db.upsert(copy);
  }
  REQUIRE_FALSE(builtin.empty());
  EvaluationOptions o;
  o.l2_bytes = test_gpu().l2_bytes;
  o.holdout = "main";
  const auto rows = Evaluation(t.db, o).rows(t.db);
  CHECK(rows.size() == 18 - builtin.size());
  for (const auto& r : rows) CHECK_FALSE(builtin.count(r.matrix));
  // Each family's rule is learnt from its built-in third (two matrices: the neighbours take in other
  // families too, so not every choice is the best).
  const auto s = evaluation_summary(rows);
  CHECK(s["model"]["timed"].get<int>() >= static_cast<int>(rows.size()) / 2);
  CHECK(s["model"]["share_within_10_percent"].get<double>() >= 0.8);
  CHECK(holdout_title("main").find("main set") != std::string::npos);
  CHECK(holdout_title("family") == "leave one family out");
}

TEST_CASE("model: selection uses it for a matrix never tuned and says so") {
  TempDb t;
  const HostMatrix unseen = banded(9000, 7, "unseen_band");
  const Selection s = select_variant(t.db, unseen, Precision::f64, test_gpu());
  CHECK(s.level == "model");
  CHECK(s.variant.name() == kEll);
  CHECK(s.detail.find("never tuned") != std::string::npos);
  CHECK(s.detail.find("confidence") != std::string::npos);
  CHECK_FALSE(s.prediction.empty());
}

TEST_CASE("model: the rule of thumb picks ELL, sliced ELL or CSR by the row lengths, at stage one's schedule") {
  const ScheduleLimits limits;
  const auto regular = compute_features(banded(500, 7, "b"));
  CHECK(rule_of_thumb(regular, "real", Precision::f64, Op::n, false, limits).name() == kEll + "-tpr2");
  const auto moderate = compute_features(family_matrix_of("moderate", 0));
  CHECK(rule_of_thumb(moderate, "real", Precision::f64, Op::n, false, limits).layout.name() == "sell32-aos-aos");
  const auto skewed = compute_features(family_matrix_of("skewed", 0));
  CHECK(rule_of_thumb(skewed, "real", Precision::f64, Op::n, false, limits).layout.name() == "csr-aos-aos");
  // Stage one of the full search runs it, so its time is always in a full record.
  TuneOptions o;
  const auto stage1 = stage_one_variants(EntryRegistry::instance().get("real"), Precision::f64, o, limits);
  for (const auto& f : {regular, moderate, skewed}) {
    const Variant v = rule_of_thumb(f, "real", Precision::f64, Op::n, false, limits);
    CHECK(std::find(stage1.begin(), stage1.end(), v) != stage1.end());
  }
  const Variant det = rule_of_thumb(skewed, "complex", Precision::f32, Op::t, true, limits);
  CHECK(det.transpose == TransposeKind::copy);
}

TEST_CASE("model: the evaluation scores every predictor and lists what the search never timed") {
  TempDb t;
  EvaluationOptions o;
  o.l2_bytes = test_gpu().l2_bytes;
  const Evaluation ev(t.db, o);
  const auto rows = ev.rows(t.db);
  REQUIRE(rows.size() == 18);
  for (const auto& r : rows) {
    CAPTURE(r.matrix);
    REQUIRE(r.model.relative);
    CHECK(*r.model.relative == doctest::Approx(1.0));
    REQUIRE(r.quick.relative);
    CHECK(*r.quick.relative <= *r.model.relative);
    // Quick tuning's GPU time is estimated: each variant of its rounds at one search measurement of the
    // record (0.01 s here), 9 more for re-timing its finalists and the warm-up before them. (This synthetic
    // search is tiny.)
    CHECK(r.quick_k > 0);
    CHECK(r.quick_seconds == doctest::Approx((r.quick_k + 9) * 0.01 + kQuickWarmupMs / 1000));
  }
  // On a GPU whose L2 is less than eight times these matrices the finalists are timed cold too: 3 more.
  EvaluationOptions small_l2 = o;
  small_l2.l2_bytes = 1024;
  for (const auto& r : Evaluation(t.db, small_l2).rows(t.db))
    if (r.quick_k > 0) CHECK(r.quick_seconds == doctest::Approx((r.quick_k + 12) * 0.01 + kQuickWarmupMs / 1000));
  const auto s = evaluation_summary(rows);
  CHECK(s["model"]["share_within_10_percent"].get<double>() == 1.0);
  CHECK(s["model"]["timed"].get<int>() == 18);
  CHECK(s["rule_of_thumb"]["timed"].get<int>() > 0);
  // The model's choices were timed everywhere; what is missing is the rule of thumb's (this synthetic
  // search never ran two threads per row) and quick tuning's schedule grid (it ran one schedule per pair).
  std::set<std::string> chosen_by_model;
  for (const auto& r : rows) chosen_by_model.insert(r.model.variant);
  bool rule_missing = false;
  for (const auto& m : ev.missing(t.db))
    for (const auto& v : m.variants) {
      CHECK_FALSE(chosen_by_model.count(v));
      rule_missing = rule_missing || v.find("-tpr2") != std::string::npos;
    }
  CHECK(rule_missing);

  // A matrix whose record lacks the model's choice: reported as not timed, and listed to be measured.
  MatrixRecord cut = *t.db.records().front();
  const std::string chosen = cut.winner;
  cut.measurements.erase(std::remove_if(cut.measurements.begin(), cut.measurements.end(),
                                        [&](const MeasurementRecord& m) { return m.variant == chosen; }),
                         cut.measurements.end());
  cut.winner = cut.best()->variant;
  t.db.upsert(cut);
  const Evaluation again(t.db, o);
  const auto missing = again.missing(t.db);
  const auto of_cut = std::find_if(missing.begin(), missing.end(), [&](const MissingTimes& m) { return m.name == cut.name; });
  REQUIRE(of_cut != missing.end());
  CHECK(std::find(of_cut->variants.begin(), of_cut->variants.end(), chosen) != of_cut->variants.end());
  // Asked for that matrix alone (evaluate on the GPU asks matrix by matrix): its own lists, the same.
  const auto only_cut = again.missing(t.db, cut.hash);
  REQUIRE_FALSE(only_cut.empty());
  for (const auto& m : only_cut) {
    CHECK(m.hash == cut.hash);
    const auto same = std::find_if(missing.begin(), missing.end(),
                                   [&](const MissingTimes& o) { return o.hash == m.hash && o.precision == m.precision; });
    REQUIRE(same != missing.end());
    CHECK(same->variants == m.variants);
  }
  const auto rows2 = again.rows(t.db);
  const auto row = std::find_if(rows2.begin(), rows2.end(), [&](const EvaluationRow& r) { return r.matrix == cut.name; });
  REQUIRE(row != rows2.end());
  CHECK(row->model.status == "not timed");
  CHECK_FALSE(row->model.relative);
  // Without quick tuning's rounds (--no-quick-timing): the first choices only, the model's among them.
  EvaluationOptions first_only = o;
  first_only.time_quick = false;
  const Evaluation firsts(t.db, first_only);
  const auto cut_firsts = firsts.missing(t.db, cut.hash);
  REQUIRE_FALSE(cut_firsts.empty());
  for (const auto& m : cut_firsts)
    for (const auto& v : m.variants) {
      CAPTURE(v);
      CHECK((v == row->model.variant || v == row->rule.variant || v == row->nearest_winner.variant));
    }
  CHECK(std::find(cut_firsts.front().variants.begin(), cut_firsts.front().variants.end(), chosen) !=
        cut_firsts.front().variants.end());
  EvaluationOptions bad = o;
  bad.holdout = "planet";
  CHECK_THROWS_AS(Evaluation(t.db, bad), InvalidArgument);
}

TEST_CASE("model: the database keeps the search kind, the timing and the seconds of each measurement") {
  TempDb t;
  MatrixRecord r = *t.db.records().front();
  CHECK(r.timing == "stream");  // a record without the field: from before graph timing
  r.search = "quick";
  r.timing = "graph";
  r.measurements.front().seconds = 0.25;
  t.db.upsert(r);
  t.db.save();
  const TuningDatabase again(t.db.path());
  const MatrixRecord* back = again.find(r.hash, "f64");
  REQUIRE(back);
  CHECK(back->search == "quick");
  CHECK(back->timing == "graph");
  CHECK(back->measurements.front().seconds == 0.25);
  CHECK(again.l2_bytes() == test_gpu().l2_bytes);
  // A search kind or a timing nobody wrote is a corrupt file.
  const std::string good = *read_file(t.db.path());
  for (const char* field : {"search", "timing"}) {
    INFO(field);
    nlohmann::json j = nlohmann::json::parse(good);
    j["matrices"][0][field] = "psychic";
    write_file_atomically(t.db.path(), j.dump());
    const TuningDatabase broken(test_gpu(), t.dir);
    CHECK(broken.warning().find("corrupt") != std::string::npos);
  }
}

TEST_CASE("model: what an evaluation measured never changes a prediction, nor the search's GPU time") {
  TempDb t;
  const SelectionModel model(t.db, test_gpu().l2_bytes);
  const MatrixRecord* held = t.db.records().front();
  const Prediction before = model.predict(query_of(*held), {held->hash, ""});
  REQUIRE_FALSE(before.empty());
  EvaluationOptions o;
  o.l2_bytes = test_gpu().l2_bytes;
  const auto rows_before = Evaluation(t.db, o).rows(t.db);
  // Every second record gains a variant, marked as the evaluation's, far faster than anything the search
  // found (and expensive to measure): the neighbours' profiles must not move.
  std::vector<MatrixRecord> changed;
  int index = 0;
  for (const MatrixRecord* r : t.db.records()) {
    if (r == held || index++ % 2 == 0) continue;
    MatrixRecord c = *r;
    MeasurementRecord m;
    m.variant = "real.f64/csr-soa-soa/dynamic-1024x1-tpr32";
    m.status = "ok";
    m.median_us = c.best()->median_us / 10;
    m.seconds = 100;
    m.origin = "evaluation";
    c.upsert(m);
    c.winner = m.variant;  // as choose_winners makes it after an evaluation's measurements
    changed.push_back(c);
  }
  for (const auto& c : changed) t.db.upsert(c);
  const Prediction after = SelectionModel(t.db, test_gpu().l2_bytes).predict(query_of(*held), {held->hash, ""});
  REQUIRE(after.ranked.size() == before.ranked.size());
  for (size_t i = 0; i < after.ranked.size(); ++i) {
    CHECK(after.ranked[i].variant == before.ranked[i].variant);
    CHECK(after.ranked[i].expected_relative == doctest::Approx(before.ranked[i].expected_relative));
    CHECK(after.ranked[i].spread == doctest::Approx(before.ranked[i].spread));
  }
  const auto rows_after = Evaluation(t.db, o).rows(t.db);
  REQUIRE(rows_after.size() == rows_before.size());
  for (size_t i = 0; i < rows_after.size(); ++i) {
    CHECK(rows_after[i].full_seconds == doctest::Approx(rows_before[i].full_seconds));
    // nor the nearest matrix's winner, the old selection's baseline: the search's, not the evaluation's
    CHECK(rows_after[i].nearest_winner.variant == rows_before[i].nearest_winner.variant);
  }
  // The origin survives a save; an unknown one is a corrupt file.
  t.db.save();
  const TuningDatabase again(t.db.path());
  CHECK(again.find(changed.front().hash, "f64")->find("real.f64/csr-soa-soa/dynamic-1024x1-tpr32")->origin == "evaluation");
  nlohmann::json j = nlohmann::json::parse(*read_file(t.db.path()));
  for (auto& m : j["matrices"][0]["measurements"]) m["origin"] = "rumour";
  write_file_atomically(t.db.path(), j.dump());
  CHECK(TuningDatabase(test_gpu(), t.dir).warning().find("corrupt") != std::string::npos);
}

TEST_CASE("model: its coordinates rank similar matrices nearer and saturate against L2") {
  const EntryType& real = EntryRegistry::instance().get("real");
  const long long l2 = 16 << 20;
  auto coords = [&](const HostMatrix& a, double bytes = -1) {
    return model_features(compute_features(a), bytes < 0 ? compulsory_bytes(a, Precision::f64) : bytes, l2);
  };
  auto dist = [](const auto& x, const auto& y) {
    double d = 0;
    for (size_t i = 0; i < x.size(); ++i) d += (x[i] - y[i]) * (x[i] - y[i]);
    return std::sqrt(d);
  };
  RandomMatrixOptions o;
  o.rows = o.cols = 1000, o.mean_row = 8, o.seed = 1;
  const auto a = coords(random_matrix(real, o));
  o.seed = 2;
  const auto a2 = coords(random_matrix(real, o));  // same kind, other seed
  o.rows = o.cols = 1500;
  const auto a3 = coords(random_matrix(real, o));  // a bit larger
  o.rows = o.cols = 100000, o.mean_row = 2, o.long_row = 5000;
  const auto b = coords(random_matrix(real, o));  // very different
  CHECK(dist(a, a) == 0);
  CHECK(dist(a, a2) < dist(a, a3));
  CHECK(dist(a, a3) < dist(a, b));
  for (double v : b) CHECK(std::isfinite(v));
  // Far inside L2 or far beyond it, the size against L2 no longer moves the matrix.
  const HostMatrix m = banded(1000, 5, "m");
  CHECK(coords(m, 1e3)[2] == coords(m, 1e5)[2]);
  CHECK(coords(m, 1e10)[2] == coords(m, 1e12)[2]);
  CHECK(coords(m, 1e10)[2] > coords(m, 16e6)[2]);
  HostMatrix empty;
  empty.entry = real;
  for (double v : coords(empty, 0)) CHECK(std::isfinite(v));
}

// The model's prediction for a real matrix never tuned, in double, op n.
Prediction predict_real_f64(const SelectionModel& model, const HostMatrix& a) {
  return model.predict({compute_features(a), static_cast<double>(compulsory_bytes(a, Precision::f64)), "real",
                        Precision::f64, Op::n, false});
}

TEST_CASE("model: a layout's padding on the query scales what its neighbours measured (ELL from grids)") {
  // Only regular grids were tuned, where ELL wins; the query's rows vary (lengths 1..13, one long row), so
  // ELL would read about max/mean times the entries there: it must not be the first choice.
  const GridDb grids("padding", {});
  RandomMatrixOptions o;
  o.rows = o.cols = 6000;
  o.mean_row = 7;
  o.band = 40;
  o.long_row = 60;
  const HostMatrix irregular = random_matrix(EntryRegistry::instance().get("real"), o);
  REQUIRE(compute_features(irregular).max_row >= 60);
  auto ell_of = [](const Prediction& p) {
    const auto ell = std::find_if(p.ranked.begin(), p.ranked.end(), [](const Candidate& c) { return c.variant == kEll; });
    REQUIRE(ell != p.ranked.end());
    return *ell;
  };
  // Bandwidth-bound (the matrices are far larger than this L2): the full ratio of the bytes.
  const SelectionModel streamed(grids.db, 64 << 10);
  const Prediction p = predict_real_f64(streamed, irregular);
  REQUIRE(!p.ranked.empty());
  CHECK(p.ranked.front().variant != kEll);
  CHECK(ell_of(p).expected_relative > 2.0);  // about max/mean of the entry bytes, plus the vectors
  // On a grid like the neighbours, nothing changes: ELL stays first (or its narrow twin, which gains on
  // a bandwidth-bound matrix).
  const Prediction g = predict_real_f64(streamed, banded(7000, 7, "grid"));
  REQUIRE(!g.ranked.empty());
  CHECK(g.ranked.front().variant.rfind("real.f64/ell-aos-aos", 0) == 0);
  // Latency-bound (under a quarter of a 16 MB L2): padding costs less, not nothing.
  const SelectionModel resident(grids.db, test_gpu().l2_bytes);
  const Prediction small = predict_real_f64(resident, irregular);
  REQUIRE(!small.ranked.empty());
  CHECK(small.ranked.front().variant != kEll);
  CHECK(ell_of(small).expected_relative > 1.1);
  CHECK(ell_of(small).expected_relative < ell_of(p).expected_relative);
}

TEST_CASE("model: a large query whose rows sorting packs tighter gets sorted twins, rated through ELL and sell32 where nobody sorted") {
  using namespace model_detail;
  CHECK(with_outer("real.f64/ell-aos-soa-d16/static-512x4-u4@rcm", "sell32s256") ==
        "real.f64/sell32s256-aos-soa-d16/static-512x4-u4@rcm");
  CHECK(with_outer("nonsense", "sell32s256").empty());
  // Only regular grids were tuned (ELL fastest, sell32 timed, nothing sorted: sorting pays nothing there).
  const GridDb grids("sorted", {});
  RandomMatrixOptions o;
  o.rows = o.cols = 6000;
  o.mean_row = 7;
  o.band = 40;
  const HostMatrix irregular = random_matrix(EntryRegistry::instance().get("real"), o);
  auto query = [](const HostMatrix& a) {
    ModelQuery q{compute_features(a), static_cast<double>(compulsory_bytes(a, Precision::f64)), "real", Precision::f64, Op::n, false};
    q.features.narrow_fits = 0;  // no narrow twins: the layouts alone compete
    return q;
  };
  REQUIRE(sorted_sell_pays(query(irregular).features, 1));
  auto sorted_candidates = [](const Prediction& p) {
    return std::count_if(p.ranked.begin(), p.ranked.end(), [](const Candidate& c) {
      return shape_of(c.variant).padding == VariantShape::Padding::sorted_sell;
    });
  };
  // Bandwidth-bound (far larger than this L2): ELL and sell32 pay their padding, the sorted twin of the
  // first candidate its row order and scattered y on the grids and little padding on the query.
  const SelectionModel streamed(grids.db, 64 << 10);
  const Prediction p = streamed.predict(query(irregular));
  REQUIRE(!p.ranked.empty());
  CHECK(p.ranked.front().variant == "real.f64/sell32s256-aos-aos/static-256x8");
  CHECK(p.ranked.front().expected_relative < 1.0001);
  // On a grid like the neighbours sorting pays nothing: no sorted candidate, ELL first.
  const Prediction g = streamed.predict(query(banded(7000, 7, "grid")));
  REQUIRE(!g.ranked.empty());
  CHECK(sorted_candidates(g) == 0);
  CHECK(g.ranked.front().variant == kEll);
  // Latency-bound (a small part of a 16 MB L2): padding costs less than the sorted layout's extra loads,
  // so no twins are made.
  const SelectionModel resident(grids.db, test_gpu().l2_bytes);
  const Prediction small = resident.predict(query(irregular));
  REQUIRE(!small.ranked.empty());
  CHECK(sorted_candidates(small) == 0);
}

TEST_CASE("model: padding costs by each side's bandwidth share") {
  using namespace model_detail;
  const long long l2 = 40 << 20;
  CHECK(bandwidth_share(l2 / 8.0, l2) == 0.0);
  CHECK(bandwidth_share(l2 / 2.0, l2) == doctest::Approx(0.5));
  CHECK(bandwidth_share(4.0 * l2, l2) == 1.0);
  CHECK(bandwidth_share(1e3, 0) == 1.0);  // L2 unknown: bytes decide
  // Both bandwidth-bound: the ratio of the traffic factors, its gain limited.
  CHECK(padding_log_ratio(3.0, 2.0 * l2, 1.5, 2.0 * l2, l2, 0.2) == doctest::Approx(std::log(2.0)));
  CHECK(padding_log_ratio(1.0, 2.0 * l2, 3.0, 2.0 * l2, l2, 0.2) == doctest::Approx(-0.2));
  // A latency-bound query pays kLatencyPaddingShare of its padding; a bandwidth-bound neighbour paid all of it.
  CHECK(padding_log_ratio(3.0, 1e5, 1.0, 2.0 * l2, l2, 0.2) == doctest::Approx(kLatencyPaddingShare * std::log(3.0)));
  CHECK(padding_log_ratio(1.2, 1e5, 1.2, 2.0 * l2, l2, 0.2) < 0);
  CHECK(padding_log_ratio(0.0, 1e5, 1.2, 2.0 * l2, l2, 0.2) == 0.0);  // unknown padding
}

TEST_CASE("model: a longer chain on the query's longest row adds its steps to a neighbour's time") {
  using namespace model_detail;
  MatrixFeatures neighbour, query;
  neighbour.max_row = 14;  // 2 steps at 8 threads per row, 1 at 16 or 32
  query.max_row = 21;      // 3 steps at 8, 2 at 16, 1 at 32
  VariantShape row;
  row.row_family = true;
  row.tpr = 8;
  CHECK(chain_log_delta(row, neighbour, query, 2.0) == doctest::Approx(std::log((2.0 + kChainStepUs) / 2.0)));
  row.tpr = 32;
  CHECK(chain_log_delta(row, neighbour, query, 2.0) == 0.0);
  // the other way: one step fewer, never below half the time
  row.tpr = 8;
  CHECK(chain_log_delta(row, query, neighbour, 2.0) == doctest::Approx(std::log((2.0 - kChainStepUs) / 2.0)));
  neighbour.max_row = 10000;
  CHECK(chain_log_delta(row, neighbour, query, 2.0) == doctest::Approx(std::log(0.5)));
  // microseconds: a large neighbour's time hardly moves; hola has no chain
  CHECK(std::abs(chain_log_delta(row, query, neighbour, 1000.0)) < 0.2);
  VariantShape hola;
  CHECK(chain_log_delta(hola, neighbour, query, 2.0) == 0.0);
}

TEST_CASE("model: at the floor a row kernel adds its pointer load and its longest row's chain") {
  using namespace model_detail;
  MatrixFeatures query;
  query.max_row = 21;  // 3 steps at 8 threads per row, 1 at 32
  VariantShape ell, csr, sell, hola;
  ell.row_family = csr.row_family = sell.row_family = true;
  ell.padding = VariantShape::Padding::ell;
  sell.padding = VariantShape::Padding::sorted_sell;
  ell.tpr = csr.tpr = sell.tpr = 8;
  CHECK(floor_latency_us(ell, query) == doctest::Approx(3 * kChainStepUs));
  CHECK(floor_latency_us(csr, query) == doctest::Approx(kPointerLoadUs + 3 * kChainStepUs));
  CHECK(floor_latency_us(sell, query) == doctest::Approx(kPointerLoadUs + 3 * kChainStepUs));
  csr.tpr = 32;
  CHECK(floor_latency_us(csr, query) == doctest::Approx(kPointerLoadUs + kChainStepUs));
  CHECK(floor_latency_us(hola, query) == 0.0);
}

TEST_CASE("model: a query with more rows than its neighbour pays for the neighbour's surplus threads per row") {
  using namespace model_detail;
  MatrixFeatures neighbour, query;
  neighbour.rows = 70000;  // enough at one thread a row (kParallelThreads); tpr 4 -> 280k, past kOverParallelThreads
  query.rows = 400000;     // every tpr is past it
  VariantShape one, four;
  one.row_family = four.row_family = true;
  one.tpr = 1;
  four.tpr = 4;
  // one thread a row: the query's surplus over one thread is nothing
  CHECK(parallelism_log_ratio(one, neighbour, query, 1) == doctest::Approx(0.0));
  // four: the query adds log(4) of surplus, the neighbour log(280k / 131k)
  const double expected = kParallelExponent * (std::log(4.0) - std::log(4.0 * 70000 / kOverParallelThreads));
  CHECK(parallelism_log_ratio(four, neighbour, query, 2) == doctest::Approx(expected));
  CHECK(expected > 0.1);
  // one-sided: the smaller query gets nothing back (too_few is 0 at these sizes)
  CHECK(parallelism_log_ratio(four, query, neighbour, 1) == doctest::Approx(0.0));
  // quaternions and 3x3 blocks keep their neighbours' threads per row
  CHECK(parallelism_log_ratio(four, neighbour, query, 4) == doctest::Approx(0.0));
  CHECK(parallelism_log_ratio(four, neighbour, query, 9) == doctest::Approx(0.0));
}

TEST_CASE("model: features measure the padding of sell32 and of the sorted sell32s256") {
  // 64 rows: lengths alternate 1 and 9 inside each slice of 32, so sell32 stores 9 per row; sorted in a
  // window of 256 (here all 64 rows), one slice holds the 9s and one the 1s: (9 + 1) / 2 = 5 per row.
  std::vector<int> lengths;
  for (int r = 0; r < 64; ++r) lengths.push_back(r % 2 ? 9 : 1);
  HostMatrix m;
  m.entry = EntryRegistry::instance().get("real");
  m.rows = m.cols = 64;
  for (int r = 0; r < 64; ++r) {
    for (int k = 0; k < lengths[r]; ++k) {
      m.col_idx.push_back(k);
      m.values.push_back(1);
    }
    m.row_ptr.push_back(static_cast<int32_t>(m.col_idx.size()));
  }
  const MatrixFeatures f = compute_features(m);
  CHECK(f.sell_padding == doctest::Approx(64 * 9.0 / 320));
  CHECK(f.sorted_sell_padding == doctest::Approx(32 * 10.0 / 320));
  // and they round-trip through the database's JSON; records written before them read as unknown (0)
  nlohmann::json j = f;
  MatrixFeatures back = j.get<MatrixFeatures>();
  CHECK(back.sell_padding == f.sell_padding);
  j.erase("sell_padding");
  j.erase("sorted_sell_padding");
  back = j.get<MatrixFeatures>();
  CHECK(back.sell_padding == 0);
  CHECK(back.sorted_sell_padding == 0);
  j["sell_padding"] = "x";
  CHECK_THROWS_AS(j.get<MatrixFeatures>(), ParseError);
}

TEST_CASE("model: a query with rows far longer than any neighbour's gets a variant balanced by entries") {
  // Only grids were tuned (ELL fastest, hola 1.4x). The query has one row of 20,000 entries: a row kernel
  // spends max_row / tpr steps on it, far longer than the whole product should take, so hola comes first.
  const std::string hola = "real.f64/hola-aos-aos/hola-256x8-ept4";
  {
    const GridDb grids("skew", {{hola, 1.4}});
    RandomMatrixOptions o;
    o.rows = o.cols = 30000;
    o.mean_row = 4;
    o.long_row = 20000;
    const HostMatrix skewed = random_matrix(EntryRegistry::instance().get("real"), o);
    const SelectionModel model(grids.db, test_gpu().l2_bytes);
    const Prediction p = predict_real_f64(model, skewed);
    REQUIRE(!p.ranked.empty());
    CHECK(p.ranked.front().variant == hola);
    // the grids themselves still get ELL
    const Prediction g = predict_real_f64(model, banded(7000, 7, "grid"));
    REQUIRE(!g.ranked.empty());
    CHECK(g.ranked.front().variant == kEll);
  }
}

TEST_CASE("model: narrow twins where the columns may fit, renumbered variants only where renumbering may pay") {
  // The grids' neighbours timed ELL wide only, and ELL renumbered (as if their order had been random).
  const std::string narrow = "real.f64/ell-aos-aos-d16/static-256x8";
  const std::string renumbered = "real.f64/ell-aos-aos/static-256x8@rcm";
  {
    const GridDb grids("twins", {{renumbered, 1.02}});
    const SelectionModel model(grids.db, test_gpu().l2_bytes);
    auto find = [](const Prediction& p, const std::string& v) {
      return std::find_if(p.ranked.begin(), p.ranked.end(), [&](const Candidate& c) { return c.variant == v; });
    };
    const HostMatrix grid = banded(7000, 7, "grid");
    ModelQuery q{compute_features(grid), compulsory_bytes(grid, Precision::f64), "real", Precision::f64, Op::n, false};
    REQUIRE(q.features.narrow_fits == -1);  // compute_features leaves it unknown: twins are proposed
    Prediction p = model.predict(q);
    auto twin = find(p, narrow), wide = find(p, kEll);
    REQUIRE(twin != p.ranked.end());
    REQUIRE(wide != p.ranked.end());
    CHECK(twin->twin);
    CHECK_FALSE(wide->twin);
    CHECK(twin->measured_on == 0);
    // Neighbours far below L2 gain nothing from narrow offsets (latency-bound): the twin is expected at
    // the wide one's time and ranks after it (timed on fewer neighbours).
    CHECK(twin->expected_relative == doctest::Approx(wide->expected_relative));
    CHECK(p.ranked.front().variant == kEll);
    // Quick tuning leaves the twins to its last round.
    for (const auto& v : quick_round_one(p, quick_plan(0))) CHECK(v.find("-d16") == std::string::npos);
    // The grid is small and in order: no renumbered candidate.
    CHECK(find(p, renumbered) == p.ranked.end());

    // Columns known not to fit 16 bits: no narrow candidate.
    q.features.narrow_fits = 0;
    p = model.predict(q);
    for (const auto& c : p.ranked) CHECK(c.variant.find("-d16") == std::string::npos);

    // A large randomly numbered query may be renumbered.
    q.features.narrow_fits = 1;
    q.features.rows = q.features.cols = 4 * kRenumberingMinRows;
    q.features.mean_distance_from_diagonal = 0.3 * static_cast<double>(q.features.rows);
    REQUIRE(renumbering_may_pay(q.features));
    p = model.predict(q);
    CHECK(find(p, renumbered) != p.ranked.end());
  }
  {
    // Neighbours of four times L2: a narrow twin is expected 0.6 x its bytes' gain faster than the wide
    // variant it was made from.
    const GridDb grids("large-twins", {}, 4.0 * static_cast<double>(test_gpu().l2_bytes));
    const SelectionModel model(grids.db, test_gpu().l2_bytes);
    const HostMatrix grid = banded(7000, 7, "grid");
    const Prediction p =
        model.predict({compute_features(grid), 4.0 * static_cast<double>(test_gpu().l2_bytes), "real", Precision::f64, Op::n, false});
    REQUIRE_FALSE(p.empty());
    CHECK(p.ranked.front().variant == "real.f64/ell-aos-aos-d16/static-256x8");
    CHECK(p.ranked.front().twin);
    CHECK(p.ranked.front().expected_relative < 0.95);  // 12 -> 10 bytes per entry, and the vectors
  }
}

TEST_CASE("model: a query of a quarter to three quarters of the L2 runs its row kernels with cached loads") {
  // Neighbours far below the L2 timed ELL evict-first only. The same grid as a query of half the L2: the
  // cached form is proposed instead; of a tenth of the L2 or twice it: the variant as timed.
  const double l2 = static_cast<double>(test_gpu().l2_bytes);
  const GridDb grids("resident", {}, 0.05 * l2);
  const SelectionModel model(grids.db, test_gpu().l2_bytes);
  const HostMatrix grid = banded(7000, 7, "grid");
  for (const double share : {0.1, 0.5, 2.0}) {
    CAPTURE(share);
    ModelQuery q{compute_features(grid), share * l2, "real", Precision::f64, Op::n, false};
    q.features.narrow_fits = 0;
    const Prediction p = model.predict(q);
    REQUIRE_FALSE(p.empty());
    CHECK(p.ranked.front().variant == (share == 0.5 ? kEll + "-cached" : kEll));
    for (const auto& c : p.ranked)
      if (share == 0.5 && c.variant.find("/hola-") == std::string::npos) CHECK(c.variant.find("-cached") != std::string::npos);
  }
}

TEST_CASE("model: the load policy of an even-grid variant is read before its -even") {
  // "-cached" precedes "-even" in a schedule's name: the cached form of an even variant inserts it there
  // (appending it made names no reader takes: evaluate stopped on "static-512x2-tpr4-u8-cached-even-cached",
  // twenty-ninth session, H100 call A).
  using namespace model_detail;
  CHECK(schedule_cached("static-512x2-tpr4-u8-cached-even"));
  CHECK(schedule_cached("static-256x8-cached"));
  CHECK_FALSE(schedule_cached("static-256x8-even"));
  CHECK(cached_schedule("static-256x8-u4-even") == "static-256x8-u4-cached-even");
  CHECK(cached_schedule("static-256x8-cached-even") == "static-256x8-cached-even");
  CHECK(cached_schedule("static-256x8") == "static-256x8-cached");
  const PolicyForm f = policy_form("real.f64/ell-aos-aos-d16/static-512x2-tpr4-u8-cached-even@rcm");
  CHECK(f.narrow);
  CHECK(f.base == "real.f64/ell-aos-aos/static-512x2-tpr4-even@rcm");
  CHECK(f.wide == "real.f64/ell-aos-aos/static-512x2-tpr4-u8-cached-even@rcm");

  // Neighbours far below the L2 whose fastest is an even-grid variant, evict-first; a query of half the L2
  // gets its cached form, and every candidate is a name the generator reads.
  const double l2 = static_cast<double>(test_gpu().l2_bytes);
  const std::string even = "real.f64/ell-aos-aos/static-256x8-u4-even";
  const GridDb grids("even", {{even, 0.8}}, 0.05 * l2);
  const SelectionModel model(grids.db, test_gpu().l2_bytes);
  const HostMatrix grid = banded(7000, 7, "grid");
  ModelQuery q{compute_features(grid), 0.5 * l2, "real", Precision::f64, Op::n, false};
  q.features.narrow_fits = 0;
  Prediction p = model.predict(q);
  REQUIRE_FALSE(p.empty());
  CHECK(p.ranked.front().variant == "real.f64/ell-aos-aos/static-256x8-u4-cached-even");
  for (const auto& c : p.ranked) {
    CAPTURE(c.variant);
    CHECK_NOTHROW(Variant::parse(c.variant));
  }
  // The cached even variant fastest, a query twice the L2: no cached candidate.
  const GridDb cached_even("cached-even", {{"real.f64/ell-aos-aos/static-256x8-cached-even", 0.8}});
  const SelectionModel streamed(cached_even.db, test_gpu().l2_bytes);
  q.compulsory_bytes = 2.0 * l2;
  p = streamed.predict(q);
  REQUIRE_FALSE(p.empty());
  for (const auto& c : p.ranked) CHECK(c.variant.find("-cached") == std::string::npos);
}

TEST_CASE("model: wide entries on a grid of fewer blocks than SMs get one block per SM") {
  // The regular family's timings as complex f64 records (16-byte entries). The test GPU has 4 SMs: a
  // 300-row query runs ELL's 256-thread blocks as 2 blocks, a 5,000-row one as 20. Only the first is
  // rewritten to static-256x1, and only for complex (real entries are 8 bytes).
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-model-few-" + std::to_string(::getpid()));
  {
    TuningDatabase db(test_gpu(), dir);
    REQUIRE(db.sm_count() == test_gpu().sm_count);
    REQUIRE(test_gpu().sm_count * 256 > 300);
    REQUIRE(test_gpu().sm_count * 256 < 5000);
    for (int i = 0; i < 6; ++i) db.upsert(as_complex(record_of(family_matrix_of("regular", i), "regular", families()[0].relative)));
    const SelectionModel model(db, test_gpu().l2_bytes);
    for (const int32_t rows : {300, 5000}) {
      CAPTURE(rows);
      const HostMatrix grid = banded(rows, 7, "query");
      ModelQuery q{compute_features(grid), compulsory_bytes(grid, Precision::f64) * 2, "complex", Precision::f64, Op::n, false, 2};
      q.features.narrow_fits = 0;
      const Prediction p = model.predict(q);
      REQUIRE_FALSE(p.empty());
      CHECK(p.ranked.front().variant == (rows == 300 ? "complex.f64/ell-aos-aos/static-256x1" : "complex.f64/ell-aos-aos/static-256x8"));
      std::set<std::string> names;
      for (const auto& c : p.ranked) {
        CHECK(names.insert(c.variant).second);  // no candidate twice
        CHECK_NOTHROW(Variant::parse(c.variant));  // the rewritten names read back
      }
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("model: a scattered query of compound vectors gathers x in aos") {
  // Complex f64 records whose fastest keeps x and y in soa. A query as local as they are keeps it; the same
  // query with its columns a third of the matrix away on average (a random order) gets the aos form; a
  // real query (one component) keeps soa.
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-model-scattered-" + std::to_string(::getpid()));
  {
    TuningDatabase db(test_gpu(), dir);
    auto rel = families()[0].relative;
    rel["real.f64/ell-aos-soa/static-256x8"] = 0.8;
    for (const char* entry : {"complex", "real"})
      for (int i = 0; i < 6; ++i) {
        const MatrixRecord r = record_of(family_matrix_of("regular", i), "regular", rel);
        db.upsert(std::string(entry) == "complex" ? as_complex(r) : r);
      }
    const SelectionModel model(db, test_gpu().l2_bytes);
    const HostMatrix grid = banded(5000, 7, "query");
    for (const char* entry : {"complex", "real"})
      for (const bool scattered : {false, true}) {
        CAPTURE(entry);
        CAPTURE(scattered);
        const bool complex = std::string(entry) == "complex";
        ModelQuery q{compute_features(grid), compulsory_bytes(grid, Precision::f64), entry, Precision::f64, Op::n, false,
                     complex ? 2 : 1};
        q.features.narrow_fits = 0;
        if (scattered) q.features.mean_distance_from_diagonal = q.features.cols / 3.0;
        const Prediction p = model.predict(q);
        REQUIRE_FALSE(p.empty());
        const std::string head = complex ? "complex.f64/" : "real.f64/";
        CHECK(p.ranked.front().variant == head + (complex && scattered ? "ell-aos-aos/static-256x8" : "ell-aos-soa/static-256x8"));
        std::set<std::string> names;
        for (const auto& c : p.ranked) CHECK(names.insert(c.variant).second);
      }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("model: a query of few rows gets more threads per row than its larger neighbours' best") {
  // Neighbours of 200k rows: ELL with one thread per row fastest, csr with 16 threads per row 1.3x slower.
  // A query of 4,000 rows runs 4,000 threads with one per row, too few to hide the loads' latency: the
  // 16-thread csr comes first. A query as large as the neighbours keeps ELL.
  const std::string csr16 = "real.f64/csr-aos-aos/static-256x8-tpr16";
  GridDb grids("parallel", {{csr16, 1.3}});
  for (const MatrixRecord* r : grids.db.records()) {
    MatrixRecord large = *r;
    large.features.rows = large.features.cols = 200000;
    grids.db.upsert(large);
  }
  const SelectionModel model(grids.db, test_gpu().l2_bytes);
  const HostMatrix grid = banded(7000, 7, "grid");
  for (const int64_t rows : {4000, 200000}) {
    CAPTURE(rows);
    ModelQuery q{compute_features(grid), compulsory_bytes(grid, Precision::f64), "real", Precision::f64, Op::n, false};
    q.features.rows = q.features.cols = rows;
    q.features.narrow_fits = 0;
    const Prediction p = model.predict(q);
    REQUIRE_FALSE(p.empty());
    CHECK(p.ranked.front().variant == (rows == 4000 ? csr16 : kEll));
  }
}

TEST_CASE("model: a scattered query whose neighbours were never renumbered gets renumbered twins by the gain elsewhere") {
  // Real neighbours in order (ELL fastest, nothing renumbered); complex matrices in random order timed
  // both ways. A large real query in random order: renumbered (narrow) twins of the first candidates,
  // expected faster by what renumbering gained on the complex ones, where it gained.
  const ModelQuery q = scattered_query(4 * kRenumberingMinRows);
  // narrow, as renumbered fastest variants mostly are (run-time selection checks the renumbered columns)
  const std::string twin = "real.f64/ell-aos-aos-d16/static-256x8@rcm";
  for (const double gain : {2.0, 0.5}) {
    CAPTURE(gain);
    GridDb grids(gain > 1 ? "gain" : "loss", {});
    for (int i = 0; i < 3; ++i) {
      MatrixFeatures f = q.features;
      f.nnz += i;
      MatrixRecord scattered = scattered_record(i, f, {{"complex.f64/ell-aos-aos/static-256x8", 10.0 * gain},
                                                       {"complex.f64/ell-aos-aos/static-256x8@rcm", 10.0}});
      scattered.entry = "complex";
      grids.db.upsert(scattered);
    }
    const SelectionModel model(grids.db, test_gpu().l2_bytes);
    const Prediction p = model.predict(q);
    REQUIRE_FALSE(p.empty());
    for (const auto& n : p.neighbours) CHECK(n.name.rfind("regular", 0) == 0);  // the real records teach
    const auto it = std::find_if(p.ranked.begin(), p.ranked.end(), [&](const Candidate& c) { return c.variant == twin; });
    if (gain > 1) {
      CHECK(p.ranked.front().variant == twin);
      const auto plain = std::find_if(p.ranked.begin(), p.ranked.end(), [](const Candidate& c) { return c.variant == kEll; });
      REQUIRE(plain != p.ranked.end());
      CHECK(plain->expected_relative / p.ranked.front().expected_relative == doctest::Approx(gain));
      CHECK(p.renumbering_gain == doctest::Approx(gain));
    } else {
      CHECK(it == p.ranked.end());
      CHECK(p.renumbering_gain == 0);
    }
  }
}

TEST_CASE("model: a scattered query learns from ordered neighbours as from itself renumbered") {
  // Ordered grids (ELL fastest, nothing renumbered) and larger scattered matrices that timed both ways
  // (renumbered sell 1.5x faster than plain ELL). A scattered query between them: the grids' profiles
  // describe it renumbered, so their ELL is its renumbered ELL's time and their plain ELL is slowed by the
  // gain. Read as they stand, the grids rated plain ELL at their best and the renumbered sell unknown (2x),
  // and outvoted the scattered neighbours.
  const ModelQuery q = scattered_query(2 * kRenumberingMinRows);
  const std::string sell_rcm = kSell + "@rcm";
  GridDb grids("renumbered-view", {});
  for (int i = 0; i < 2; ++i) {  // 32-36x the query: far enough for the grids to weigh as much
    const int64_t scale = 32 + 4 * i;
    MatrixFeatures f = scattered_query(scale * q.features.rows).features;
    f.nnz = 7 * f.rows;
    MatrixRecord scattered = scattered_record(i, f, {{kEll, 15.0}, {kSell, 16.0}, {sell_rcm, 10.0}});
    scattered.compulsory_bytes = q.compulsory_bytes * static_cast<double>(scale);
    grids.db.upsert(scattered);
  }
  const SelectionModel model(grids.db, test_gpu().l2_bytes);
  const Prediction p = model.predict(q);
  REQUIRE_FALSE(p.empty());
  double grid_weight = 0, scattered_weight = 0;
  for (const auto& n : p.neighbours) (n.name.rfind("regular", 0) == 0 ? grid_weight : scattered_weight) += n.weight;
  CAPTURE(grid_weight);
  CAPTURE(scattered_weight);
  REQUIRE(grid_weight > 0.6 * scattered_weight);  // enough for the grids as they stand to pick plain ELL
  REQUIRE(scattered_weight > 0);
  CHECK(p.ranked.front().variant == sell_rcm);
  const auto plain = std::find_if(p.ranked.begin(), p.ranked.end(), [](const Candidate& c) { return c.variant == kEll; });
  REQUIRE(plain != p.ranked.end());
  CHECK(plain->expected_relative > p.ranked.front().expected_relative);
}

TEST_CASE("model: a query larger than the L2 gets no cached candidate; a far column proves narrow offsets cannot hold it") {
  // Neighbours in the L2, where the cached twin of ELL was the fastest.
  const std::string cached = "real.f64/ell-aos-aos/static-256x8-cached";
  const GridDb grids("cached", {{cached, 0.8}});
  const SelectionModel model(grids.db, test_gpu().l2_bytes);
  const HostMatrix grid = banded(7000, 7, "grid");
  ModelQuery q{compute_features(grid), compulsory_bytes(grid, Precision::f64), "real", Precision::f64, Op::n, false};
  REQUIRE(q.compulsory_bytes < static_cast<double>(test_gpu().l2_bytes));
  Prediction p = model.predict(q);
  REQUIRE_FALSE(p.empty());
  CHECK(p.ranked.front().variant == cached);
  // The same query at twice the L2: the matrix cannot stay there between products.
  q.compulsory_bytes = 2.0 * static_cast<double>(test_gpu().l2_bytes);
  p = model.predict(q);
  REQUIRE_FALSE(p.empty());
  for (const auto& c : p.ranked) CHECK(c.variant.find("-cached") == std::string::npos);
  // Narrow twins are proposed while the fit is unknown, unless the columns lie farther from the diagonal
  // on average than 16 bits reach.
  q.compulsory_bytes = compulsory_bytes(grid, Precision::f64);
  REQUIRE(q.features.narrow_fits == -1);
  auto narrow_count = [](const Prediction& pr) {
    return std::count_if(pr.ranked.begin(), pr.ranked.end(), [](const Candidate& c) { return c.variant.find("-d16") != std::string::npos; });
  };
  CHECK(narrow_count(model.predict(q)) > 0);
  q.features.mean_distance_from_diagonal = 2.0 * kNarrowOffsetLimit;
  CHECK(narrow_count(model.predict(q)) == 0);
}

TEST_CASE("model: a query far smaller than its neighbours is expected at least each launch kind's floor") {
  // Neighbours of 200k rows and twice the L2: hola 5% faster than ELL, csr with 16 threads per row 1.2x
  // slower. The smallest record (far from the query in shape, so not a neighbour) shows the floors: a row
  // kernel 3 us, hola 6 us. A query of 500 rows and a hundredth of the L2 runs at the floors: hola is
  // expected at least 2x a row kernel there, and among row kernels the 16 threads per row come first (a
  // 500-row query is short of threads even with 32 per row: counted from there, not from the neighbours),
  // and first of all ELL, which needs no row pointer before its entries (floor_latency_us), at one of the
  // threads per row the model adds there (its longest row is one step from 8 threads per row up).
  // A query as large as the neighbours keeps hola.
  const std::string hola = "real.f64/hola-aos-aos/hola-256x8-ept4";
  const std::string csr16 = "real.f64/csr-aos-aos/static-256x8-tpr16";
  const double l2 = static_cast<double>(test_gpu().l2_bytes);
  GridDb grids("floors", {{hola, 0.95}, {csr16, 1.2}}, 2.0 * l2);
  for (const MatrixRecord* r : grids.db.records()) {
    MatrixRecord large = *r;
    large.features.rows = large.features.cols = 200000;
    grids.db.upsert(large);
  }
  MatrixRecord tiny = record_of(banded(3000, 7, "tiny_skewed"), "skewed", {{kEll, 1.0}});
  tiny.features.max_row = 2000 * tiny.features.max_row;
  tiny.features.empty_rows = tiny.features.rows / 2;
  tiny.compulsory_bytes = 0.02 * l2;
  tiny.measurements.clear();
  for (const auto& [v, us] : std::map<std::string, double>{{kEll, 3.0}, {hola, 6.0}}) {
    MeasurementRecord m;
    m.variant = v;
    m.status = "ok";
    m.median_us = us;
    tiny.measurements.push_back(m);
  }
  tiny.winner = kEll;
  grids.db.upsert(tiny);
  const SelectionModel model(grids.db, test_gpu().l2_bytes);
  const HostMatrix grid = banded(7000, 7, "grid");
  for (const bool small : {true, false}) {
    CAPTURE(small);
    ModelQuery q{compute_features(grid), (small ? 0.01 : 2.0) * l2, "real", Precision::f64, Op::n, false};
    q.features.rows = q.features.cols = small ? 500 : 200000;
    q.features.narrow_fits = 0;
    const Prediction p = model.predict(q);
    REQUIRE_FALSE(p.empty());
    for (const auto& n : p.neighbours) CHECK(n.name != "tiny_skewed");
    if (!small) CHECK(p.ranked.front().variant == hola);
    if (small) {
      const Variant front = Variant::parse(p.ranked.front().variant);
      CHECK(front.layout.outer == OuterLayout::ell);
      CHECK(front.schedule.threads_per_row >= 8);
      const auto c = std::find_if(p.ranked.begin(), p.ranked.end(), [&](const Candidate& x) { return x.variant == csr16; });
      REQUIRE(c != p.ranked.end());
      CHECK(c->expected_relative > p.ranked.front().expected_relative);
      const auto h = std::find_if(p.ranked.begin(), p.ranked.end(), [&](const Candidate& c) { return c.variant == hola; });
      REQUIRE(h != p.ranked.end());
      CHECK(h->expected_relative >= 6.0 / 3.0 / 1.6);  // its floor over the row kernel's, over csr16's expected
    }
  }
}

TEST_CASE("model: each neighbour's best variant of 32 threads per row is a candidate, for queries of long rows") {
  // Grids, ELL fastest; csr with 32 threads per row 1.6x slower there (not near their best). A small query
  // with a row of 400 entries: one thread per row is a 400-step chain, 32 threads a 13-step one.
  const std::string csr32 = "real.f64/csr-aos-aos/static-256x8-tpr32";
  const double l2 = static_cast<double>(test_gpu().l2_bytes);
  const GridDb grids("widest", {{csr32, 1.6}}, 0.01 * l2);
  const SelectionModel model(grids.db, test_gpu().l2_bytes);
  const HostMatrix grid = banded(7000, 7, "grid");
  ModelQuery q{compute_features(grid), 0.01 * l2, "real", Precision::f64, Op::n, false};
  q.features.narrow_fits = 0;
  const Prediction regular = model.predict(q);
  REQUIRE_FALSE(regular.empty());
  CHECK(regular.ranked.front().variant == kEll);
  q.features.max_row = 400;
  const Prediction skewed = model.predict(q);
  REQUIRE_FALSE(skewed.empty());
  CHECK(skewed.ranked.front().variant == csr32);
}
