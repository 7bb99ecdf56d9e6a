#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "core/error.hpp"

namespace jitsparse {

struct TimingOptions {
  int warmup = 3;   // untimed calls first (clocks, caches, lazy module loading)
  int samples = 9;  // the median of these is reported
  double min_sample_ms =
      3.0;                // each sample repeats the call until about this long (event resolution ~0.5 us)
  int max_reps = 100000;  // upper bound on calls per sample, for very short launches
  // A set of samples whose slowest is more than `stable_spread` times its fastest was disturbed (seen on
  // the shared GPU host: whole samples 2-4x slow, for every method alike). Such a set is measured again,
  // up to `retries` times, and the set with the smallest spread is kept. Applies to every competitor.
  double stable_spread = 1.25;
  int retries = 2;
  // Cold timing (`bench --l2 cold`): when set, it is enqueued on the timed stream before every timed
  // launch, outside the events (an L2 flush), and each sample is one launch: no probe, no repetitions.
  std::function<void(cudaStream_t)> before_each = nullptr;
  // After the counted warm-up calls, more until this many milliseconds have passed: a GPU left idle (quick
  // tuning compiles between short rounds) may run its first milliseconds at low clocks.
  double warmup_ms = 0;
};

struct TimingResult {
  double median_us = 0;            // microseconds per call
  std::vector<double> samples_us;  // every sample, microseconds per call, in measurement order
  int reps_per_sample = 1;
  int attempts = 1;  // sample sets measured (see TimingOptions::stable_spread)
  double q1_us = 0, q3_us = 0;  // quartiles of the samples (the interquartile range is their difference)
  int calls_per_graph = 0;      // time_in_graph: the calls each graph held (0: timed on the stream)
};

// Time `launch` (which must enqueue its work on `stream` and throw on a failed launch) with CUDA events:
// warm-up, then a probe that picks the number of calls per sample once, then `samples` samples.
// Throws DeviceError when a CUDA call fails (the message names it) and InvalidArgument on bad options.
TimingResult time_on_stream(cudaStream_t stream, const std::function<void()>& launch,
                            const TimingOptions& options = {});

// `launch` could not be recorded into a CUDA graph (a call that is not allowed while a stream captures,
// or one that failed during the capture). The capture has been ended: the stream is usable again.
struct GraphCaptureError : DeviceError {
  using DeviceError::DeviceError;
};

// Time `launch` as `calls_per_graph` calls captured into one CUDA graph (stream capture, instantiated once):
// the graph's launches are timed by time_on_stream with `options` (warm-up, samples, repetitions, retries)
// and every time is divided by calls_per_graph, so the result is per call, with the same median and
// quartiles. The host pays one graph launch per calls_per_graph calls, so this is the GPU's time per call
// without the per-launch dispatch (DESIGN.md, Measuring: small matrices are bound by launch cost).
// `launch` may enqueue several kernels (a prologue and a main kernel) or library calls (cusparseSpMV), all
// on `stream`; it is called `options.warmup` (at least once) times before the capture, so lazy loading and
// first-call setup happen outside it. options.before_each is ignored: back-to-back calls in a graph are
// warm by nature. reps_per_sample counts graph launches. Throws GraphCaptureError when the calls cannot be captured, DeviceError when a CUDA call
// fails, InvalidArgument for calls_per_graph < 1.
// graph_ms > 0: as many calls as last about graph_ms by one launch timed after the warm-up (at least
// kMinGraphCalls, at most calls_per_graph), so a graph of a longer kernel is no longer than a sample
// needs. The gap between two graphs is then the same share of every variant's time, about gap / graph_ms
// (the tuner: graphs of 64 calls of a 37 us kernel made each variant of a 36 MB matrix cost 17 ms).
TimingResult time_in_graph(cudaStream_t stream, const std::function<void()>& launch, int calls_per_graph,
                           const TimingOptions& options = {}, double graph_ms = 0);
constexpr int kMinGraphCalls = 4;

// Whether a matrix of these compulsory bytes is timed in CUDA graphs: one that fits in the L2 runs its
// product in a few microseconds, less than the host's cost of a launch, so back-to-back launches would time
// the host (the tuner's graph timing and bench --graph share this rule; l2_bytes <= 0: never).
inline bool graph_timed_size(double compulsory_bytes, long long l2_bytes) {
  return l2_bytes > 0 && compulsory_bytes <= static_cast<double>(l2_bytes);
}

double median(std::vector<double> v);  // 0 for an empty vector
// The q-quantile (0..1) with linear interpolation between order statistics; 0 for an empty vector.
double quantile(std::vector<double> v, double q);

}  // namespace jitsparse
