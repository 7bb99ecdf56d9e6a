#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace jitsparse {

struct TimingOptions {
  int warmup = 3;   // untimed calls first (clocks, caches, lazy module loading)
  int samples = 9;  // the median of these is reported
  double min_sample_ms =
      3.0;                // each sample repeats the call until about this long (event resolution ~0.5 us)
  int max_reps = 100000;  // upper bound on calls per sample, for very short launches
};

struct TimingResult {
  double median_us = 0;            // microseconds per call
  std::vector<double> samples_us;  // every sample, microseconds per call, in measurement order
  int reps_per_sample = 1;
};

// Time `launch` (which must enqueue its work on `stream` and throw on a failed launch) with CUDA events:
// warm-up, then a probe that picks the number of calls per sample once, then `samples` samples.
// Throws DeviceError when a CUDA call fails (the message names it) and InvalidArgument on bad options.
TimingResult time_on_stream(cudaStream_t stream, const std::function<void()>& launch,
                            const TimingOptions& options = {});

double median(std::vector<double> v);  // 0 for an empty vector

}  // namespace jitsparse
