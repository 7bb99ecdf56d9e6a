// The tuner's CPU side: database round trip and corruption, run-time selection levels, the search space.
#include <algorithm>
#include <doctest/doctest.h>

#include "fake_gpu_util.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <set>

#include "core/entry_type.hpp"
#include "core/features.hpp"
#include "core/file_util.hpp"
#include "core/random_matrix.hpp"
#include "generator/cubin_info.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/source_gen.hpp"
#include "selection/database.hpp"
#include "core/permutation.hpp"
#include "selection/load.hpp"
#include "selection/model.hpp"
#include "selection/select.hpp"
#include "tuner/tuner.hpp"

using namespace jitsparse;

namespace {

using test::fake_gpu;

MatrixRecord record_for(const HostMatrix& a, const std::string& prec, const std::string& winner, double us) {
  MatrixRecord r;
  r.name = a.name;
  r.hash = matrix_hash(a);
  r.entry = a.entry.name;
  r.precision = prec;
  r.domain = "d";
  r.features = compute_features(a);
  MeasurementRecord m;
  m.variant = winner;
  m.status = "ok";
  m.median_us = us;
  m.samples_us = {us, us};
  r.measurements.push_back(m);
  MeasurementRecord bad;
  bad.variant = a.entry.name + "." + prec + "/ell-aos-aos/static-256x8";
  bad.status = "wrong: row 3";
  r.measurements.push_back(bad);
  r.winner = winner;
  r.complete = true;
  return r;
}

// A timed (or failed) variant in a record, as the search would leave it.
void add_measurement(MatrixRecord& r, const std::string& name, double us, const std::string& status = "ok") {
  MeasurementRecord m;
  m.variant = name;
  m.status = status;
  m.median_us = us;
  r.upsert(m);
}

// A random real matrix of its own name (and values: a hash of its own).
HostMatrix named_real_matrix(const std::string& name, unsigned seed) {
  RandomMatrixOptions o;
  o.name = name;
  o.seed = seed;
  return random_matrix(EntryRegistry::instance().get("real"), o);
}

struct TempCache {
  std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-tuner-test-" + std::to_string(::getpid()));
  TempCache() { std::filesystem::remove_all(dir); }
  ~TempCache() { std::filesystem::remove_all(dir); }
};

}  // namespace

TEST_CASE("tuner: the database round-trips and selection says which level it used") {
  TempCache cache;
  const EntryType& q = EntryRegistry::instance().get("quaternion");
  RandomMatrixOptions o;
  // 2,000 rows: more 256-thread blocks than the fake GPU's 4 SMs, so the model keeps the tuned blocks per
  // SM (a smaller grid of these wide entries gets one block per SM: few_blocks_form, test_model.cpp)
  o.rows = o.cols = 2000;
  o.mean_row = 7;
  o.name = "tuned";
  const HostMatrix tuned = random_matrix(q, o);
  o.seed = 2;
  o.name = "similar";
  const HostMatrix similar = random_matrix(q, o);  // same shape, other values: a different hash
  const std::string winner = "quaternion.f64/sell32-soa-aos/static-256x8";
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.upsert(record_for(tuned, "f64", winner, 12.5));
    db.set_domain({"d", "quaternion", "f64", winner, 1.3, {"tuned"}});
    db.save();
  }
  TuningDatabase db(fake_gpu(), cache.dir);
  REQUIRE(db.warning().empty());
  const MatrixRecord* r = db.find(matrix_hash(tuned), "f64");
  REQUIRE(r != nullptr);
  CHECK(r->winner == winner);
  CHECK(r->best()->median_us == 12.5);
  CHECK(r->measurements.size() == 2);
  CHECK(r->find(winner)->samples_us.size() == 2);

  const DeviceInfo gpu = fake_gpu();
  CHECK(select_variant(db, tuned, Precision::f64, gpu).level == "exact");
  const Selection near = select_variant(db, similar, Precision::f64, gpu);
  CHECK(near.level == "model");
  CHECK(near.variant.name() == winner);
  CHECK(near.detail.find("never tuned") != std::string::npos);
  REQUIRE(near.prediction.neighbours.size() == 1);
  CHECK(near.prediction.neighbours[0].name == "tuned");
  const Selection none = select_variant(db, tuned, Precision::f32, gpu);
  CHECK(none.level == "default");
  CHECK(none.variant.layout.name() == "csr-aos-aos");
  CHECK(none.variant.precision == Precision::f32);
  const HostMatrix blocks = random_matrix(EntryRegistry::instance().get("block3"), o);
  // a block3 matrix: nothing tuned for that entry type, so the model learns from the quaternion record
  const Selection transferred = select_variant(db, blocks, Precision::f64, gpu);
  CHECK(transferred.level == "model");
  CHECK(transferred.detail.find("other entry types") != std::string::npos);
  CHECK(transferred.variant.name() == "block3.f64/sell32-soa-aos/static-256x8");
  CHECK(select_variant(db, blocks, Precision::f32, gpu).level == "default");
  // Given a kernel builder, a variant learnt on another entry type runs with the registers this one needs:
  // a dual quaternion f64 at 256 x 8 spills (CUDA 13.0: over 800 bytes per thread), so its blocks halve.
  const KernelBuilder builder("sm_90", cache.dir + "/cubins");
  const HostMatrix dual = random_matrix(EntryRegistry::instance().get("dual_quaternion"), o);
  const Selection roomy = select_variant(db, dual, Precision::f64, gpu, Op::n, false, &builder);
  CHECK(roomy.level == "model");
  CHECK(roomy.variant.layout.name() == "sell32-soa-aos");
  CHECK(roomy.variant.schedule.blocks_per_sm < 8);
  CHECK(cubin_frame_bytes(builder.build(roomy.variant), roomy.variant.name()) == 0);
  CHECK(select_variant(db, dual, Precision::f64, gpu).variant.schedule.blocks_per_sm == 8);  // no builder
}

TEST_CASE("tuner: load_tuned's database is read once per process and again when the tuner writes it") {
  TempCache cache;
  const std::string path = TuningDatabase::path_for(fake_gpu(), cache.dir);
  CHECK(loaded_database(path, 1 << 20)->db.records().empty());  // no file yet: empty, not kept
  RandomMatrixOptions o;
  const HostMatrix a = random_matrix(EntryRegistry::instance().get("real"), o);
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.upsert(record_for(a, "f64", "real.f64/csr-aos-aos/static-256x8", 3.0));
    db.save();
  }
  const auto first = loaded_database(path, 1 << 20);
  REQUIRE(first->db.records().size() == 1);
  CHECK(loaded_database(path, 1 << 20) == first);          // kept
  CHECK(loaded_database(path, 2 << 20) != first);          // another L2: another model
  CHECK(loaded_database(path, 1 << 20) == first);
  {
    TuningDatabase db(fake_gpu(), cache.dir);  // a tuner's write: a new file renamed over the old one
    db.upsert(record_for(a, "f32", "real.f32/csr-aos-aos/static-256x8", 2.0));
    db.save();
  }
  const auto second = loaded_database(path, 1 << 20);
  CHECK(second != first);
  CHECK(second->db.records().size() == 2);
  CHECK(first->db.records().size() == 1);  // a caller holding the old one keeps it intact
  const Selection s = select_variant(second->db, a, Precision::f32, fake_gpu(), Op::n, false, nullptr, &second->model);
  CHECK(s.level == "exact");
}

TEST_CASE("tuner: the domain winner is used when no tuned matrix has the entry's records") {
  TempCache cache;
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.set_domain({"fem", "complex", "f32", "complex.f32/ell-aos-aos/static-256x8", 1.1, {"a", "b"}});
    db.save();
  }
  TuningDatabase db(fake_gpu(), cache.dir);
  RandomMatrixOptions o;
  const HostMatrix a = random_matrix(EntryRegistry::instance().get("complex"), o);
  const Selection s = select_variant(db, a, Precision::f32, fake_gpu());
  CHECK(s.level == "domain");
  CHECK(s.variant.name() == "complex.f32/ell-aos-aos/static-256x8");
}

TEST_CASE("tuner: a renumbered narrow pick carries the renumbering it was checked with, for the packing") {
  TempCache cache;
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.set_domain({"fem", "real", "f64", "real.f64/ell-aos-aos-d16/static-256x8@rcm", 1.1, {"a", "b"}});
    db.set_domain({"fem", "complex", "f64", "complex.f64/ell-aos-aos-d16/static-256x8", 1.1, {"a", "b"}});
    db.save();
  }
  TuningDatabase db(fake_gpu(), cache.dir);
  RandomMatrixOptions o;
  o.rows = o.cols = 5000;
  o.band = 20;
  const HostMatrix banded = random_matrix(EntryRegistry::instance().get("real"), o);
  const Selection fits = select_variant(db, banded, Precision::f64, fake_gpu());
  CHECK(fits.level == "domain");
  CHECK(fits.variant.name() == "real.f64/ell-aos-aos-d16/static-256x8@rcm");
  REQUIRE(fits.permutation);
  CHECK(*fits.permutation == ordering_permutation(banded, Ordering::rcm));
  // Columns anywhere in 100k: no renumbering brings them within 16 bits; still renumbered, wide.
  o.rows = o.cols = 100000;
  o.band = 0;
  const HostMatrix scattered = random_matrix(EntryRegistry::instance().get("real"), o);
  const Selection wide = select_variant(db, scattered, Precision::f64, fake_gpu());
  CHECK(wide.variant.name() == "real.f64/ell-aos-aos/static-256x8@rcm");
  REQUIRE(wide.permutation);
  CHECK(wide.permutation->size() == 100000u);
  // A narrow pick that is not renumbered computes none.
  o.rows = o.cols = 5000;
  o.band = 20;
  const Selection plain = select_variant(db, random_matrix(EntryRegistry::instance().get("complex"), o), Precision::f64, fake_gpu());
  CHECK(plain.variant.name() == "complex.f64/ell-aos-aos-d16/static-256x8");
  CHECK_FALSE(plain.permutation);
}

TEST_CASE("tuner: a corrupted database is reported, moved aside and never loaded") {
  TempCache cache;
  const std::string path = TuningDatabase::path_for(fake_gpu(), cache.dir);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  for (const char* junk : {"{\"format\": 1, \"matrices\": [{\"name\": 3}]}", "{ truncated", "[]"}) {
    std::ofstream(path) << junk;
    TuningDatabase db(fake_gpu(), cache.dir);
    CHECK(db.warning().find("corrupt") != std::string::npos);
    CHECK(db.records().empty());
    CHECK(std::filesystem::exists(path + ".corrupt"));
    CHECK_FALSE(std::filesystem::exists(path));
  }
}

TEST_CASE("tuner: a database opened read-only by path is never moved; a gzipped one is named as such") {
  TempCache cache;
  const std::string path = cache.dir + "/given.json";
  std::filesystem::create_directories(cache.dir);
  {
    std::ofstream f(path, std::ios::binary);
    f << '\x1f' << '\x8b' << "rest of a gzip stream";
  }
  try {
    TuningDatabase db(path);
    FAIL("a gzipped database was read");
  } catch (const InvalidArgument& e) {
    CHECK(std::string(e.what()).find("gzip") != std::string::npos);
  }
  CHECK(std::filesystem::exists(path));
  CHECK_FALSE(std::filesystem::exists(path + ".corrupt"));
  std::ofstream(path) << "{ truncated";
  CHECK_THROWS_AS(TuningDatabase{path}, InvalidArgument);
  CHECK(std::filesystem::exists(path));
}

TEST_CASE("tuner: records timed with other kernel templates are stale (re-measured, not resumed)") {
  TempCache cache;
  RandomMatrixOptions o;
  const HostMatrix a = random_matrix(EntryRegistry::instance().get("real"), o);
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.upsert(record_for(a, "f64", "real.f64/csr-aos-aos/static-256x8", 3));
    db.save();
  }
  CHECK_FALSE(TuningDatabase(fake_gpu(), cache.dir).stale());
  const std::string path = TuningDatabase::path_for(fake_gpu(), cache.dir);
  nlohmann::json j = nlohmann::json::parse(*read_file(path));
  REQUIRE(j.at("kernel_templates") == device_headers().digest);
  j["kernel_templates"] = "digest of an older hola.cuh";
  std::ofstream(path) << j.dump();
  TuningDatabase db(fake_gpu(), cache.dir);
  CHECK(db.stale());
  CHECK(db.warning().find("kernel templates") != std::string::npos);
  CHECK(db.records().size() == 1);  // kept for the report
}

TEST_CASE("tuner: records timed with other NVRTC flags are stale; the flags are in the file") {
  TempCache cache;
  const HostMatrix a = named_real_matrix("a", 1);
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.upsert(record_for(a, "f64", "real.f64/csr-aos-aos/static-256x8", 3));
    db.save();
  }
  CHECK_FALSE(TuningDatabase(fake_gpu(), cache.dir).stale());
  ::setenv("JITSPARSE_NVRTC_FLAGS", "-DJITSPARSE_CACHED_MATRIX", 1);
  {
    const TuningDatabase other_flags(fake_gpu(), cache.dir);
    CHECK(other_flags.stale());
    CHECK(other_flags.warning().find("NVRTC flags") != std::string::npos);
  }
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.upsert(record_for(a, "f64", "real.f64/ell-aos-aos/static-256x8", 2));
    db.save();
  }
  const auto j = nlohmann::json::parse(*read_file(TuningDatabase::path_for(fake_gpu(), cache.dir)));
  CHECK(j.at("nvrtc_flags") == std::vector<std::string>{"-DJITSPARSE_CACHED_MATRIX"});
  CHECK_FALSE(TuningDatabase(fake_gpu(), cache.dir).stale());
  ::unsetenv("JITSPARSE_NVRTC_FLAGS");
  CHECK(TuningDatabase(fake_gpu(), cache.dir).stale());
}

TEST_CASE("tuner: concurrent saves merge instead of losing records") {
  TempCache cache;
  const HostMatrix one = named_real_matrix("one", 1), two = named_real_matrix("two", 9);
  TuningDatabase first(fake_gpu(), cache.dir), second(fake_gpu(), cache.dir);
  first.upsert(record_for(one, "f64", "real.f64/csr-aos-aos/static-256x8", 3));
  second.upsert(record_for(two, "f64", "real.f64/ell-aos-aos/static-256x8", 4));
  first.save();
  second.save();  // re-reads the file under the lock: keeps `one`
  TuningDatabase after(fake_gpu(), cache.dir);
  CHECK(after.records().size() == 2);
  // A save reads the file only where it changed since this database read or wrote it: `first` wrote it
  // last, `second` since, so `first` reads it again and keeps `two`.
  const HostMatrix three = named_real_matrix("three", 11);
  first.upsert(record_for(three, "f64", "real.f64/csr-aos-aos/static-128x8", 5));
  first.save();
  CHECK(TuningDatabase(fake_gpu(), cache.dir).records().size() == 3);
  // So does a file edited in place (the same inode): the record added to it by hand is kept.
  const std::string path = TuningDatabase::path_for(fake_gpu(), cache.dir);
  auto doc = nlohmann::json::parse(*read_file(path));
  nlohmann::json added = doc["matrices"][0];
  added["name"] = "added by hand";
  added["hash"] = "h2-00000000000000ad";
  doc["matrices"].push_back(added);
  {
    std::ofstream edit(path, std::ios::trunc);
    edit << doc.dump(2);
  }
  const HostMatrix four = named_real_matrix("four", 12);
  second.upsert(record_for(four, "f64", "real.f64/csr-aos-aos/static-64x8", 6));
  second.save();
  const TuningDatabase after_edit(fake_gpu(), cache.dir);
  const auto edited = after_edit.records();
  CHECK(edited.size() == 5);
  CHECK(std::any_of(edited.begin(), edited.end(), [](const MatrixRecord* r) { return r->name == "added by hand"; }));
}

TEST_CASE("tuner: a tuner never writes its merged copy of another's record over that record finished") {
  // Two tuners at once on the H100 (thirty-eighth session) left two of one tuner's five records half-done in
  // the file although it had finished them: the other had merged them half-done and wrote its copies back.
  TempCache cache;
  const HostMatrix mine = named_real_matrix("first's", 1), theirs = named_real_matrix("second's", 9);
  TuningDatabase first(fake_gpu(), cache.dir), second(fake_gpu(), cache.dir);
  MatrixRecord half_done = record_for(mine, "f64", "real.f64/csr-aos-aos/static-256x8", 3);
  half_done.complete = false;
  first.upsert(half_done);
  first.set_domain({"d", "real", "f64", "real.f64/csr-aos-aos/static-256x8", 1.0, {"first's"}});
  first.save();  // a checkpoint in the middle of first's search
  second.upsert(record_for(theirs, "f64", "real.f64/ell-aos-aos/static-256x8", 4));
  second.save();  // merges first's half-done record and its domain
  MatrixRecord done = half_done;
  done.complete = true;
  add_measurement(done, "real.f64/sell32-aos-aos/static-256x8", 2.5);
  done.winner = "real.f64/sell32-aos-aos/static-256x8";
  first.upsert(done);
  first.set_domain({"d", "real", "f64", done.winner, 1.2, {"first's"}});
  first.save();
  second.save();  // its copies of first's record and domain are older than the file's
  const TuningDatabase after(fake_gpu(), cache.dir);
  const MatrixRecord* r = after.find(matrix_hash(mine), "f64");
  REQUIRE(r != nullptr);
  CHECK(r->complete);
  CHECK(r->winner == done.winner);
  CHECK(r->measurements.size() == done.measurements.size());
  REQUIRE(after.domains().size() == 1);
  CHECK(after.domains()[0].winner == done.winner);
  // and what second wrote itself still wins over the file
  const MatrixRecord* own = after.find(matrix_hash(theirs), "f64");
  REQUIRE(own != nullptr);
  CHECK(own->winner == "real.f64/ell-aos-aos/static-256x8");
}

TEST_CASE("tuner: stage one starts quaternion f64 at 1024 threads per SM, the others at 2048") {
  const ScheduleLimits h100;
  TuneOptions o;
  o.hisparse_layouts = {};
  // 32 bytes or more of vector element: 1024 threads (64 registers each), where 2048 spilled always
  const std::map<std::pair<std::string, Precision>, int> threads = {
      {{"real", Precision::f64}, 2048},       {{"complex", Precision::f32}, 2048},
      {{"complex", Precision::f64}, 2048},    {{"quaternion", Precision::f32}, 2048},
      {{"quaternion", Precision::f64}, 1024}, {{"block3", Precision::f32}, 2048},
      {{"block3", Precision::f64}, 2048},     {{"dual_quaternion", Precision::f32}, 1024}};
  for (const auto& [key, expected] : threads) {
    const EntryType& entry = EntryRegistry::instance().get(key.first);
    int rows = 0;
    for (const auto& v : stage_one_variants(entry, key.second, o, h100)) {
      if (!v.schedule.row_family()) continue;
      ++rows;
      INFO(v.name());
      CHECK(v.schedule.threads == 256);
      CHECK(v.schedule.threads * v.schedule.blocks_per_sm == expected);
    }
    CHECK(rows == 20 * 6);
  }
  // The rule of thumb names stage one's schedule too
  MatrixFeatures f;
  f.rows = f.cols = 1000;
  f.nnz = 7000;
  f.mean_row = 7;
  f.max_row = 7;
  CHECK(rule_of_thumb(f, "quaternion", Precision::f64, Op::n, false, h100).schedule.blocks_per_sm == 4);
  CHECK(rule_of_thumb(f, "quaternion", Precision::f32, Op::n, false, h100).schedule.blocks_per_sm == 8);
}

TEST_CASE("tuner: stage one covers every layout and threads-per-row; grids stay within the GPU's limits") {
  const ScheduleLimits h100;
  const EntryType& block3 = EntryRegistry::instance().get("block3");
  TuneOptions o;
  // 20 row layouts x 6 tpr, 4 hola layouts x ept {2, 4} (ept 8 needs 57 KB of shared memory in f64), and
  // the first hisparse layout (hisparse64c2) in 4 setups x big strips from 256 and 4096 slots and once with
  // small leaves per lane (-s) and with batched leaves (-b, both big strips); the other 3 (the last with CSR leaves)
  // with one schedule (run_job gives them the first's fastest)
  const auto joint = stage_one_variants(block3, Precision::f64, o, h100);
  CHECK(joint.size() == 20 * 6 + 4 * 2 + 11 + 3);
  CHECK(std::count_if(joint.begin(), joint.end(), [](const Variant& v) { return v.layout.row_leaves; }) == 1);
  CHECK(std::count_if(joint.begin(), joint.end(), [](const Variant& v) { return v.schedule.small_leaves; }) == 1);
  CHECK(std::count_if(joint.begin(), joint.end(), [](const Variant& v) { return v.schedule.batched_leaves; }) == 2);
  CHECK(std::count_if(joint.begin(), joint.end(), [](const Variant& v) { return v.schedule.big_strip == 256; }) == 5);
  std::set<std::string> first_setups;
  for (const auto& v : joint)
    if (v.layout.name() == "hisparse64c2-aos-aos") first_setups.insert(v.schedule.name());
  CHECK(first_setups == std::set<std::string>{
                            "hisparse-128x4-g16-big256", "hisparse-128x4-g16-big4096", "hisparse-128x4-g16-big4096-s",
                            "hisparse-128x4-g32-big256-u1", "hisparse-128x4-g32-big4096-u1",
                            "hisparse-128x4-g32-big256-u1-b", "hisparse-128x4-g32-big4096-u1-b",
                            "hisparse-128x8-g32-big256-u1", "hisparse-128x8-g32-big4096-u1",
                            "hisparse-128x16-g16-big256-u1", "hisparse-128x16-g16-big4096-u1"});
  for (const auto& v : joint) CHECK(kernel_shared_bytes(v, 3) <= kMaxStaticShared);
  // A later layout waits in a setup that fits: d 256 of quaternion f64 fits groups of 32 only (the first
  // setup, groups of 16, needs 64 KB), and it was left out of the search when it waited in that one.
  const auto quat = stage_one_variants(EntryRegistry::instance().get("quaternion"), Precision::f64, o, h100);
  CHECK(std::count_if(quat.begin(), quat.end(), [](const Variant& v) { return v.layout.name() == "hisparse256c2-aos-aos"; }) == 1);
  o.hisparse_layouts = {};
  CHECK(stage_one_variants(block3, Precision::f64, o, h100).size() == 20 * 6 + 4 * 2);
  o.mode = "schedule";
  const auto sched = stage_one_variants(block3, Precision::f64, o, h100);
  CHECK(sched.size() == 6);
  for (const auto& v : sched) CHECK(v.layout.name() == "csr-aos-aos");
  const EntryType& real = EntryRegistry::instance().get("real");
  const auto grid = grid_variants(real, Variant::parse("real.f32/ell-soa-aos/static-256x8-tpr2"), h100);
  CHECK(grid.size() == all_schedules(h100, {1}).size());
  for (const auto& v : grid) {
    CHECK(v.schedule.threads * v.schedule.blocks_per_sm <= 2048);
    CHECK(v.schedule.threads_per_row == 2);
  }
  // hisparse: threads per group, block size and big-strip threshold; shared memory bounds d x groups
  const auto hi = grid_variants(EntryRegistry::instance().get("dual_quaternion"),
                                Variant::parse("dual_quaternion.f64/hisparse64c2-aos-aos/hisparse-128x16-g16-big4096"), h100);
  CHECK(hi.size() > 30);
  CHECK(hi.size() < 144);  // 256 threads in groups of 4: 64 x 64 x 8 x 8 bytes is over 48 KB
  for (const auto& v : hi) {
    CHECK(v.schedule.kind == ScheduleKind::hisparse);
    CHECK(v.schedule.threads * v.schedule.blocks_per_sm <= 2048);
    CHECK(hisparse_shared_bytes(v, 8) <= kMaxStaticShared);
  }
  const auto hola = grid_variants(real, Variant::parse("real.f64/hola-aos-aos/hola-256x8-ept4"), h100);
  CHECK(hola.size() > 20);
  for (const auto& v : hola) {
    CHECK(v.schedule.kind == ScheduleKind::hola);
    CHECK(v.schedule.threads * v.schedule.blocks_per_sm <= 2048);
    CHECK(hola_shared_bytes(v, 1) <= kMaxStaticShared);
  }
}

TEST_CASE("tuner: a wide hisparse layout runs on a matrix with enough strips of its rows per SM, whatever the first's time") {
  const Layout d256 = Layout::parse("hisparse256c2-aos-aos"), d64 = Layout::parse("hisparse64c2-aos-aos");
  const Layout csr = Layout::parse("csr-aos-aos");
  const int sms = 132;  // the H100: 16 strips of 256 rows per SM from 540,672 rows
  CHECK(wide_hisparse_pays(d256, 950697, sms));   // laplacian_large
  CHECK(wide_hisparse_pays(d256, 573534, sms));   // laplacian_irregular
  CHECK(wide_hisparse_pays(d256, 540672, sms));
  CHECK_FALSE(wide_hisparse_pays(d256, 540671, sms));
  CHECK_FALSE(wide_hisparse_pays(d256, 524288, sms));  // dirac_large: even with d 64 in f32
  CHECK_FALSE(wide_hisparse_pays(d256, 950697, 1024));  // a GPU with more SMs wants more rows
  CHECK_FALSE(wide_hisparse_pays(d64, 50000000, sms));  // d 64 is the first layout's, pruned as before
  CHECK_FALSE(wide_hisparse_pays(csr, 50000000, sms));
  CHECK(wide_hisparse_pays(Layout::parse("hisparse256c4r-aos-soa"), 1 << 20, sms));
  // compile_ahead compiles them last, as the searches will look them up: two setups of hisparse256c2 per
  // entry type and precision (quaternion f64 too: groups of 32 fit its shared memory)
  TuneOptions o;
  const std::vector<std::pair<std::string, Precision>> batches = {
      {"real", Precision::f32}, {"real", Precision::f64}, {"quaternion", Precision::f64}};
  const auto wide = wide_hisparse_kernels(batches, o, ScheduleLimits{});
  std::vector<std::string> names;
  for (const auto& v : wide) {
    CHECK(v == v.compiled_variant());
    names.push_back(v.name());
  }
  CHECK(names.size() == 6);
  CHECK(std::find(names.begin(), names.end(), "real.f32/hisparse256c2-aos-aos/hisparse-128x8-g32-big0") != names.end());
  CHECK(std::find(names.begin(), names.end(), "quaternion.f64/hisparse256c2-aos-aos/hisparse-128x8-g32-big0-u4") != names.end());
  o.hisparse_layouts = {"hisparse64c2-aos-aos", "hisparse64c4-aos-aos"};
  CHECK(wide_hisparse_kernels(batches, o, ScheduleLimits{}).empty());
}

TEST_CASE("tuner: stage one times a matrix that fits in the L2 with cached loads, narrow where its columns fit") {
  const long long l2 = 50ll << 20;
  CHECK_FALSE(stage_one_policy(2.0 * l2, l2, true).cached);  // streamed: evict-first, wide
  CHECK_FALSE(stage_one_policy(2.0 * l2, l2, true).narrow);
  CHECK(stage_one_policy(0.7 * l2, l2, true).cached);
  CHECK(stage_one_policy(0.7 * l2, l2, true).narrow);
  CHECK(stage_one_policy(0.7 * l2, l2, false).cached);
  CHECK_FALSE(stage_one_policy(0.7 * l2, l2, false).narrow);
  CHECK_FALSE(stage_one_policy(0.7 * l2, 0, true).cached);  // the L2 unknown: as before

  const ScheduleLimits h100;
  const EntryType& real = EntryRegistry::instance().get("real");
  TuneOptions o;
  o.hisparse_layouts = {"hisparse64c2-aos-aos"};
  const auto plain = stage_one_variants(real, Precision::f32, o, h100);
  const auto in_l2 = stage_one_variants(real, Precision::f32, o, h100, StageOnePolicy{true, true});
  // the same points, the row layouts narrow and cached, plus csr-aos-aos wide (the baseline) in each tpr
  CHECK(in_l2.size() == plain.size() + 6);
  size_t wide_baseline = 0;
  for (const auto& v : in_l2) {
    if (!v.schedule.row_family()) {
      CHECK_FALSE(v.schedule.cached_matrix);
      CHECK_FALSE(v.layout.narrow);
      continue;
    }
    CHECK(v.schedule.cached_matrix);
    if (!v.layout.narrow) {
      CHECK(v.layout.name() == "csr-aos-aos");
      ++wide_baseline;
    }
  }
  CHECK(wide_baseline == 6);
  for (const auto& v : stage_one_variants(real, Precision::f32, o, h100, StageOnePolicy{true, false}))
    CHECK_FALSE(v.layout.narrow);
  // --mode schedule tunes plain csr-aos-aos: no policy
  o.mode = "schedule";
  for (const auto& v : stage_one_variants(real, Precision::f32, o, h100, StageOnePolicy{true, true})) {
    CHECK(v.layout.name() == "csr-aos-aos");
    CHECK_FALSE(v.schedule.cached_matrix);
  }
}

TEST_CASE("tuner: the grids and the policy stage start from stage one's policy") {
  const ScheduleLimits h100;
  const Variant seed = Variant::parse("real.f32/ell-aos-aos-d16/static-256x8-cached");
  const auto grid = keeping_policy(coarse_grid_variants(EntryRegistry::instance().get("real"), seed, h100), seed);
  CHECK(grid.size() > 6);
  CHECK(grid.front() == seed);
  std::set<std::string> names;
  for (const auto& v : grid) {
    CHECK(v.schedule.cached_matrix);
    CHECK(v.layout.narrow);
    CHECK(names.insert(v.name()).second);  // each once
  }
  MatrixRecord r;
  add_measurement(r, seed.name(), 9);
  add_measurement(r, "real.f32/ell-aos-aos-d16/static-768x2-cached", 8);
  add_measurement(r, "real.f32/csr-aos-aos-d16/static-256x8-tpr4-cached", 10);
  for (const auto& v : refined_stage_two(r, grid, h100)) CHECK(v.schedule.cached_matrix);
  // A cached narrow seed (a matrix in L2) gets its streaming and wide forms; over half the L2 each
  // unrolling in both policies; the pair's other schedules give their seat away.
  std::vector<std::string> twins;
  for (const auto& v : policy_twins(r, 1, false, true, true)) twins.push_back(v.name());
  CHECK(twins == std::vector<std::string>{"real.f32/ell-aos-aos-d16/static-768x2", "real.f32/ell-aos-aos/static-768x2-cached",
                                          "real.f32/ell-aos-aos/static-768x2"});
  twins.clear();
  for (const auto& v : policy_twins(r, 1, true, true, true)) twins.push_back(v.name());
  CHECK(twins.size() == 11);
  CHECK(std::count(twins.begin(), twins.end(), "real.f32/ell-aos-aos-d16/static-768x2-u4-cached") == 1);
  // above the L2, no cached unrolled twins
  twins.clear();
  for (const auto& v : policy_twins(r, 1, true, true, false)) twins.push_back(v.name());
  CHECK(twins.size() == 7);
  for (const auto& t : twins) CHECK_FALSE((t.find("-cached") != std::string::npos && t.find("-u") != std::string::npos));
  // a narrow seed is widened even where a renumbered matrix's fit is unknown (narrow false), never narrowed
  CHECK(policy_twins(r, 1, false, false, true).size() == 3);
  // ordering twins of a narrow seed whose renumbered columns do not fit: wide
  for (const auto& v : ordering_twins(r, 2, Ordering::rcm, false)) CHECK_FALSE(v.layout.narrow);
}

TEST_CASE("tuner: a domain's winner counts each variant in the load policy that was fastest on each matrix") {
  // A small matrix (timed cached and narrow) and a large one (streamed, wide) of one domain; hola ran the
  // same on both and is the only whole variant they share.
  MatrixRecord small, large;
  add_measurement(small, "real.f32/csr-aos-aos/static-256x8-tpr4-cached", 10);  // the baseline
  add_measurement(small, "real.f32/ell-aos-aos-d16/static-256x8-cached", 5);
  add_measurement(small, "real.f32/hola-aos-aos/hola-256x4-ept4", 9);
  small.schedule_only = "real.f32/csr-aos-aos/static-256x8-tpr4-cached";
  add_measurement(large, "real.f32/csr-aos-aos/static-256x8-tpr4", 100);
  add_measurement(large, "real.f32/ell-aos-aos/static-256x8", 60);
  add_measurement(large, "real.f32/ell-aos-aos/static-256x8-u4", 55);
  add_measurement(large, "real.f32/hola-aos-aos/hola-256x4-ept4", 110);
  large.schedule_only = "real.f32/csr-aos-aos/static-256x8-tpr4";
  const DomainChoice d = domain_winner({&small, &large}, false);
  CHECK(d.winner == "real.f32/ell-aos-aos/static-256x8");
  CHECK(d.geomean_speedup == doctest::Approx(std::sqrt(2.0 * 100.0 / 55.0)));
  // Nothing shared: no winner; a record without its baseline: none either.
  MatrixRecord other;
  add_measurement(other, "real.f32/sell32-aos-aos/static-256x8", 1);
  other.schedule_only = "real.f32/sell32-aos-aos/static-256x8";
  CHECK(domain_winner({&small, &other}, false).winner.empty());
  other.schedule_only = "real.f32/csr-aos-aos/static-64x1";
  CHECK(domain_winner({&other}, false).winner.empty());
}

TEST_CASE("tuner: transposed products search both kinds, or only the deterministic one") {
  const ScheduleLimits h100;
  TuneOptions o;
  o.op = Op::t;
  const EntryType& cplx = EntryRegistry::instance().get("complex");
  const auto both = stage_one_variants(cplx, Precision::f32, o, h100);
  size_t atomic = 0, copy = 0, tree = 0;
  for (const auto& v : both) {
    CHECK(v.op == Op::t);
    (v.transpose == TransposeKind::atomic ? atomic : v.transpose == TransposeKind::copy ? copy : tree) += 1;
    CHECK((v.transpose == TransposeKind::tree) == (v.layout.outer == OuterLayout::hisparse));
  }
  CHECK(atomic == 20 * 6 + 4 * 3);
  CHECK(copy == 20 * 6 + 4 * 3);
  CHECK(tree == 11 + 3);  // the first layout's setups, its small-leaf and batched twins, the other three layouts
  o.deterministic = true;
  const auto steady = stage_one_variants(cplx, Precision::f32, o, h100);
  CHECK(steady.size() == 20 * 6);  // no hola, no atomics, no hisparse transposes (shared atomics)
  for (const auto& v : steady) CHECK(v.deterministic());
}

TEST_CASE("tuner: op t stages the atomic kind behind the copy kind's ranking") {
  const ScheduleLimits h100;
  TuneOptions o;
  o.op = Op::t;
  const EntryType& cplx = EntryRegistry::instance().get("complex");
  std::vector<Variant> atomic;
  for (const auto& v : stage_one_variants(cplx, Precision::f32, o, h100))
    if (v.transpose == TransposeKind::atomic) atomic.push_back(v);
  // The copy kind measured on ell-aos-aos (tpr 1 fastest, then 4, 2; tpr 8 failed) and on one hola layout;
  // nothing on the other layouts (as when their transposed copy was skipped).
  MatrixRecord r;
  auto measured = [&](const std::string& name, double us, const std::string& status = "ok") {
    MeasurementRecord m;
    m.variant = name;
    m.status = status;
    m.median_us = us;
    r.measurements.push_back(m);
  };
  measured("complex.f32/ell-aos-aos/static-256x8/t-copy", 10);
  measured("complex.f32/ell-aos-aos/static-256x8-tpr4/t-copy", 12);
  measured("complex.f32/ell-aos-aos/static-256x8-tpr2/t-copy", 15);
  measured("complex.f32/ell-aos-aos/static-256x8-tpr8/t-copy", 1, "wrong: y[0]");
  measured("complex.f32/hola-aos-aos/hola-256x4-ept8/t-copy", 20);
  measured("complex.f32/hola-aos-aos/hola-256x4-ept2/t-copy", 30);
  measured("complex.f32/ell-aos-aos/static-256x8/t-atomic", 5);  // the other kind ranks nothing
  const auto chosen = atomic_stage_one(atomic, r, 2, 100.0);
  std::set<std::string> names;
  for (const auto& v : chosen) names.insert(v.name());
  CHECK(names.count("complex.f32/ell-aos-aos/static-256x8/t-atomic"));
  CHECK(names.count("complex.f32/ell-aos-aos/static-256x8-tpr4/t-atomic"));
  CHECK_FALSE(names.count("complex.f32/ell-aos-aos/static-256x8-tpr2/t-atomic"));
  CHECK_FALSE(names.count("complex.f32/ell-aos-aos/static-256x8-tpr8/t-atomic"));
  CHECK(names.count("complex.f32/hola-aos-aos/hola-256x4-ept8/t-atomic"));
  CHECK_FALSE(names.count("complex.f32/hola-aos-aos/hola-256x4-ept2/t-atomic"));
  // 19 other row layouts x 6 threads-per-row and 3 other hola layouts x 3 entries-per-thread keep all.
  CHECK(chosen.size() == 2 + 1 + 19 * 6 + 3 * 3);
  for (const auto& v : chosen) CHECK(v.transpose == TransposeKind::atomic);
  // Within 1.5x of the copy kind's best (10 us) only: hola-aos-aos (20 us) loses its atomic twin; the
  // layouts the copy kind has not ranked keep theirs.
  const auto pruned = atomic_stage_one(atomic, r, 2, 1.5);
  std::set<std::string> kept;
  for (const auto& v : pruned) kept.insert(v.name());
  CHECK(kept.count("complex.f32/ell-aos-aos/static-256x8-tpr4/t-atomic"));
  CHECK_FALSE(kept.count("complex.f32/hola-aos-aos/hola-256x4-ept8/t-atomic"));
  CHECK(pruned.size() == chosen.size() - 1);
}

TEST_CASE("tuner: sorted sell layouts are searched where sorting cuts padding, and their windows after") {
  const EntryType& real = EntryRegistry::instance().get("real");
  RandomMatrixOptions o;
  o.rows = o.cols = 3000;
  o.mean_row = 7;  // lengths 1..13: sorting halves sell32's padding
  CHECK(sorted_sell_pays(compute_features(random_matrix(real, o)), 1));
  // equal rows: sorting cuts nothing and costs a row order
  HostMatrix grid;
  grid.entry = real;
  grid.rows = grid.cols = 3000;
  for (int32_t r = 0; r < grid.rows; ++r) {
    for (int k = 0; k < 5; ++k) {
      grid.col_idx.push_back((r + k) % grid.cols);
      grid.values.push_back(1);
    }
    std::sort(grid.col_idx.end() - 5, grid.col_idx.end());
    grid.row_ptr.push_back(static_cast<int32_t>(grid.col_idx.size()));
  }
  CHECK_FALSE(sorted_sell_pays(compute_features(grid), 1));

  // Windows: only when the fastest sorted pair ranks among the top pairs of stage one.
  const auto v = [](const std::string& name) { return Variant::parse(name); };
  const std::vector<Variant> stage1 = {v("real.f64/csr-aos-aos/static-256x8"), v("real.f64/sell32s256-aos-aos/static-256x8"),
                                       v("real.f64/sell32s256-soa-aos/static-256x8"), v("real.f64/ell-aos-aos/static-256x8")};
  MatrixRecord r;
  auto measured = [&](const std::string& name, double us) {
    MeasurementRecord m;
    m.variant = name;
    m.status = "ok";
    m.median_us = us;
    r.upsert(m);
  };
  measured("real.f64/csr-aos-aos/static-256x8", 10);
  measured("real.f64/sell32s256-aos-aos/static-256x8", 11);
  measured("real.f64/sell32s256-soa-aos/static-256x8", 9);
  measured("real.f64/ell-aos-aos/static-256x8", 30);
  std::set<std::string> names;
  for (const auto& w : sorted_window_variants(r, stage1, 100000, 3)) names.insert(w.name());
  CHECK(names == std::set<std::string>{"real.f64/sell32s64-soa-aos/static-256x8", "real.f64/sell32s1024-soa-aos/static-256x8",
                                       "real.f64/sell32s8192-soa-aos/static-256x8"});
  // 500 rows: 1024 already holds them all, 8192 would sort the same
  CHECK(sorted_window_variants(r, stage1, 500, 3).size() == 2);
  // ranked below the top pairs: none
  measured("real.f64/sell32s256-soa-aos/static-256x8", 40);
  measured("real.f64/sell32s256-aos-aos/static-256x8", 41);
  CHECK(sorted_window_variants(r, stage1, 100000, 2).empty());
}

TEST_CASE("tuner: a window that beats stage one's goes to the other sorted pairs near the one it was tried on") {
  // The scanned Dirac's shape (H100, twenty-ninth session): windows tried on the fastest sorted pair
  // (aos-soa); sigma 64 won there; the aos-aos pairs within 10% get sigma 64 too, fastest first; the soa
  // inner layout 1.2x slower and the sell16 one (another slice) do not.
  const auto v = [](const std::string& name) { return Variant::parse(name); };
  const std::vector<Variant> stage1 = {
      v("quaternion.f32/sell32s256-aos-soa/static-256x8"), v("quaternion.f32/sell32s256-aos-aos/static-256x8-tpr4"),
      v("quaternion.f32/sell32s256-aos-aos/static-256x8"), v("quaternion.f32/sell32s256-soa-aos/static-256x8"),
      v("quaternion.f32/sell16s256-aos-aos/static-256x8"), v("quaternion.f32/csr-aos-aos/static-256x8-tpr8")};
  MatrixRecord r;
  auto measured = [&](const std::string& name, double us) { add_measurement(r, name, us, "ok"); };
  measured("quaternion.f32/sell32s256-aos-soa/static-256x8", 63.8);
  measured("quaternion.f32/sell32s256-aos-aos/static-256x8-tpr4", 64.8);
  measured("quaternion.f32/sell32s256-aos-aos/static-256x8", 64.9);
  measured("quaternion.f32/sell32s256-soa-aos/static-256x8", 76.0);
  measured("quaternion.f32/sell16s256-aos-aos/static-256x8", 64.0);
  measured("quaternion.f32/csr-aos-aos/static-256x8-tpr8", 66.0);
  const auto windows = sorted_window_variants(r, stage1, 800000, 3);
  REQUIRE(windows.size() == 3);
  CHECK(sorted_window_siblings(r, stage1, windows).empty());  // no window timed yet
  measured("quaternion.f32/sell32s64-aos-soa/static-256x8", 60.4);
  measured("quaternion.f32/sell32s1024-aos-soa/static-256x8", 62.0);
  measured("quaternion.f32/sell32s8192-aos-soa/static-256x8", 65.0);
  std::vector<std::string> names;
  for (const auto& s : sorted_window_siblings(r, stage1, windows)) names.push_back(s.name());
  CHECK(names == std::vector<std::string>{"quaternion.f32/sell32s64-aos-aos/static-256x8-tpr4",
                                          "quaternion.f32/sell32s64-aos-aos/static-256x8"});
  // Measured already: not again. A window no better than stage one's: none.
  measured("quaternion.f32/sell32s64-aos-aos/static-256x8-tpr4", 61.0);
  CHECK(sorted_window_siblings(r, stage1, windows).size() == 1);
  for (const char* w : {"quaternion.f32/sell32s64-aos-soa/static-256x8", "quaternion.f32/sell32s1024-aos-soa/static-256x8",
                        "quaternion.f32/sell32s8192-aos-soa/static-256x8"})
    measured(w, 70.0);
  CHECK(sorted_window_siblings(r, stage1, windows).empty());
}

TEST_CASE("tuner: the load-policy stage times the cached and unrolled twins of the fastest row variants") {
  MatrixRecord r;
  auto measured = [&r](const std::string& name, double us, const char* status = "ok") { add_measurement(r, name, us, status); };
  measured("real.f64/hola-aos-aos/hola-256x8-ept4", 5);                 // not the row family
  measured("real.f64/csr-aos-aos/static-256x8-tpr4", 6);
  measured("real.f64/sell32-aos-aos/dynamic-128x16", 7);
  measured("real.f64/sell32-aos-aos/dynamic-128x16-cached", 7.5);       // its twin is timed already
  measured("real.f64/ell-aos-aos/static-256x8", 8);
  measured("real.f64/csr-aos-aos/static-256x8", 9);
  measured("real.f64/csr-aos-aos/static-512x4", 1, "wrong: y[3]");
  std::vector<std::string> names;
  for (const auto& v : policy_twins(r, 3, false, false)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/csr-aos-aos/static-256x8-tpr4-cached",
                                          "real.f64/ell-aos-aos/static-256x8-cached"});
  // with unrolling (large matrices): 4 and 8 iterations of each, the timed cached twin left out
  names.clear();
  for (const auto& v : policy_twins(r, 2, true, false)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/csr-aos-aos/static-256x8-tpr4-cached", "real.f64/csr-aos-aos/static-256x8-tpr4-u4",
                                          "real.f64/csr-aos-aos/static-256x8-tpr4-u8", "real.f64/sell32-aos-aos/dynamic-128x16-u4",
                                          "real.f64/sell32-aos-aos/dynamic-128x16-u8"});
  // where the matrix fits 16-bit column offsets: the narrow form of each layout too
  names.clear();
  for (const auto& v : policy_twins(r, 2, false, true)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/csr-aos-aos/static-256x8-tpr4-cached", "real.f64/csr-aos-aos-d16/static-256x8-tpr4",
                                          "real.f64/csr-aos-aos-d16/static-256x8-tpr4-cached", "real.f64/sell32-aos-aos-d16/dynamic-128x16",
                                          "real.f64/sell32-aos-aos-d16/dynamic-128x16-cached"});
  // one seed per (layout, threads per row): a second schedule of the fastest pair gives its seat away
  measured("real.f64/csr-aos-aos/static-512x4-tpr4", 6.5);
  names.clear();
  for (const auto& v : policy_twins(r, 2, false, false)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/csr-aos-aos/static-256x8-tpr4-cached"});  // sell32's is timed
  names.clear();
  for (const auto& v : policy_twins(r, 3, false, false)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/csr-aos-aos/static-256x8-tpr4-cached",
                                          "real.f64/ell-aos-aos/static-256x8-cached"});
  const Variant u = Variant::parse("real.f32/csr-aos-aos/static-256x8-tpr2-u8-cached");
  CHECK(u.schedule.unroll == 8);
  CHECK(u.schedule.cached_matrix);
  CHECK(u.name() == "real.f32/csr-aos-aos/static-256x8-tpr2-u8-cached");
  CHECK(Variant::parse("real.f32/csr-aos-aos/static-256x8-u1").schedule.unroll == 1);
  CHECK_THROWS_AS(Variant::parse("real.f32/csr-aos-aos/static-256x8-u3"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f32/csr-aos-aos/static-256x8-u16"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f32/csr-aos-aos/static-256x8-cached-u4"), InvalidArgument);
  // the names read back; the cached policy is refused where it does not exist
  const Variant c = Variant::parse("complex.f32/sell32s256-soa-aos/dynamic-128x4-tpr2-cached/t-atomic");
  CHECK(c.schedule.cached_matrix);
  CHECK(c.layout.sigma == 256);
  CHECK(c.name() == "complex.f32/sell32s256-soa-aos/dynamic-128x4-tpr2-cached/t-atomic");
  CHECK_FALSE(c == Variant::parse("complex.f32/sell32s256-soa-aos/dynamic-128x4-tpr2/t-atomic"));
  CHECK_THROWS_AS(Variant::parse("real.f64/hola-aos-aos/hola-256x8-ept4-cached"), InvalidArgument);
  Schedule hola = Schedule::parse("hola-256x8-ept4");
  hola.cached_matrix = true;
  CHECK_THROWS_WITH(check_schedule(hola), doctest::Contains("cached"));
}

TEST_CASE("tuner: the even grid gives every block the same number of chunks; its twins are timed where it differs") {
  // 1,000 rows in chunks of 8 (256 threads, tpr 32) = 125 chunks; 2 x 50 SMs = 100 blocks: 25 of them run a
  // second chunk. Even: 2 chunks per block, 63 blocks (the last one chunk).
  Schedule s = Schedule::parse("static-256x2-tpr32");
  CHECK(row_kernel_blocks(1000, s, 50) == 100);
  s.even_grid = true;
  CHECK(row_kernel_blocks(1000, s, 50) == 63);
  CHECK(row_kernel_blocks(800, s, 50) == 100);  // 100 chunks on 100 blocks: one each, as without
  CHECK(row_kernel_blocks(10, s, 50) == 2);     // fewer chunks than blocks: one each
  CHECK(row_kernel_blocks(0, s, 50) == 1);      // at least one chunk, as without
  CHECK(row_kernel_blocks(100000, s, 50) == 100);  // 12,500 chunks: 125 per block on every block
  // the kernel is the plain one: one compile, one cubin
  const Variant even = Variant::parse("real.f32/sell32s64-aos-aos-d16/static-512x4-even");
  CHECK(even.schedule.even_grid);
  CHECK(even.compiled_variant() == Variant::parse("real.f32/sell32s64-aos-aos-d16/static-512x4").compiled_variant());
  CHECK_FALSE(even == Variant::parse("real.f32/sell32s64-aos-aos-d16/static-512x4"));

  MatrixRecord r;
  auto measured = [&r](const std::string& name, double us, const char* status = "ok") { add_measurement(r, name, us, status); };
  measured("real.f64/hola-aos-aos/hola-256x4-ept4", 40);             // not a row kernel
  measured("real.f64/ell-aos-aos/static-256x2-tpr32", 50);
  measured("real.f64/csr-aos-aos/dynamic-256x2-tpr32", 51);          // dynamic: balances itself
  measured("real.f64/csr-aos-aos/static-256x2-tpr32", 52);
  measured("real.f64/csr-aos-aos/static-1024x2-tpr32", 53);          // 32 rows a chunk: 32 chunks, no tail
  measured("real.f64/sell32-aos-aos/static-256x2-tpr32@rcm", 54);
  measured("real.f64/csr-aos-aos/static-128x2-tpr32", 55, "error: no");
  std::vector<std::string> names;
  for (const auto& v : even_grid_twins(r, 3, 1000, 1000, 50)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/ell-aos-aos/static-256x2-tpr32-even",
                                          "real.f64/csr-aos-aos/static-256x2-tpr32-even"});
  measured("real.f64/ell-aos-aos/static-256x2-tpr32-even", 49);
  names.clear();
  for (const auto& v : even_grid_twins(r, 4, 1000, 1000, 50)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/csr-aos-aos/static-256x2-tpr32-even",
                                          "real.f64/sell32-aos-aos/static-256x2-tpr32-even@rcm"});
  // a transposed copy's kernel runs over the columns: 800 of them leave no tail
  MatrixRecord t;
  add_measurement(t, "real.f64/csr-aos-aos/static-256x2-tpr32/t-copy", 50, "ok");
  CHECK(even_grid_twins(t, 3, 1000, 800, 50).empty());
  CHECK(even_grid_twins(t, 3, 800, 1000, 50).size() == 1);
}

TEST_CASE("tuner: the renumbering stage runs the fastest outer layouts again on P A P^T") {
  MatrixRecord r;
  auto measured = [&r](const std::string& name, double us, const char* status = "ok") { add_measurement(r, name, us, status); };
  measured("real.f64/hola-aos-soa/hola-64x32-ept8", 60);
  measured("real.f64/hola-aos-aos/hola-256x8-ept8", 61);        // same outer layout: only the fastest
  measured("real.f64/csr-aos-aos/static-256x8-tpr32-u4", 180);
  measured("real.f64/csr-soa-aos/static-256x8-tpr32", 170);
  measured("real.f64/sell16-aos-aos/static-256x8-tpr32", 450);
  measured("real.f64/sell32s256-aos-aos/static-256x8-tpr16", 1000);
  measured("real.f64/hisparse32c2-aos-aos/hisparse-128x4-g16-big4096-s", 1400);
  measured("real.f64/ell-aos-aos/static-256x8", 1, "skipped: over the memory cap");
  measured("real.f64/sell16-aos-aos/static-256x8-tpr32@rcm", 90);  // renumbered ones are not seeds, and
                                                                    // what was timed is not timed again
  std::vector<std::string> names;
  for (const auto& v : ordering_twins(r, 3, Ordering::rcm, false)) names.push_back(v.name());
  // (the fastest hisparse variant is renumbered wherever it ranks: a random order's tree is one-entry leaves)
  CHECK(names == std::vector<std::string>{"real.f64/hola-aos-soa/hola-64x32-ept8@rcm",
                                          "real.f64/csr-soa-aos/static-256x8-tpr32@rcm",
                                          "real.f64/hisparse32c2-aos-aos/hisparse-128x4-g16-big4096-s@rcm"});
  names.clear();
  for (const auto& v : ordering_twins(r, 4, Ordering::rcm, true)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{
                     "real.f64/hola-aos-soa/hola-64x32-ept8@rcm", "real.f64/csr-soa-aos/static-256x8-tpr32@rcm",
                     "real.f64/csr-soa-aos-d16/static-256x8-tpr32@rcm", "real.f64/sell16-aos-aos-d16/static-256x8-tpr32@rcm",
                     "real.f64/sell32s256-aos-aos/static-256x8-tpr16@rcm", "real.f64/sell32s256-aos-aos-d16/static-256x8-tpr16@rcm",
                     "real.f64/hisparse32c2-aos-aos/hisparse-128x4-g16-big4096-s@rcm"});
  // the renumbered hisparse variant in stage one's other setups, without small leaves, big strips kept,
  // and in the batched setup
  const Variant hs = Variant::parse("real.f64/hisparse32c2-aos-aos/hisparse-128x4-g16-big4096-s@rcm");
  measured("real.f64/hisparse32c2-aos-aos/hisparse-128x8-g32-big4096-u1@rcm", 700);
  names.clear();
  for (const auto& v : hisparse_setup_twins(r, hs, EntryRegistry::instance().get("real"), ScheduleLimits{})) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/hisparse32c2-aos-aos/hisparse-128x4-g16-big4096@rcm",
                                          "real.f64/hisparse32c2-aos-aos/hisparse-128x4-g32-big4096-u1@rcm",
                                          "real.f64/hisparse32c2-aos-aos/hisparse-128x16-g16-big4096-u1@rcm",
                                          "real.f64/hisparse32c2-aos-aos/hisparse-128x4-g32-big4096-u1-b@rcm"});
  CHECK(hisparse_setup_twins(r, Variant::parse("real.f64/csr-soa-aos/static-256x8-tpr32@rcm"), EntryRegistry::instance().get("real"), ScheduleLimits{}).empty());
  // only the setups the entry's shared memory fits: d 256 of quaternion f64 runs groups of 32 only
  for (const auto& v : hisparse_setup_twins(r, Variant::parse("quaternion.f64/hisparse256c2-aos-aos/hisparse-128x8-g32-big4096-u1@rcm"),
                                            EntryRegistry::instance().get("quaternion"), ScheduleLimits{}))
    CHECK(v.schedule.threads_per_row == 32);
  r.measurements.pop_back();
  names.clear();
  for (const auto& v : ordering_twins(r, 6, Ordering::rcm, false)) names.push_back(v.name());  // ranked 6th: once
  CHECK(std::count(names.begin(), names.end(), "real.f64/hisparse32c2-aos-aos/hisparse-128x4-g16-big4096-s@rcm") == 1);
  // the other y form of the fastest renumbered variants, those not timed
  measured("real.f64/csr-soa-aos/static-256x8-tpr32@rcm", 120);
  measured("real.f64/hola-aos-soa/hola-64x32-ept8@rcm-ymove", 100);
  names.clear();
  for (const auto& v : y_form_twins(r, 2)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/sell16-aos-aos/static-256x8-tpr32@rcm-ymove",
                                          "real.f64/hola-aos-soa/hola-64x32-ept8@rcm"});
  measured("real.f64/sell16-aos-aos/static-256x8-tpr32@rcm-ymove", 95);
  names.clear();
  for (const auto& v : y_form_twins(r, 2)) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"real.f64/hola-aos-soa/hola-64x32-ept8@rcm"});  // both forms of the first timed
  // only square matrices of at least 16384 rows whose entries lie far from the diagonal on average
  MatrixFeatures f;
  f.rows = f.cols = 100000;
  f.mean_distance_from_diagonal = 30000;  // a random order: about a third of the rows
  CHECK(renumbering_may_pay(f));
  f.mean_distance_from_diagonal = 1500;  // a mesh in a generator's order
  CHECK_FALSE(renumbering_may_pay(f));
  f.mean_distance_from_diagonal = 30000;
  f.cols = 100001;
  CHECK_FALSE(renumbering_may_pay(f));
  f.rows = f.cols = 8000;
  f.mean_distance_from_diagonal = 2600;
  CHECK_FALSE(renumbering_may_pay(f));
  // which renumbering: by degree where rows are skewed (a graph), else reverse Cuthill-McKee
  f.mean_row = 16;
  f.std_row = 113;  // the R-MAT graph of the main set
  CHECK(preferred_ordering(f) == Ordering::degree);
  f.std_row = 3;  // a mesh
  CHECK(preferred_ordering(f) == Ordering::rcm);
}

TEST_CASE("tuner: stage two sweeps a coarse grid, then every schedule near each pair's best") {
  const ScheduleLimits h100;
  const EntryType& real = EntryRegistry::instance().get("real");
  const Variant seed = Variant::parse("real.f32/ell-soa-aos/static-256x8-tpr2");
  const auto coarse = coarse_grid_variants(real, seed, h100);
  // the seed, and n_t {64, 256, 1024} x n_b {full, half} x {static, dynamic} (256x8 is among them)
  CHECK(coarse.size() == 12);
  std::set<std::string> names;
  for (const auto& v : coarse) {
    CHECK_NOTHROW(check_variant(v, 1024, 2048, 32));
    CHECK(v.schedule.threads_per_row == 2);
    CHECK(v.layout == seed.layout);
    names.insert(v.schedule.name());
  }
  CHECK(names.count("static-64x32-tpr2"));
  CHECK(names.count("dynamic-64x16-tpr2"));
  CHECK(names.count("static-1024x2-tpr2"));
  CHECK(names.count("dynamic-1024x1-tpr2"));
  CHECK(names.size() == coarse.size());
  // hola keeps its whole grid
  const Variant hola = Variant::parse("real.f64/hola-aos-aos/hola-256x8-ept4");
  CHECK(coarse_grid_variants(real, hola, h100).size() == grid_variants(real, hola, h100).size());

  // around dynamic-256x4: n_t 128..512, n_b 2..8 within 2048 threads, and static-256x4
  const auto refined = refined_grid_variants(Variant::parse("real.f32/csr-aos-aos/dynamic-256x4-tpr4"), h100);
  names.clear();
  for (const auto& v : refined) {
    CHECK_NOTHROW(check_variant(v, 1024, 2048, 32));
    names.insert(v.schedule.name());
  }
  CHECK(names.count("static-256x4-tpr4"));
  CHECK(names.count("dynamic-128x8-tpr4"));
  CHECK(names.count("dynamic-512x2-tpr4"));
  CHECK(names.count("dynamic-384x4-tpr4"));
  CHECK_FALSE(names.count("dynamic-512x8-tpr4"));  // 4096 threads
  CHECK_FALSE(names.count("dynamic-64x4-tpr4"));   // beyond a factor of two
  CHECK_FALSE(names.count("static-128x8-tpr4"));   // the other kind only where the best stands

  // a hisparse best (its grid is whole): its twins with 1, 4 and 8 chunks per thread
  names.clear();
  for (const auto& v : refined_grid_variants(Variant::parse("real.f32/hisparse64c2-aos-aos/hisparse-128x8-g8-big0-s"), h100))
    names.insert(v.schedule.name());
  CHECK(names == std::set<std::string>{"hisparse-128x8-g8-big0-u1-s", "hisparse-128x8-g8-big0-u4-s",
                                       "hisparse-128x8-g8-big0-u8-s"});

  // refined_stage_two: around the best coarse schedule of each pair, less what was timed
  MatrixRecord r;
  auto measured = [&](const Variant& v, double us) {
    MeasurementRecord m;
    m.variant = v.name();
    m.status = "ok";
    m.median_us = us;
    r.upsert(m);
  };
  for (size_t i = 0; i < coarse.size(); ++i) measured(coarse[i], coarse[i].schedule.name() == "static-64x32-tpr2" ? 5 : 10);
  const auto next = refined_stage_two(r, coarse, h100);
  REQUIRE(!next.empty());
  for (const auto& v : next) {
    CHECK(v.schedule.threads <= 128);
    CHECK(v.schedule.blocks_per_sm >= 16);
    CHECK_FALSE(r.find(v.name()));
  }
}
