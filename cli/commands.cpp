#include "cli/commands.hpp"

namespace jitsparse::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"info", "version, entry types and the GPU found (or why none)", run_info},
      {"tune", "search layouts and schedules on this GPU (the main job); report and tuning database", run_tune},
      {"bench", "the tuned variants against cuSPARSE, side by side; table, JSON lines and HTML", run_bench},
      {"bench-add", "sparse addition C = op(A) + op(B): HiSparse on the GPU against cuSPARSE csrgeam2", run_bench_add},
      {"export", "write the tuned (or given) variants as .cu sources and a CMakeLists.txt for nvcc", run_export},
      {"predict", "the variants the selection model picks for matrices never tuned, with its confidence", run_predict},
      {"evaluate", "leave-one-out over the tuning database: model, quick tuning and rule of thumb vs the best", run_evaluate},
      {"inspect", "read a matrix file and show its features and the bytes of every layout (no GPU)", run_inspect},
      {"memory", "bytes of HiSparse against CSR with 32-bit indices over a matrix set, per node width (no GPU)", run_memory},
      {"generate", "write the built-in domain matrices, or one from your mesh, as Matrix Market", run_generate},
      {"cache", "where the compiled kernels and tuning databases are, their size, and their clean-up (no GPU)", run_cache},
  };
  return list;
}

}  // namespace jitsparse::cli
