#include "runtime/gpu_timer.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/cuda_check.hpp"
#include "runtime/cuda_stream.hpp"
#include "core/error.hpp"

namespace jitsparse {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

namespace {

// Milliseconds for `reps` back-to-back calls, measured between two events on the stream.
double time_reps(cudaStream_t stream, const std::function<void()>& launch, int reps,
                 const CudaEvent& start, const CudaEvent& stop) {
  cuda_check(cudaEventRecord(start.get(), stream), "cudaEventRecord (start)");
  for (int i = 0; i < reps; ++i) launch();
  cuda_check(cudaEventRecord(stop.get(), stream), "cudaEventRecord (stop)");
  cuda_check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize (timed launches)");
  // A kernel fault surfaces here or at the sync; either way name it as the timed work.
  cuda_check(cudaGetLastError(), "the timed launches");
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
  return ms;
}

// One launch per event pair, each after options.before_each (the L2 flush) outside the events. Launch
// overhead is inside every sample, as it is for any single call a user makes.
TimingResult time_cold(cudaStream_t stream, const std::function<void()>& launch, const TimingOptions& options,
                       const CudaEvent& start, const CudaEvent& stop) {
  TimingResult r;
  r.reps_per_sample = 1;
  for (int s = 0; s < options.samples; ++s) {
    options.before_each(stream);
    r.samples_us.push_back(time_reps(stream, launch, 1, start, stop) * 1e3);
  }
  r.median_us = median(r.samples_us);
  r.q1_us = quantile(r.samples_us, 0.25);
  r.q3_us = quantile(r.samples_us, 0.75);
  return r;
}

}  // namespace

TimingResult time_on_stream(cudaStream_t stream, const std::function<void()>& launch,
                            const TimingOptions& options) {
  if (options.samples < 1 || options.warmup < 0 || options.max_reps < 1 || !(options.min_sample_ms >= 0))
    throw InvalidArgument(
        "timing options: need samples >= 1, warmup >= 0, max_reps >= 1, min_sample_ms >= 0");
  CudaEvent start, stop;

  for (int i = 0; i < options.warmup; ++i) launch();
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after warm-up)");
  cuda_check(cudaGetLastError(), "the warm-up launches");

  if (options.before_each) return time_cold(stream, launch, options, start, stop);

  // Probe: double the calls until a batch lasts a good fraction of a sample, so the per-call estimate is
  // not dominated by event resolution; then choose the repetition count once for all samples.
  int reps = 1;
  double per_call_ms = 0;
  for (;;) {
    double ms = time_reps(stream, launch, reps, start, stop);
    per_call_ms = ms / reps;
    if (ms >= 0.25 * options.min_sample_ms || reps >= options.max_reps) break;
    reps = std::min(options.max_reps, reps * 2);
  }
  int chosen = 1;
  if (per_call_ms > 0) {
    double want = std::ceil(options.min_sample_ms / per_call_ms);
    chosen = static_cast<int>(std::clamp(want, 1.0, static_cast<double>(options.max_reps)));
  } else {
    chosen = options.max_reps;  // below event resolution even at max_reps: use the most we may
  }

  auto spread = [](const std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *lo > 0 ? *hi / *lo : 1.0;
  };
  TimingResult r;
  r.reps_per_sample = chosen;
  for (int attempt = 0; attempt <= std::max(0, options.retries); ++attempt) {
    std::vector<double> samples;
    for (int s = 0; s < options.samples; ++s) {
      double ms = time_reps(stream, launch, chosen, start, stop);
      samples.push_back(ms * 1e3 / chosen);
    }
    r.attempts = attempt + 1;
    if (r.samples_us.empty() || spread(samples) < spread(r.samples_us)) r.samples_us = samples;
    if (spread(r.samples_us) <= options.stable_spread) break;
  }
  r.median_us = median(r.samples_us);
  r.q1_us = quantile(r.samples_us, 0.25);
  r.q3_us = quantile(r.samples_us, 0.75);
  return r;
}

}  // namespace jitsparse
