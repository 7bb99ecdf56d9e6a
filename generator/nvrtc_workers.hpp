#pragma once
#include <string>
#include <vector>

#include "generator/nvrtc_compiler.hpp"

namespace jitsparse {

// NVRTC in worker processes instead of threads.
//
// Why: NVRTC compiles of one process do not scale past about 4 threads. On the H100 host (16 cores,
// 2026-11-25) 96 one-kernel programs compiled at 33-34 programs/s with 4, 8 or 16 threads (each program
// took 0.12 s alone and 0.43 s among 16 threads), and at 133 programs/s as 16 processes of one thread.
// The tuner compiles about a thousand programs, in rounds it waits for.
//
// A pool of persistent worker processes (the calling executable run with a hidden subcommand) takes one
// program at a time over a socket; a thread that compiles checks out an idle worker, so build_all's
// threads become processes without changing it. Workers are spawned lazily, at most one per core for each
// scheduling priority of the calling thread (the tuner compiles ahead at a lower priority), and exit when
// their socket closes (also when the parent dies: the kernel closes its end).
//
// Off unless an executable enables it (the jitsparse command does; a library user's program compiles in
// threads), and off with JITSPARSE_NVRTC_WORKERS=threads.
// A worker that cannot start turns the pool off for the process, with one message on stderr: compiles go
// on in threads. A worker that dies while compiling (NVRTC crashed on that source, or it was killed) is
// replaced and the program tried once more in a new worker; a second death is that program's CompileError,
// so a compiler crash costs one variant, not the tuning run.

// The hidden subcommand the jitsparse command and the GPU tests run their workers as (each main answers
// it with nvrtc_worker_main before anything else).
inline constexpr const char* kNvrtcWorkerSubcommand = "__nvrtc-worker";

// Enable the pool: `executable` (for the jitsparse command, /proc/self/exe) is started as
// `executable <subcommand> <parent pid, for ps> <nice>` and must call nvrtc_worker_main for that subcommand.
void enable_nvrtc_workers(const std::string& executable, const std::string& subcommand);
// Enabled, and no worker has failed to start.
bool nvrtc_workers_enabled();

// compile_with_nvrtc in a worker when the pool is enabled, else in this thread. Same results, same errors.
CompiledKernel compile_anywhere(const GeneratedSource& source, const CompileOptions& options);

// The worker's side: serves requests on file descriptor 3 until it closes. argv as given to
// enable_nvrtc_workers' executable, argv[1] being the subcommand. Returns the process's exit status.
int nvrtc_worker_main(int argc, char** argv);

// Process ids of the live workers (tests kill one to check that a death costs nothing).
std::vector<int> nvrtc_worker_pids();

}  // namespace jitsparse
