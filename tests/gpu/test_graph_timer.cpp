// CUDA-graph timing (runtime/gpu_timer.hpp, time_in_graph) and the empty kernel's launch floor
// (bench/empty_kernel.hpp) on a real GPU (skipped without one).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/empty_kernel.hpp"
#include "core/error.hpp"
#include "core/random_matrix.hpp"
#include "gpu_test_util.hpp"
#include "runtime/cuda_stream.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_matrix.hpp"
#include "runtime/device_vector.hpp"
#include "runtime/gpu_timer.hpp"
#include "runtime/spmv.hpp"
#include "tuner/gpu_check.hpp"

using namespace jitsparse;
using jitsparse::test::gpu_context;

namespace {

TimingOptions short_timing() {
  TimingOptions t;
  t.samples = 5;
  t.min_sample_ms = 1.0;
  return t;
}

bool capturing(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace

TEST_CASE("launch floor: an empty kernel, single launches and in a CUDA graph") {
  const EmptyKernelFloor f = measure_empty_kernel_floor(0, short_timing(), 50);
  INFO("status " << f.status << ", graph " << f.graph_status << "; single " << f.single_us << " us, graph "
                 << f.graph_us << " us per launch");
  REQUIRE(f.status == "ok");
  CHECK(f.calls_per_graph == 50);
  CHECK(f.single_us > 0);
  CHECK(f.single_q1_us <= f.single_us);
  CHECK(f.single_us <= f.single_q3_us);
  CHECK(f.single_samples_us.size() == 5);
  REQUIRE(f.graph_status == "ok");
  CHECK(f.graph_us > 0);
  CHECK(f.graph_q1_us <= f.graph_us);
  CHECK(f.graph_us <= f.graph_q3_us);
  CHECK(f.graph_samples_us.size() == 5);
  // A graph saves the per-launch host work; it must not cost more per launch than a generous factor.
  CHECK(f.graph_us < 2.0 * f.single_us);
  CHECK(f.single_us < 1000);  // microseconds, not milliseconds
  CHECK_THROWS_AS(measure_empty_kernel_floor(0, short_timing(), 0), InvalidArgument);
}

TEST_CASE("time_in_graph: variants of two kernels are captured whole and still compute the product") {
  Context& ctx = gpu_context();
  // hola: a prologue builds the block rows, then the product; op t by atomics: a prologue scales y, then
  // the product adds into it. Had a graph held only the second kernel, the atomic product would have been
  // added again on every call and the check below would fail.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"real", "real.f64/hola-aos-aos/hola-256x8-ept4"},
      {"complex", "complex.f32/csr-aos-aos/static-256x8/t-atomic"}};
  for (const auto& [entry, name] : cases) {
    const Variant v = Variant::parse(name);
    RandomMatrixOptions o;
    o.rows = 4001;
    o.cols = 3500;
    o.mean_row = 9;
    o.empty_fraction = 0.1;
    o.seed = 21;
    const HostMatrix a = random_matrix(EntryRegistry::instance().get(entry), o);
    const int vc = a.vector_components();
    const int64_t x_len = is_transposed(v.op) ? a.rows : a.cols, y_len = is_transposed(v.op) ? a.cols : a.rows;
    const auto x = random_vector(x_len, vc, 22);
    const DeviceMatrix da = DeviceMatrix::for_variant(ctx, a, v);
    DeviceVector dx(ctx, x_len, vc, v.layout.vector, v.precision);
    DeviceVector dy(ctx, y_len, vc, v.layout.vector, v.precision);
    dx.upload(x);
    SpmvLaunch launch(ctx, v, da, dx, dy);
    const TimingResult single = time_on_stream(ctx.stream(), [&] { launch.launch(); }, short_timing());
    dy.poison();
    const TimingResult graph = time_in_graph(ctx.stream(), [&] { launch.launch(); }, 25, short_timing());
    ctx.synchronize();
    INFO(name << ": single " << single.median_us << " us, graph " << graph.median_us << " us per call");
    GpuCheck check(ctx, a, x, v.op);
    CHECK(check.check(dy) == "");  // the graph launches were the last to write y
    CHECK(graph.samples_us.size() == 5);
    CHECK(graph.median_us > 0);
    CHECK(graph.q1_us <= graph.median_us);
    CHECK(graph.median_us <= graph.q3_us);
    CHECK(graph.median_us < 2.0 * single.median_us);
    CHECK_FALSE(capturing(ctx.stream()));
  }
}

TEST_CASE("time_in_graph: work that cannot be captured is a GraphCaptureError and the stream stays usable") {
  CudaStream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer buf(1 << 16, "capture test buffer");
  auto memset = [&] {
    const cudaError_t e = cudaMemsetAsync(buf.get(), 0, 1 << 16, s);
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaMemsetAsync: ") + cudaGetErrorName(e));
  };
  // Synchronizing a stream while it captures is illegal: the capture is invalidated.
  auto synchronizing = [&] {
    memset();
    const cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaStreamSynchronize: ") + cudaGetErrorName(e));
  };
  CHECK_THROWS_WITH_AS(time_in_graph(s, synchronizing, 10, short_timing()),
                       doctest::Contains("not capturable in a CUDA graph"), GraphCaptureError);
  CHECK_FALSE(capturing(s));
  CHECK(cudaGetLastError() == cudaSuccess);  // no error left behind for the next call to trip on
  // A launch that throws while the stream captures (a library call that fails): its message is kept.
  auto refusing = [&] {
    if (capturing(s)) throw std::runtime_error("refused while capturing");
    memset();
  };
  CHECK_THROWS_WITH_AS(time_in_graph(s, refusing, 10, short_timing()), doctest::Contains("refused while capturing"),
                       GraphCaptureError);
  CHECK_FALSE(capturing(s));
  // The stream still times ordinary launches, and graph timing of capturable work works on it.
  CHECK(time_on_stream(s, memset, short_timing()).median_us > 0);
  const TimingResult g = time_in_graph(s, memset, 10, short_timing());
  CHECK(g.median_us > 0);
  CHECK(g.reps_per_sample >= 1);
  CHECK_THROWS_AS(time_in_graph(s, memset, 0, short_timing()), InvalidArgument);
}

TEST_CASE("time_in_graph: graphs about a sample long time a longer kernel as graphs of 64 calls do") {
  // A memset of 96 MB (about 35 us on the H100): graphs of 64 calls last 2 ms, graphs fitting a 0.3 ms
  // sample hold about 9 calls. The gap between two graph launches is then a larger share per call, but the
  // same share for every kernel of that length: the two medians agree to a few percent.
  CudaStream stream;
  const cudaStream_t s = stream.get();
  const size_t bytes = size_t{96} << 20;
  DeviceBuffer buf(bytes, "graph length test buffer");
  auto memset = [&] {
    const cudaError_t e = cudaMemsetAsync(buf.get(), 0, bytes, s);
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaMemsetAsync: ") + cudaGetErrorName(e));
  };
  TimingOptions search;  // the tuner's search timing
  search.warmup = 1;
  search.samples = 5;
  search.min_sample_ms = 0.3;
  const TimingResult full = time_in_graph(s, memset, 64, search);
  const TimingResult fitted = time_in_graph(s, memset, 64, search, search.min_sample_ms);
  const TimingResult stream_timed = time_on_stream(s, memset, search);
  MESSAGE("memset of 96 MB: graphs of 64 calls ", full.median_us, " us per call, graphs of ", fitted.calls_per_graph,
          " calls ", fitted.median_us, " us, on the stream ", stream_timed.median_us, " us");
  CHECK(full.calls_per_graph == 64);
  CHECK(fitted.calls_per_graph >= kMinGraphCalls);
  CHECK(fitted.calls_per_graph < 64);
  CHECK(fitted.median_us == doctest::Approx(full.median_us).epsilon(0.05));
  CHECK(stream_timed.calls_per_graph == 0);
  // A short kernel keeps the most calls where 64 of them are shorter than the sample (the final timing's
  // 3 ms samples).
  search.min_sample_ms = 3.0;
  DeviceBuffer small(1 << 16, "graph length test buffer (small)");
  auto tiny = [&] {
    const cudaError_t e = cudaMemsetAsync(small.get(), 0, 1 << 16, s);
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaMemsetAsync: ") + cudaGetErrorName(e));
  };
  CHECK(time_in_graph(s, tiny, 64, search, search.min_sample_ms).calls_per_graph == 64);
  CHECK_THROWS_AS(time_in_graph(s, tiny, 64, search, -1), InvalidArgument);
}
