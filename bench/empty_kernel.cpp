#include "bench/empty_kernel.hpp"

#include <cuda_runtime.h>

#include "bench/nvrtc_kernel.hpp"
#include "core/error.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/cuda_stream.hpp"
#include "runtime/device_info.hpp"

namespace jitsparse {
namespace {

constexpr const char* kKernelName = "jitsparse_empty";
constexpr const char* kEmptyKernel = R"(
extern "C" __global__ void jitsparse_empty() {}
)";

}  // namespace

const char* empty_kernel_source() { return kEmptyKernel; }

std::string compile_empty_kernel(const std::string& arch) {
  return compile_cubin(kEmptyKernel, "jitsparse_empty.cu", arch);
}

EmptyKernelFloor measure_empty_kernel_floor(int device, const TimingOptions& timing, int calls_per_graph) {
  if (calls_per_graph < 1) throw InvalidArgument("empty kernel floor: calls_per_graph must be at least 1");
  EmptyKernelFloor f;
  f.calls_per_graph = calls_per_graph;
  try {
    const DeviceInfo info = query_device(device);  // throws DeviceError without a GPU
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    const LoadedKernel kernel(compile_empty_kernel(info.arch()), kKernelName);
    CudaStream stream;
    auto launch = [fn = kernel.function(), s = stream.get()] {
      // Inside the timed loop: build cuda_check's message string only on failure.
      const cudaError_t e = cudaLaunchKernel(fn, dim3(1), dim3(32), nullptr, 0, s);
      if (e != cudaSuccess) cuda_check(e, "cudaLaunchKernel (jitsparse_empty)");
    };
    const TimingResult single = time_on_stream(stream.get(), launch, timing);
    f.single_us = single.median_us;
    f.single_q1_us = single.q1_us;
    f.single_q3_us = single.q3_us;
    f.single_samples_us = single.samples_us;
    f.status = "ok";
    try {
      const TimingResult graph = time_in_graph(stream.get(), launch, calls_per_graph, timing);
      f.graph_us = graph.median_us;
      f.graph_q1_us = graph.q1_us;
      f.graph_q3_us = graph.q3_us;
      f.graph_samples_us = graph.samples_us;
      f.graph_status = "ok";
    } catch (const std::exception& e) {
      f.graph_status = std::string("unavailable: ") + e.what();
    }
  } catch (const std::exception& e) {
    f.status = std::string("error: ") + e.what();
  }
  return f;
}

}  // namespace jitsparse
