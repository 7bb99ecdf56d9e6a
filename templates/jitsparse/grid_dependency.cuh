// Programmatic dependent launch (sm_90 and later): a product of two kernels (a prologue that scales y or
// finds hola's block rows, then the main kernel) launches the main kernel with programmatic stream
// serialization (runtime/spmv.cpp), so its blocks start while the prologue still runs and issue the loads
// that do not depend on it. The main kernel calls wait_for_prologue() before its first access to what the
// prologue writes. Launched without the attribute (older GPUs, exported code, CUDA graphs built without
// it), the wait returns at once: the stream already ordered the two kernels.
#pragma once

namespace jitsparse {

// Blocks until the prologue grid has finished and its writes are visible.
__device__ __forceinline__ void wait_for_prologue() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Called by the prologue: the main kernel may launch now (it still waits in wait_for_prologue()).
__device__ __forceinline__ void let_main_kernel_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace jitsparse
