#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"
#include "runtime/context.hpp"
#include "runtime/device_matrix.hpp"
#include "selection/database.hpp"
#include "selection/model.hpp"
#include "selection/select.hpp"

namespace jitsparse {

// Run-time selection: pick the variant for a matrix from this GPU's tuning database (the exact matrix,
// else the selection model's first choice for a matrix never tuned, else the domain's winner, else a safe
// default; Selection::level and detail say which) and load its kernel into the context, so the first
// product does not compile. tuner/quick_tune.hpp measures the model's candidates instead, once per matrix.
// op: A x, A^T x or A^H x; deterministic: only variants whose result bits never change. The database is
// read once per process (with its selection model prepared) and read again when the file changes.
Selection load_tuned(Context& ctx, const HostMatrix& a, Precision precision, Op op = Op::n,
                     bool deterministic = false);
// Which file a path held when it was read: the tuner writes its database to a new file renamed over the
// old one, so a write changes the inode even within one timestamp tick.
struct FileVersion {
  uint64_t inode = 0;
  int64_t modified_ns = 0, bytes = 0;
  bool operator==(const FileVersion& o) const {
    return inode == o.inode && modified_ns == o.modified_ns && bytes == o.bytes;
  }
};
// A tuning database file as read, with its selection model prepared (SelectionModel::prepare): what
// load_tuned keeps per process. Reading takes 0.2-0.6 s for a 24 MB training database and preparing its
// model 14-51 ms, so a process that loads several matrices pays them once.
struct LoadedDatabase {
  LoadedDatabase(const std::string& path, long long l2_bytes, FileVersion read_from);
  FileVersion version;
  TuningDatabase db;
  SelectionModel model;
};
// The database at `path` for a GPU of this L2 size, read and prepared once per process and again when the
// file changes (a new inode, size or modification time: the tuner writes it to a new file renamed over the
// old one). A missing file gives an empty database, not kept. Thread-safe.
std::shared_ptr<const LoadedDatabase> loaded_database(const std::string& path, long long l2_bytes);

// The matrix packed as the selection's variant needs (DeviceMatrix::for_variant), with the renumbering
// that selection computed, if it did (Selection::permutation), not computed again.
DeviceMatrix pack_selected(Context& ctx, const HostMatrix& a, const Selection& s, int64_t memory_cap_bytes = 0);

}  // namespace jitsparse
