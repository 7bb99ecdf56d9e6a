// Use from C++: read a matrix, run y = A x with one variant on the GPU, print ||y|| and the time.
//   spmv_example matrix.mtx [entry] [variant]
//   spmv_example dirac.mtx quaternion quaternion.f64/sell32-soa-aos/static-256x2
#include <chrono>
#include <cmath>
#include <iostream>

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "io/matrix_market.hpp"
#include "runtime/spmv.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: spmv_example matrix.mtx [entry type, default real] [variant, default <entry>.f64/csr-aos-aos/static-256x2]\n";
    return 2;
  }
  try {
    const std::string entry = argc > 2 ? argv[2] : "real";
    const jitsparse::HostMatrix a = jitsparse::read_matrix_market(argv[1], {entry});
    const jitsparse::Variant v =
        jitsparse::Variant::parse(argc > 3 ? argv[3] : entry + ".f64/csr-aos-aos/static-256x2");

    jitsparse::Context ctx;  // GPU 0; kernels come from the cubin cache or NVRTC
    // the matrix the variant runs on: a itself, its transposed copy (op t/h copy) or P A P^T (@rcm)
    const jitsparse::DeviceMatrix da = jitsparse::DeviceMatrix::for_variant(ctx, a, v);
    const int vc = a.vector_components();
    const bool transposed = jitsparse::is_transposed(v.op);  // A^T x: x has a.rows elements
    jitsparse::DeviceVector x(ctx, transposed ? a.rows : a.cols, vc, v.layout.vector, v.precision);
    jitsparse::DeviceVector y(ctx, transposed ? a.cols : a.rows, vc, v.layout.vector, v.precision);
    x.fill(1.0);

    jitsparse::SpmvLaunch launch(ctx, v, da, x, y);  // compiles or loads the kernel once
    launch.launch();                                 // warm-up
    ctx.synchronize();
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    const int reps = 20;
    cudaEventRecord(start, ctx.stream());
    for (int i = 0; i < reps; ++i) launch.launch();
    cudaEventRecord(stop, ctx.stream());
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);

    double norm = 0;
    for (double value : y.download()) norm += value * value;
    std::cout << a.name << ": " << a.rows << " x " << a.cols << ", " << a.nnz() << " entries, " << v.name()
              << ", matrix " << da.bytes() << " bytes on the GPU\n||A*1|| = " << std::sqrt(norm) << ", "
              << 1000.0 * ms / reps << " us per product\n";
    return 0;
  } catch (const jitsparse::Error& e) {
    std::cerr << "spmv_example: " << e.what() << "\n";
    return 1;
  }
}
