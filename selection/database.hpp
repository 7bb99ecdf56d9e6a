#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/features.hpp"
#include "core/file_util.hpp"
#include "core/host_matrix.hpp"
#include "generator/variant.hpp"
#include "runtime/device_info.hpp"

namespace jitsparse {

// One timed (or failed) variant on one matrix.
struct MeasurementRecord {
  std::string variant;
  std::string status;  // "ok", "wrong: ...", "error: ...", "skipped: ...", "timeout: ...", "crashed: ..."
  double median_us = 0;
  std::vector<double> samples_us;
  int reps_per_sample = 0;
  double gbps = 0;
  int64_t bytes = 0;   // the packed matrix on the GPU (for the copy kind of op t/h: the transposed copy)
  double seconds = 0;  // wall time spent checking and timing it (with its final re-timing): search cost
  // Median with the L2 flushed before each launch: the finalists of a matrix larger than the L2, which
  // are ranked on it (warm back-to-back timing there depends on what the last launch left in L2).
  // 0: not timed cold.
  double cold_us = 0;
  // Who measured it: "" the tuner's search, "evaluation" jitsparse evaluate checking a prediction the
  // search never timed. The model learns only from the search's, and the search's GPU time sums only those.
  std::string origin;
  bool ok() const { return status == "ok"; }
  bool deterministic() const;
  // Throws ParseError for an origin other than "" and "evaluation" (both readers of a database file).
  static void check_origin(const std::string& origin);  // of the variant: same bits every run (Variant::deterministic)
};
void to_json(nlohmann::json& j, const MeasurementRecord& m);
void from_json(const nlohmann::json& j, MeasurementRecord& m);

// What was learnt of one matrix in one precision for one operation (op "n", "t" or "h").
struct MatrixRecord {
  // hash: the matrix's key, matrix_hash ("h2-" and 16 hex digits), or in records written before the fast
  // hash its legacy_matrix_hash (16 hex digits): TuningDatabase::find_matrix finds either.
  std::string name, hash, entry, precision, domain;
  std::string op = "n";
  MatrixFeatures features;
  double compulsory_bytes = 0;
  std::vector<MeasurementRecord> measurements;
  std::string winner;         // best variant of the joint search (or "" if none measured)
  std::string schedule_only;  // best csr-aos-aos variant (schedule-only tuning)
  std::string deterministic_winner;  // best variant whose result bits never change (Variant::deterministic)
  bool complete = false;      // false: the search stopped early (budget) or is in progress
  std::string search = "full";  // "full": the staged search; "quick": only the model's candidates (never
                                // taught to the model, never an exhaustive best)
  // How its times were taken (one way per record, so they compare): "stream", launches back to back on a
  // stream; "graph", launches captured in a CUDA graph, the GPU's time per call without the host's cost
  // of each launch (matrices within the L2, whose kernels are shorter than that cost: TuneOptions).
  std::string timing = "stream";

  const MeasurementRecord* find(const std::string& variant) const;
  // fastest "ok" measurement (of csr-aos-aos only, of deterministic variants only)
  const MeasurementRecord* best(bool schedule_only_layout = false, bool deterministic_only = false) const;
  void upsert(const MeasurementRecord& m);
};
void to_json(nlohmann::json& j, const MatrixRecord& r);
void from_json(const nlohmann::json& j, MatrixRecord& r);
// Every field to_json writes but "measurements" (the database writer writes those itself).
nlohmann::json record_fields(const MatrixRecord& r);

// The tuning records of one GPU (name, compute capability, SM count), a JSON file at
// <cache root>/tuning/<gpu key>.json, written atomically (temporary file + rename) under a lock file.
// A file that cannot be read is reported, moved aside (<file>.corrupt) and started afresh: never loaded.
// Opened read-only (by path: predict, export, evaluate --database), such a file is left where it is and
// the constructor throws InvalidArgument instead.
class TuningDatabase {
 public:
  static std::string path_for(const DeviceInfo& gpu, const std::string& cache_root);
  // Reads the file (or starts empty). Records made by another generator or NVRTC version are kept for
  // the report but not reused for resuming (stale_ says so).
  TuningDatabase(const DeviceInfo& gpu, const std::string& cache_root);
  explicit TuningDatabase(std::string path);  // read-only use (selection without a GPU context)

  const std::string& path() const { return path_; }
  bool stale() const { return stale_; }
  // The L2 size of the database's GPU (from the GPU, or as the file recorded it; 0 if unknown).
  long long l2_bytes() const { return have_gpu_ ? gpu_.l2_bytes : file_l2_bytes_; }
  // Its SMs, the same way (0 if unknown).
  int sm_count() const { return have_gpu_ ? gpu_.sm_count : file_sm_count_; }
  std::string warning() const { return warning_; }  // what was wrong with the file, if anything

  MatrixRecord* find(const std::string& hash, const std::string& precision, const std::string& op = "n");
  const MatrixRecord* find(const std::string& hash, const std::string& precision, const std::string& op = "n") const;
  // The record of matrix `a` in one precision and operation: under its key (matrix_hash), else under its
  // legacy key (legacy_matrix_hash: records written before the fast hash). `a` is hashed only where a
  // record of its entry type, precision, operation and shape (rows, cols, entries) exists, so a matrix
  // never tuned costs no hash; the slow legacy hash only where such a record holds a legacy key.
  // key: a's matrix_hash where the caller has it already.
  const MatrixRecord* find_matrix(const HostMatrix& a, const std::string& precision, const std::string& op = "n",
                                  const std::string& key = "") const;
  // Moves the records of matrix `a` held under its legacy key (every precision and operation) to `key`, its
  // matrix_hash: the tuner does so before it tunes `a`, so that no matrix is held under both keys (leave-one-
  // out, which leaves out by key, would see it twice). A legacy record whose precision and operation `key`
  // has a record for already (an older jitsparse wrote it since) is dropped. save() keeps the move: a record
  // on disk under a moved legacy key joins under `key`. Hashes `a` only where a legacy-keyed record of its
  // entry type and shape exists. Returns the number of records moved or dropped; pointers into the
  // records are invalid after a drop.
  int rekey_legacy_records(const HostMatrix& a, const std::string& key);
  std::vector<const MatrixRecord*> records() const;
  MatrixRecord& upsert(const MatrixRecord& r);  // by (hash, precision, op)

  // Domain winners: (domain, entry, precision, op) -> variant and its geometric-mean speedup.
  struct DomainRecord {
    std::string domain, entry, precision, winner;
    double geomean_speedup = 0;
    std::vector<std::string> matrices;
    std::string op = "n";
  };
  void set_domain(const DomainRecord& d);
  std::vector<DomainRecord> domains() const;

  // Merge into the file on disk (re-reading it under the lock, so concurrent tuners lose nothing) and write.
  // The file is re-read only where it changed since this database last read or wrote it (file_identity):
  // another tuner saved, or someone edited it; a tuner alone saves without reading.
  void save();

 private:
  void read();
  void merge_from_disk();
  DomainRecord* find_domain(const DomainRecord& d);  // ours of the same (domain, entry, precision, op)
  static std::string record_key(const std::string& hash, const std::string& precision, const std::string& op);
  static std::string domain_key(const DomainRecord& d);
  nlohmann::json header() const;

  std::string path_;
  DeviceInfo gpu_;
  bool have_gpu_ = false;  // false: opened read-only by path
  long long file_l2_bytes_ = 0;
  int file_sm_count_ = 0;
  bool stale_ = false;
  std::string warning_;
  std::vector<MatrixRecord> records_;
  std::vector<DomainRecord> domains_;
  std::map<std::string, std::string> rekeyed_;  // legacy key -> matrix_hash: rekey_legacy_records, for save()
  std::optional<FileIdentity> seen_;  // the file as this database last read or wrote it (nullopt: none)
  // What this database wrote (upsert, rekey_legacy_records, set_domain): these win at a merge; the
  // records and domains it only read or merged follow the file (merge_from_disk).
  std::set<std::string> written_, written_domains_;
};

}  // namespace jitsparse
