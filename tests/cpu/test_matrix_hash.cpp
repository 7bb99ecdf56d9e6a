// The matrix key: the fast hash tells matrices apart (one-bit changes, bytes moved between fields, tails of
// every length), and the tuning database still finds records written under the legacy key, moves them to
// the new key as the tuner does, and keeps them there through a save.
#include <doctest/doctest.h>

#include "fake_gpu_util.hpp"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <set>

#include "core/entry_type.hpp"
#include "core/features.hpp"
#include "core/random_matrix.hpp"
#include "selection/database.hpp"
#include "selection/select.hpp"

using namespace jitsparse;

namespace {

HostMatrix small_matrix(uint64_t seed = 1, int32_t rows = 60) {
  RandomMatrixOptions o;
  o.rows = o.cols = rows;
  o.mean_row = 4;
  o.seed = seed;
  o.name = "random_" + std::to_string(seed);
  return random_matrix(EntryRegistry::instance().get("real"), o);
}

// Flips one bit of element i of v (any element type: the hash reads bytes).
template <class T>
void flip_bit(std::vector<T>& v, size_t i, int bit) {
  unsigned char* p = reinterpret_cast<unsigned char*>(&v[i]);
  p[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
}

using test::fake_gpu;

MatrixRecord record_of(const HostMatrix& a, const std::string& key, const std::string& prec, const std::string& op = "n") {
  MatrixRecord r;
  r.name = a.name;
  r.hash = key;
  r.entry = a.entry.name;
  r.precision = prec;
  r.op = op;
  r.domain = "d";
  r.features = compute_features(a);
  MeasurementRecord m;
  m.variant = "real." + prec + "/csr-aos-aos/dynamic-256x8-tpr1";
  m.status = "ok";
  m.median_us = 10;
  r.measurements.push_back(m);
  r.winner = r.schedule_only = r.deterministic_winner = m.variant;
  r.complete = true;
  return r;
}

struct TempCache {
  std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-hash-test-" + std::to_string(::getpid()));
  TempCache() { std::filesystem::remove_all(dir); }
  ~TempCache() { std::filesystem::remove_all(dir); }
};

int records_named(const TuningDatabase& db, const std::string& name, const std::string& prec) {
  int n = 0;
  for (const MatrixRecord* r : db.records()) n += r->name == name && r->precision == prec;
  return n;
}

}  // namespace

TEST_CASE("matrix hash: deterministic, new-style keys apart from legacy ones") {
  const HostMatrix a = small_matrix();
  const std::string key = matrix_hash(a);
  CHECK(key == matrix_hash(small_matrix()));
  CHECK(key.size() == 19);
  CHECK(key.rfind(kMatrixKeyPrefix, 0) == 0);
  CHECK_FALSE(is_legacy_matrix_key(key));
  const std::string legacy = legacy_matrix_hash(a);
  CHECK(is_legacy_matrix_key(legacy));
  CHECK(legacy == legacy_matrix_hash(small_matrix()));
  CHECK(is_key_of(a, key));
  CHECK(is_key_of(a, legacy));
  const HostMatrix other = small_matrix(2);
  CHECK_FALSE(is_key_of(other, key));
  CHECK_FALSE(is_key_of(other, legacy));
  CHECK_FALSE(is_legacy_matrix_key("0123456789abcdeg"));
  CHECK_FALSE(is_legacy_matrix_key("0123456789abcde"));
}

TEST_CASE("matrix hash: one bit changed in the values, columns or row pointers changes it") {
  const HostMatrix a = small_matrix();
  const std::string key = matrix_hash(a);
  for (size_t i : {size_t{0}, a.values.size() / 2, a.values.size() - 1})
    for (int bit : {0, 31, 52, 63}) {
      HostMatrix b = a;
      flip_bit(b.values, i, bit);
      CHECK(matrix_hash(b) != key);
    }
  for (size_t i : {size_t{0}, a.col_idx.size() / 3, a.col_idx.size() - 1})
    for (int bit : {0, 7, 30}) {
      HostMatrix b = a;
      flip_bit(b.col_idx, i, bit);
      CHECK(matrix_hash(b) != key);
    }
  for (size_t i : {size_t{1}, a.row_ptr.size() - 1}) {
    HostMatrix b = a;
    flip_bit(b.row_ptr, i, 2);
    CHECK(matrix_hash(b) != key);
  }
  HostMatrix wider = a;
  wider.cols += 1;
  CHECK(matrix_hash(wider) != key);
}

TEST_CASE("matrix hash: bytes moved from one field to the next change it (the legacy hash did not see it)") {
  HostMatrix a;
  a.entry = EntryRegistry::instance().get("real");
  a.rows = a.cols = 2;
  a.row_ptr = {0, 1, 2};
  a.col_idx = {0, 1};
  a.values = {1.5, -2.25};
  // The same bytes in the same order, the first value's 8 bytes moved into the column indices.
  HostMatrix b = a;
  b.col_idx.resize(4);
  std::memcpy(&b.col_idx[2], &a.values[0], sizeof(double));
  b.values = {a.values[1]};
  CHECK(legacy_matrix_hash(a) == legacy_matrix_hash(b));
  CHECK(matrix_hash(a) != matrix_hash(b));
  // Four bytes from the row pointers into the column indices.
  HostMatrix c = a;
  c.row_ptr = {0, 1};
  c.col_idx = {2, 0, 1};
  CHECK(legacy_matrix_hash(a) == legacy_matrix_hash(c));
  CHECK(matrix_hash(a) != matrix_hash(c));
}

TEST_CASE("matrix hash: the entry type's name is part of it") {
  const HostMatrix a = small_matrix();
  HostMatrix b = a;
  b.entry.name = "real2";
  CHECK(matrix_hash(b) != matrix_hash(a));
  b.entry.name = "rea";
  CHECK(matrix_hash(b) != matrix_hash(a));
}

TEST_CASE("matrix hash: fields of every length, not a multiple of 8 or 32 bytes, and the empty matrix") {
  // Column index fields of 0 to 68 bytes (every tail of a 32-byte block, 4-byte steps), values of 0 to 136:
  // all different, each deterministic, and a bit flipped anywhere in the tail changes the key.
  std::set<std::string> keys;
  HostMatrix base;
  base.entry = EntryRegistry::instance().get("real");
  base.rows = 1;
  base.cols = 100;
  for (int n = 0; n <= 17; ++n) {
    HostMatrix m = base;
    for (int k = 0; k < n; ++k) m.col_idx.push_back(3 * k + 1);
    m.values.assign(n, 0.25);
    m.row_ptr = {0, n};
    const std::string key = matrix_hash(m);
    CHECK(key == matrix_hash(m));
    keys.insert(key);
    for (int k = 0; k < n; ++k) {
      HostMatrix b = m;
      flip_bit(b.col_idx, k, 5);
      CHECK(matrix_hash(b) != key);
      HostMatrix c = m;
      flip_bit(c.values, k, 60);
      CHECK(matrix_hash(c) != key);
    }
  }
  CHECK(keys.size() == 18);
  // A name of 11 bytes (a 3-byte tail): its last byte counts.
  HostMatrix named = base;
  named.entry.name = "abcdefghijk";
  HostMatrix renamed = named;
  renamed.entry.name.back() = 'l';
  CHECK(matrix_hash(named) != matrix_hash(renamed));

  HostMatrix empty;
  empty.entry = EntryRegistry::instance().get("real");
  const std::string key = matrix_hash(empty);
  CHECK(key == matrix_hash(HostMatrix{empty}));
  CHECK(key.rfind(kMatrixKeyPrefix, 0) == 0);
  HostMatrix one_row = empty;
  one_row.rows = 1;
  one_row.row_ptr = {0, 0};
  CHECK(matrix_hash(one_row) != key);
}

TEST_CASE("database: find_matrix finds a record under the new key or under the legacy key") {
  TempCache cache;
  const HostMatrix a = small_matrix(1), b = small_matrix(2), same_shape = small_matrix(3);
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.upsert(record_of(a, legacy_matrix_hash(a), "f64"));  // as written before the fast hash
    db.upsert(record_of(b, matrix_hash(b), "f64"));
    db.save();
  }
  const TuningDatabase db(fake_gpu(), cache.dir);
  REQUIRE(db.warning().empty());
  CHECK(db.find(matrix_hash(a), "f64") == nullptr);
  const MatrixRecord* r = db.find_matrix(a, "f64");
  REQUIRE(r != nullptr);
  CHECK(r->hash == legacy_matrix_hash(a));
  CHECK(db.find_matrix(a, "f64", "n", matrix_hash(a)) == r);  // the caller's key tried first, then the legacy one
  REQUIRE(db.find_matrix(b, "f64") != nullptr);
  CHECK(db.find_matrix(b, "f64")->hash == matrix_hash(b));
  CHECK(db.find_matrix(a, "f32") == nullptr);
  CHECK(db.find_matrix(a, "f64", "t") == nullptr);
  CHECK(db.find_matrix(same_shape, "f64") == nullptr);  // hashed (its shape is tuned), not the same matrix
  // Run-time selection finds it too.
  CHECK(select_variant(db, a, Precision::f64, fake_gpu()).level == "exact");
}

TEST_CASE("database: a legacy record of another shape is not looked up (no legacy hash for it)") {
  // The record holds a's legacy key, but its features say another shape: find_matrix does not hash for
  // it, so it cannot find it even though the key would match.
  TuningDatabase db("/nonexistent/jitsparse-hash-test.json");
  const HostMatrix a = small_matrix();
  MatrixRecord r = record_of(a, legacy_matrix_hash(a), "f64");
  r.features.nnz += 1;
  db.upsert(r);
  CHECK(db.find_matrix(a, "f64") == nullptr);
  CHECK(db.rekey_legacy_records(a, matrix_hash(a)) == 0);
  CHECK(db.find(legacy_matrix_hash(a), "f64") != nullptr);
}

TEST_CASE("database: rekey_legacy_records moves a matrix's records to the new key, and a save keeps them there") {
  TempCache cache;
  const HostMatrix a = small_matrix(1), b = small_matrix(2);
  const std::string legacy = legacy_matrix_hash(a), key = matrix_hash(a);
  {
    TuningDatabase db(fake_gpu(), cache.dir);
    db.upsert(record_of(a, legacy, "f64"));
    db.upsert(record_of(a, legacy, "f32"));
    db.upsert(record_of(b, legacy_matrix_hash(b), "f64"));  // another matrix: stays as it is
    db.save();
  }
  TuningDatabase db(fake_gpu(), cache.dir);
  // Another process (an older jitsparse) adds a legacy record of a, op t, after this one has read.
  {
    TuningDatabase other(fake_gpu(), cache.dir);
    other.upsert(record_of(a, legacy, "f64", "t"));
    other.save();
  }
  CHECK(db.rekey_legacy_records(a, key) == 2);
  CHECK(db.find(legacy, "f64") == nullptr);
  CHECK(db.find(legacy, "f32") == nullptr);
  REQUIRE(db.find(key, "f64") != nullptr);
  CHECK(db.find(key, "f64")->name == a.name);
  CHECK(db.find_matrix(a, "f32") == db.find(key, "f32"));
  CHECK(db.rekey_legacy_records(a, key) == 0);  // nothing left under the legacy key
  db.save();

  const TuningDatabase again(fake_gpu(), cache.dir);
  // One record per precision and operation, all under the new key: the one on disk under the legacy key
  // did not come back, and the other process's joined under the new key.
  CHECK(records_named(again, a.name, "f64") == 2);
  CHECK(records_named(again, a.name, "f32") == 1);
  CHECK(again.find(legacy, "f64") == nullptr);
  CHECK(again.find(legacy, "f64", "t") == nullptr);
  CHECK(again.find(key, "f64") != nullptr);
  CHECK(again.find(key, "f32") != nullptr);
  CHECK(again.find(key, "f64", "t") != nullptr);
  CHECK(again.find(legacy_matrix_hash(b), "f64") != nullptr);
  CHECK(again.records().size() == 4);
}

TEST_CASE("database: rekey_legacy_records drops a legacy copy of a record the new key has") {
  TuningDatabase db("/nonexistent/jitsparse-hash-test.json");
  const HostMatrix a = small_matrix();
  MatrixRecord newer = record_of(a, matrix_hash(a), "f64");
  newer.winner = "real.f64/csr-aos-aos/dynamic-128x8-tpr2";
  db.upsert(record_of(a, legacy_matrix_hash(a), "f64"));
  db.upsert(newer);
  db.upsert(record_of(a, legacy_matrix_hash(a), "f32"));
  CHECK(db.rekey_legacy_records(a, matrix_hash(a)) == 2);
  CHECK(db.records().size() == 2);
  CHECK(db.find(matrix_hash(a), "f64")->winner == newer.winner);
  CHECK(db.find(matrix_hash(a), "f32") != nullptr);
}
