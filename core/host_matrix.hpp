#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/entry_type.hpp"

namespace jitsparse {

// The master copy of a sparse matrix of compound entries: CSR with 32-bit indices, column indices sorted
// and unique within each row, values in double, entry after entry (aos), num_components() per entry.
// rows/cols count entries (a 3n x 3n real matrix read with block size 3 has rows == n).
//
// Why not HostMatrix<Entry>: entry types are data (JSON), so built-in and user-defined types share one
// host path; the precision of the GPU copy is a property of the variant and packing converts to it.
struct HostMatrix {
  EntryType entry;
  std::string name;  // file stem or generator name, for reports
  int32_t rows = 0;
  int32_t cols = 0;
  std::vector<int32_t> row_ptr{0};  // rows + 1
  std::vector<int32_t> col_idx;     // nnz
  std::vector<double> values;       // nnz * entry.num_components()

  int64_t nnz() const { return static_cast<int64_t>(col_idx.size()); }
  int components() const { return entry.num_components(); }
  int vector_components() const { return entry.num_vector_components(); }
  const double* entry_values(int64_t k) const { return values.data() + k * components(); }

  // Throws InvalidArgument on a broken structure (sizes, order, ranges) or a NaN/Inf value.
  void validate() const;
};

// Collects (row, col, value) in any order; build() sorts, sums duplicates and checks 32-bit limits.
class TripletList {
 public:
  TripletList(EntryType entry, int64_t rows, int64_t cols);
  void add(int64_t row, int64_t col, const double* value);  // value: num_components doubles
  HostMatrix build(bool sum_duplicates = true) const;  // throws InvalidArgument on duplicates if !sum
  int64_t size() const { return static_cast<int64_t>(rows_.size()); }

 private:
  EntryType entry_;
  int64_t num_rows_, num_cols_;
  std::vector<int64_t> rows_, cols_;
  std::vector<double> values_;
};

// The key of a matrix in the tuning database: "h2-" and 16 hex digits of a 64-bit hash over the entry
// type's name, the size, the structure and the values. Word-wise in four lanes, about 14 GB/s: 16 ms for a
// 250 MB matrix where the byte-wise legacy hash takes 250 ms (2-core development machine, NOTES.md
// twenty-sixth session).
std::string matrix_hash(const HostMatrix& a);
inline const std::string kMatrixKeyPrefix = "h2-";
// The key records written before 2026-11-27 (twenty-sixth session) have: 16 hex digits of a byte-wise
// 64-bit FNV-1a over the same fields, about 1 GB/s. Only for finding such records
// (TuningDatabase::find_matrix) and re-keying them (TuningDatabase::rekey_legacy_records).
std::string legacy_matrix_hash(const HostMatrix& a);
bool is_legacy_matrix_key(const std::string& key);  // exactly 16 lowercase hex digits
// Whether `key` (either form) is a's: hashes `a` the way the key's form says.
bool is_key_of(const HostMatrix& a, const std::string& key);

}  // namespace jitsparse
