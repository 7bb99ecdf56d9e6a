#include "selection/database.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/file.h>
#include <unistd.h>

#include "core/error.hpp"
#include "core/file_util.hpp"
#include "generator/nvrtc_compiler.hpp"
#include "generator/source_gen.hpp"
#include "selection/database_reader.hpp"
#include "selection/database_writer.hpp"

namespace jitsparse {
namespace {

constexpr int kFormat = 1;

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out;
}

// An exclusive lock on <path>.lock for the life of the object.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);  // not into NVRTC workers
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }

 private:
  int fd_ = -1;
};

}  // namespace

bool MeasurementRecord::deterministic() const {
  try {
    return Variant::parse(variant).deterministic();
  } catch (const Error&) {
    return false;
  }
}

void to_json(nlohmann::json& j, const MeasurementRecord& m) {
  j = {{"variant", m.variant}, {"status", m.status}, {"bytes", m.bytes}, {"deterministic", m.deterministic()},
       {"seconds", m.seconds}};
  if (m.ok()) {
    j["median_us"] = m.median_us;
    j["samples_us"] = m.samples_us;
    j["reps_per_sample"] = m.reps_per_sample;
    j["gbps"] = m.gbps;
    if (m.cold_us > 0) j["cold_us"] = m.cold_us;
  }
  if (!m.origin.empty()) j["origin"] = m.origin;
}

void from_json(const nlohmann::json& j, MeasurementRecord& m) {
  m.variant = j.at("variant").get<std::string>();
  m.status = j.at("status").get<std::string>();
  m.bytes = j.value("bytes", int64_t{0});
  m.median_us = j.value("median_us", 0.0);
  m.samples_us = j.value("samples_us", std::vector<double>{});
  m.reps_per_sample = j.value("reps_per_sample", 0);
  m.gbps = j.value("gbps", 0.0);
  m.seconds = j.value("seconds", 0.0);
  m.cold_us = j.value("cold_us", 0.0);
  m.origin = j.value("origin", "");
  MeasurementRecord::check_origin(m.origin);
}

void MeasurementRecord::check_origin(const std::string& origin) {
  if (!origin.empty() && origin != "evaluation")
    throw ParseError("measurement origin '" + origin + "' (expected evaluation or none)");
}

const MeasurementRecord* MatrixRecord::find(const std::string& variant) const {
  for (const auto& m : measurements)
    if (m.variant == variant) return &m;
  return nullptr;
}

const MeasurementRecord* MatrixRecord::best(bool schedule_only_layout, bool deterministic_only) const {
  const MeasurementRecord* b = nullptr;
  for (const auto& m : measurements) {
    if (!m.ok() || (deterministic_only && !m.deterministic())) continue;
    if (schedule_only_layout && m.variant.find("/csr-aos-aos/") == std::string::npos) continue;
    if (!b || m.median_us < b->median_us) b = &m;
  }
  return b;
}

void MatrixRecord::upsert(const MeasurementRecord& m) {
  for (auto& old : measurements)
    if (old.variant == m.variant) {
      old = m;
      return;
    }
  measurements.push_back(m);
}

nlohmann::json record_fields(const MatrixRecord& r) {
  return {{"name", r.name},         {"hash", r.hash},       {"entry", r.entry},
          {"precision", r.precision}, {"op", r.op}, {"domain", r.domain},   {"features", r.features},
          {"compulsory_bytes", r.compulsory_bytes},
          {"winner", r.winner},     {"schedule_only", r.schedule_only},
          {"deterministic_winner", r.deterministic_winner}, {"complete", r.complete}, {"search", r.search},
          {"timing", r.timing}};
}

void to_json(nlohmann::json& j, const MatrixRecord& r) {
  j = record_fields(r);
  j["measurements"] = r.measurements;
}

void from_json(const nlohmann::json& j, MatrixRecord& r) {
  r.name = j.at("name").get<std::string>();
  r.hash = j.at("hash").get<std::string>();
  r.entry = j.at("entry").get<std::string>();
  r.precision = j.at("precision").get<std::string>();
  r.op = j.value("op", "n");
  r.domain = j.value("domain", "");
  r.features = j.at("features").get<MatrixFeatures>();
  r.compulsory_bytes = j.value("compulsory_bytes", 0.0);
  r.measurements = j.at("measurements").get<std::vector<MeasurementRecord>>();
  r.winner = j.value("winner", "");
  r.schedule_only = j.value("schedule_only", "");
  r.deterministic_winner = j.value("deterministic_winner", "");
  r.complete = j.value("complete", false);
  r.search = j.value("search", "full");
  if (r.search != "full" && r.search != "quick") throw ParseError("search '" + r.search + "' (expected full or quick)");
  r.timing = j.value("timing", "stream");  // records from before graph timing
  if (r.timing != "stream" && r.timing != "graph") throw ParseError("timing '" + r.timing + "' (expected stream or graph)");
}

std::string TuningDatabase::path_for(const DeviceInfo& gpu, const std::string& cache_root) {
  return cache_root + "/tuning/" + sanitize(gpu.key()) + ".json";
}

TuningDatabase::TuningDatabase(const DeviceInfo& gpu, const std::string& cache_root)
    : path_(path_for(gpu, cache_root)), gpu_(gpu), have_gpu_(true) {
  make_private_dirs(std::filesystem::path(path_).parent_path().string());
  read();
}

TuningDatabase::TuningDatabase(std::string path) : path_(std::move(path)) { read(); }

nlohmann::json TuningDatabase::header() const {
  nlohmann::json h = {{"format", kFormat},
                      {"generator_version", JITSPARSE_VERSION},
                      {"nvrtc_version", nvrtc_version()},
                      {"kernel_templates", device_headers().digest},
                      {"nvrtc_flags", nvrtc_extra_flags()}};
  if (have_gpu_) {
    h["gpu"] = {{"name", gpu_.name}, {"arch", gpu_.arch()}, {"sm_count", gpu_.sm_count}, {"key", gpu_.key()},
                {"l2_bytes", gpu_.l2_bytes}};
    h["driver_version"] = gpu_.driver_version;
    h["runtime_version"] = gpu_.runtime_version;
  }
  return h;
}

void TuningDatabase::read() {
  records_.clear();
  domains_.clear();
  // Before the read: a file replaced in between is then read again at the next save, never missed.
  seen_ = file_identity(path_);
  auto text = read_file(path_);
  if (!text) return;
  try {
    std::vector<std::vector<MeasurementRecord>> measured;  // per matrix, outside the document
    const auto j = parse_database_document(*text, measured);
    if (j.value("format", 0) != kFormat) throw std::runtime_error("unknown format");
    // Timings of other kernels say nothing about these: a change of the device templates (their digest) or
    // of the NVRTC flags an experiment adds (JITSPARSE_NVRTC_FLAGS: they change the code) makes the records
    // stale like another version does. Files written before the flags were recorded had none.
    stale_ = j.value("generator_version", "") != JITSPARSE_VERSION || j.value("nvrtc_version", "") != nvrtc_version() ||
             j.value("kernel_templates", "") != device_headers().digest ||
             j.value("nvrtc_flags", std::vector<std::string>{}) != nvrtc_extra_flags();
    records_ = j.at("matrices").get<std::vector<MatrixRecord>>();
    for (size_t i = 0; i < records_.size() && i < measured.size(); ++i) records_[i].measurements = std::move(measured[i]);
    if (j.contains("gpu") && j["gpu"].is_object()) {
      file_l2_bytes_ = j["gpu"].value("l2_bytes", 0LL);
      file_sm_count_ = j["gpu"].value("sm_count", 0);
    }
    for (const auto& d : j.value("domains", nlohmann::json::array()))
      domains_.push_back({d.at("domain"), d.at("entry"), d.at("precision"), d.at("winner"),
                          d.value("geomean_speedup", 0.0), d.value("matrices", std::vector<std::string>{}),
                          d.value("op", "n")});
    // Selection still learns from stale records (their relative timings mostly hold), but they lack the
    // variants added since: say how to refresh them.
    if (stale_)
      warning_ = "tuning records in " + path_ +
                 " come from another jitsparse or NVRTC version, other kernel templates or other NVRTC flags "
                 "(JITSPARSE_NVRTC_FLAGS): `jitsparse tune` "
                 "re-measures a matrix it tunes; until then the selection model and quick tuning learn from the "
                 "old timings and propose none of the variants added since (jitsparse tune --builtin train "
                 "retrains it)";
  } catch (const std::exception& e) {
    // A gzipped database (as results/ keeps them) is a common mistake: say so.
    const bool gzip = text->size() >= 2 && static_cast<unsigned char>((*text)[0]) == 0x1f &&
                      static_cast<unsigned char>((*text)[1]) == 0x8b;
    const std::string why = gzip ? "it is gzip-compressed: decompress it first (gunzip -k " + path_ + ")" : e.what();
    records_.clear();
    domains_.clear();
    if (!have_gpu_)  // read-only: a file the user named is not ours to move
      throw InvalidArgument("tuning database " + path_ + " cannot be read: " + why);
    const std::string aside = path_ + ".corrupt";
    std::rename(path_.c_str(), aside.c_str());
    warning_ = "tuning database " + path_ + " is corrupt (" + why + "); moved to " + aside + ", starting afresh";
    std::cerr << "jitsparse: " << warning_ << "\n";
  }
#ifdef __GLIBC__
  // The parsed document was millions of small blocks, now freed. glibc merges freed small blocks on the
  // next large allocation: that cost the first run-time selection after a load 25 ms (2-core machine, an
  // 18 MB database) against its 1 ms budget. Merged here, the cost stays with reading the database, and
  // the memory goes back to the system.
  malloc_trim(0);
#endif
}

MatrixRecord* TuningDatabase::find(const std::string& hash, const std::string& precision, const std::string& op) {
  for (auto& r : records_)
    if (r.hash == hash && r.precision == precision && r.op == op) return &r;
  return nullptr;
}

const MatrixRecord* TuningDatabase::find(const std::string& hash, const std::string& precision,
                                         const std::string& op) const {
  return const_cast<TuningDatabase*>(this)->find(hash, precision, op);
}

namespace {

// A record of `a`'s entry type and shape: only such a record can be a's, so only then is `a` hashed.
bool same_shape(const MatrixRecord& r, const HostMatrix& a) {
  return r.entry == a.entry.name && r.features.rows == a.rows && r.features.cols == a.cols &&
         r.features.nnz == a.nnz();
}

}  // namespace

const MatrixRecord* TuningDatabase::find_matrix(const HostMatrix& a, const std::string& precision,
                                                const std::string& op, const std::string& key) const {
  if (!key.empty())
    if (const MatrixRecord* r = find(key, precision, op)) return r;
  bool new_keyed = false, legacy_keyed = false;
  for (const auto& r : records_)
    if (r.precision == precision && r.op == op && same_shape(r, a))
      (is_legacy_matrix_key(r.hash) ? legacy_keyed : new_keyed) = true;
  if (new_keyed && key.empty())
    if (const MatrixRecord* r = find(matrix_hash(a), precision, op)) return r;
  return legacy_keyed ? find(legacy_matrix_hash(a), precision, op) : nullptr;
}

int TuningDatabase::rekey_legacy_records(const HostMatrix& a, const std::string& key) {
  const bool any = std::any_of(records_.begin(), records_.end(),
                               [&](const MatrixRecord& r) { return is_legacy_matrix_key(r.hash) && same_shape(r, a); });
  if (!any) return 0;
  const std::string legacy = legacy_matrix_hash(a);
  int changed = 0;
  // Moved where `key` has no record of that precision and operation, dropped where it has one: a second
  // copy would be found by nothing and counted twice by the model.
  std::vector<bool> dropped(records_.size(), false);
  for (size_t i = 0; i < records_.size(); ++i) {
    MatrixRecord& r = records_[i];
    if (r.hash != legacy) continue;
    ++changed;
    written_.insert(record_key(key, r.precision, r.op));  // the moved record (or the one it joins) is ours
    if (find(key, r.precision, r.op))
      dropped[i] = true;
    else
      r.hash = key;
  }
  if (std::find(dropped.begin(), dropped.end(), true) != dropped.end()) {
    std::vector<MatrixRecord> kept;
    for (size_t i = 0; i < records_.size(); ++i)
      if (!dropped[i]) kept.push_back(std::move(records_[i]));
    records_ = std::move(kept);
  }
  if (changed > 0) rekeyed_[legacy] = key;
  return changed;
}

std::vector<const MatrixRecord*> TuningDatabase::records() const {
  std::vector<const MatrixRecord*> out;
  for (const auto& r : records_) out.push_back(&r);
  return out;
}

MatrixRecord& TuningDatabase::upsert(const MatrixRecord& r) {
  written_.insert(record_key(r.hash, r.precision, r.op));
  if (MatrixRecord* old = find(r.hash, r.precision, r.op)) return *old = r;
  records_.push_back(r);
  return records_.back();
}

void TuningDatabase::set_domain(const DomainRecord& d) {
  written_domains_.insert(domain_key(d));
  if (DomainRecord* old = find_domain(d)) *old = d;
  else domains_.push_back(d);
}

TuningDatabase::DomainRecord* TuningDatabase::find_domain(const DomainRecord& d) {
  for (auto& x : domains_)
    if (x.domain == d.domain && x.entry == d.entry && x.precision == d.precision && x.op == d.op) return &x;
  return nullptr;
}

std::vector<TuningDatabase::DomainRecord> TuningDatabase::domains() const { return domains_; }

void TuningDatabase::save() {
  FileLock lock(path_);
  if (file_identity(path_) != seen_) merge_from_disk();
  nlohmann::json head = header();
  head["saved"] = static_cast<int64_t>(std::time(nullptr));
  nlohmann::json doms = nlohmann::json::array();
  for (const auto& d : domains_)
    doms.push_back({{"domain", d.domain}, {"entry", d.entry}, {"precision", d.precision}, {"op", d.op}, {"winner", d.winner},
                    {"geomean_speedup", d.geomean_speedup}, {"matrices", d.matrices}});
  head["domains"] = doms;
  write_file_atomically(path_, database_text(head, records_));
  seen_ = file_identity(path_);  // under the lock: the file is ours as written
  stale_ = false;
}

std::string TuningDatabase::record_key(const std::string& hash, const std::string& precision, const std::string& op) {
  return hash + '|' + precision + '|' + op;
}

std::string TuningDatabase::domain_key(const DomainRecord& d) {
  return d.domain + '|' + d.entry + '|' + d.precision + '|' + d.op;
}

void TuningDatabase::merge_from_disk() {
  // Records another process wrote since we read: added, and where we hold only a copy of the file's (read
  // or merged before, never changed here), replaced by the file's, which is as new or newer. Ours win only
  // for what this database wrote: a tuner that kept its merged copy of another's half-done record would
  // write it back over that record finished (seen with two tuners at once on the H100).
  TuningDatabase on_disk(path_);
  if (on_disk.stale_) return;
  for (auto& r : on_disk.records_) {
    // A record this database moved off its legacy key is on disk under that key still: it is the moved one
    // (or another precision of the same matrix, which moves too), never a second matrix.
    if (auto moved = rekeyed_.find(r.hash); moved != rekeyed_.end()) r.hash = moved->second;
    if (MatrixRecord* ours = find(r.hash, r.precision, r.op); !ours)
      records_.push_back(std::move(r));
    else if (!written_.count(record_key(r.hash, r.precision, r.op)))
      *ours = std::move(r);
  }
  for (const auto& d : on_disk.domains_) {
    if (DomainRecord* ours = find_domain(d); !ours)
      domains_.push_back(d);
    else if (!written_domains_.count(domain_key(d)))
      *ours = d;
  }
}

}  // namespace jitsparse
