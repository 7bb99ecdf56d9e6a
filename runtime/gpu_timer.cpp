#include "runtime/gpu_timer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>

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
  if (options.samples < 1 || options.warmup < 0 || options.max_reps < 1 || !(options.min_sample_ms >= 0) ||
      !(options.warmup_ms >= 0))
    throw InvalidArgument(
        "timing options: need samples >= 1, warmup >= 0, max_reps >= 1, min_sample_ms >= 0, warmup_ms >= 0");
  CudaEvent start, stop;

  for (int i = 0; i < options.warmup; ++i) launch();
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after warm-up)");
  if (options.warmup_ms > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int batch = 1; std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() <
                        options.warmup_ms;
         batch = std::min(2 * batch, 4096)) {
      for (int i = 0; i < batch; ++i) launch();
      cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after warm-up)");
    }
  }
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

namespace {

struct GraphDeleter {
  void operator()(cudaGraph_t g) const { cudaGraphDestroy(g); }
};
struct GraphExecDeleter {
  void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
};
using Graph = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, GraphDeleter>;
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDeleter>;

// `calls` calls of `launch` recorded on `stream`. The capture is always ended, also when a call throws or
// the capture was invalidated, so the stream is never left capturing. Thread-local mode: an unsafe call
// (cudaMalloc, a synchronization) made by `launch` on this thread fails the capture instead of slipping by.
Graph capture(cudaStream_t stream, const std::function<void()>& launch, int calls) {
  cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  std::string failure;
  try {
    for (int i = 0; i < calls; ++i) launch();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  cudaGraph_t raw = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream, &raw);
  Graph graph(raw);
  if (failure.empty() && end == cudaSuccess && graph) return graph;
  cudaGetLastError();  // the capture's error is not sticky: clear it so the next CUDA call is not blamed
  if (failure.empty())
    failure = end != cudaSuccess ? std::string("cudaStreamEndCapture: ") + cudaGetErrorName(end) + ": " +
                                       cudaGetErrorString(end)
                                 : "cudaStreamEndCapture returned no graph";
  throw GraphCaptureError("not capturable in a CUDA graph: " + failure);
}

}  // namespace

TimingResult time_in_graph(cudaStream_t stream, const std::function<void()>& launch, int calls_per_graph,
                           const TimingOptions& options, double graph_ms) {
  if (calls_per_graph < 1) throw InvalidArgument("time_in_graph: calls_per_graph must be at least 1");
  if (!(graph_ms >= 0)) throw InvalidArgument("time_in_graph: graph_ms must be 0 or more");
  for (int i = 0; i < std::max(1, options.warmup); ++i) launch();
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (before the graph capture)");
  cuda_check(cudaGetLastError(), "the calls before the graph capture");
  if (graph_ms > 0 && calls_per_graph > kMinGraphCalls) {
    CudaEvent start, stop;
    const double one_ms = time_reps(stream, launch, 1, start, stop);
    if (one_ms > 0)
      calls_per_graph = static_cast<int>(
          std::clamp(std::ceil(graph_ms / one_ms), static_cast<double>(kMinGraphCalls), static_cast<double>(calls_per_graph)));
  }

  const Graph graph = capture(stream, launch, calls_per_graph);
  cudaGraphExec_t raw = nullptr;
  cuda_check(cudaGraphInstantiate(&raw, graph.get(), 0), "cudaGraphInstantiate");
  const GraphExec exec(raw);

  TimingOptions o = options;
  o.before_each = nullptr;
  TimingResult r = time_on_stream(
      stream,
      [e = exec.get(), stream] {
        const cudaError_t err = cudaGraphLaunch(e, stream);
        if (err != cudaSuccess) cuda_check(err, "cudaGraphLaunch");  // the message only on failure: a hot path
      },
      o);
  r.calls_per_graph = calls_per_graph;
  const double per_call = 1.0 / calls_per_graph;
  for (double& s : r.samples_us) s *= per_call;
  r.median_us *= per_call;
  r.q1_us *= per_call;
  r.q3_us *= per_call;
  return r;
}

}  // namespace jitsparse
