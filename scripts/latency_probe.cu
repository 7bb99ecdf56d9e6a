// Cold-L2 floors of a small SpMV (issue 12, the 12 MB built-ins): how long an empty kernel, a plain read of
// N bytes and synthetic f64 CSR/ELL products of a 66k-row, 15-per-row mesh-like matrix take when the L2 was
// flushed before each launch (the method of `jitsparse bench --l2 cold`: a 2x-L2 read, one launch per event
// pair, median of 51). It separates the launch floor, the streaming floor and the chain of dependent loads
// (row pointer -> column -> x) of the real kernels. An experiment, not part of the build:
//   nvcc -O3 -arch=sm_90 -cudart static -o carry/latency_probe scripts/latency_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

__global__ void empty_kernel() {}

__global__ void flush(const float4* b, long long n, float* sink) {
  float s = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    float4 v = b[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1.f) *sink = s;
}

__global__ void read_bytes(const float4* a, long long n, float* sink) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  float s = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    float4 v0 = __ldcs(a + i), v1 = __ldcs(a + i + stride), v2 = __ldcs(a + i + 2 * stride), v3 = __ldcs(a + i + 3 * stride);
    s += v0.x + v1.y + v2.z + v3.w;
  }
  for (; i < n; i += stride) s += __ldcs(a + i).x;
  if (s == 1.f) *sink = s;
}

// CSR, TPR threads per row; GATHER false reads x[row] instead of x[col] (no col -> x dependence).
template <int TPR, bool GATHER>
__global__ void csr(int rows, const int* rp, const int* col, const double* val, const double* x, double* y) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / TPR, lane = threadIdx.x % TPR;
  double acc = 0;
  if (row < rows) {
    const int b = __ldcs(rp + row), e = __ldcs(rp + row + 1);
#pragma unroll 4
    for (int k = b + lane; k < e; k += TPR) {
      const int c = __ldcs(col + k);
      acc += __ldcs(val + k) * __ldg(x + (GATHER ? c : row));
    }
  }
  for (int o = TPR / 2; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o, TPR);
  if (lane == 0 && row < rows) y[row] = acc;
}

// ELLPACK-R, column-major (position (r, k) at r + k * stride), one row per thread. SPEC: the first S
// positions (always inside the padded array) are loaded before the row's length is known, so the chain
// row_len -> column loses a link; masked after.
template <bool SPEC, int S>
__global__ void ell(int rows, int stride, int width, const int* len, const int* col, const double* val, const double* x, double* y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  double acc = 0;
  if (SPEC) {
    int c[S];
    double v[S];
#pragma unroll
    for (int k = 0; k < S; ++k)
      if (k < width) { c[k] = __ldcs(col + row + (long long)k * stride); v[k] = __ldcs(val + row + (long long)k * stride); }
    const int n = __ldcs(len + row);
#pragma unroll
    for (int k = 0; k < S; ++k)
      if (k < n) acc += v[k] * __ldg(x + c[k]);
#pragma unroll 4
    for (int k = S; k < n; ++k) acc += __ldcs(val + row + (long long)k * stride) * __ldg(x + __ldcs(col + row + (long long)k * stride));
  } else {
    const int n = __ldcs(len + row);
#pragma unroll 4
    for (int k = 0; k < n; ++k) acc += __ldcs(val + row + (long long)k * stride) * __ldg(x + __ldcs(col + row + (long long)k * stride));
  }
  y[row] = acc;
}

struct Timer {
  cudaEvent_t a, b;
  const float4* fb;
  long long fn;
  float* sink;
  Timer(const float4* f, long long n, float* s) : fb(f), fn(n), sink(s) {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
  template <class F>
  double median(F launch, bool cold, int samples = 51) {
    std::vector<double> t;
    for (int i = 0; i < 3; ++i) launch();
    for (int i = 0; i < samples; ++i) {
      if (cold) flush<<<132 * 8, 256>>>(fb, fn, sink);
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms * 1000.0);
    }
    CHECK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

int main() {
  int l2 = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long fbytes = 2LL * l2;
  float4* fb;
  float* sink;
  CHECK(cudaMalloc(&fb, fbytes));
  CHECK(cudaMemset(fb, 0, fbytes));
  CHECK(cudaMalloc(&sink, 4));
  Timer timer(fb, fbytes / 16, sink);
  std::printf("L2 %d MB, %d SMs; medians of 51 single launches, us\n", l2 >> 20, sms);

  std::printf("empty<<<1,32>>>           cold %7.2f  warm %7.2f\n", timer.median([] { empty_kernel<<<1, 32>>>(); }, true),
              timer.median([] { empty_kernel<<<1, 32>>>(); }, false));
  std::printf("empty<<<%d,256>>>       cold %7.2f  warm %7.2f\n", sms * 8,
              timer.median([&] { empty_kernel<<<sms * 8, 256>>>(); }, true), timer.median([&] { empty_kernel<<<sms * 8, 256>>>(); }, false));

  float4* buf;
  const long long maxb = 256LL << 20;
  CHECK(cudaMalloc(&buf, maxb));
  CHECK(cudaMemset(buf, 0, maxb));
  for (double mb : {0.25, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 16.0, 24.0, 32.0, 64.0, 128.0, 256.0}) {
    const long long n = (long long)(mb * 1048576) / 16;
    auto go = [&] { read_bytes<<<sms * 8, 256>>>(buf, n, sink); };
    const double c = timer.median(go, true), w = timer.median(go, false);
    std::printf("read %7.2f MB          cold %7.2f  warm %7.2f   cold GB/s %6.0f\n", mb, c, w, mb * 1048576 / c / 1000);
  }

  // A mesh-like matrix: 66,297 rows (laplacian_small's), 15 entries per row at stencil offsets.
  const int rows = 66297, per = 15;
  const int offs[per] = {-1681, -1641, -1640, -41, -40, -1, 0, 1, 40, 41, 1640, 1641, 1681, 3, -3};
  std::vector<int> rp(rows + 1), col, len(rows);
  std::vector<double> val;
  for (int r = 0; r < rows; ++r) {
    rp[r] = (int)col.size();
    std::vector<int> cs;
    for (int o : offs) if (r + o >= 0 && r + o < rows) cs.push_back(r + o);
    std::sort(cs.begin(), cs.end());
    for (int c : cs) { col.push_back(c); val.push_back(1.0 + (c % 7)); }
    len[r] = (int)cs.size();
  }
  rp[rows] = (int)col.size();
  const int nnz = rp[rows], width = per, stride = (rows + 31) / 32 * 32;
  std::vector<int> ecol((size_t)stride * width, 0);
  std::vector<double> eval((size_t)stride * width, 0);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < len[r]; ++k) { ecol[r + (size_t)k * stride] = col[rp[r] + k]; eval[r + (size_t)k * stride] = val[rp[r] + k]; }
  int *d_rp, *d_col, *d_len, *d_ecol;
  double *d_val, *d_eval, *d_x, *d_y;
  CHECK(cudaMalloc(&d_rp, (rows + 1) * 4));
  CHECK(cudaMalloc(&d_col, nnz * 4));
  CHECK(cudaMalloc(&d_val, nnz * 8));
  CHECK(cudaMalloc(&d_len, rows * 4));
  CHECK(cudaMalloc(&d_ecol, ecol.size() * 4));
  CHECK(cudaMalloc(&d_eval, eval.size() * 8));
  CHECK(cudaMalloc(&d_x, rows * 8));
  CHECK(cudaMalloc(&d_y, rows * 8));
  CHECK(cudaMemcpy(d_rp, rp.data(), (rows + 1) * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, col.data(), nnz * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_val, val.data(), nnz * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_len, len.data(), rows * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_ecol, ecol.data(), ecol.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_eval, eval.data(), eval.size() * 8, cudaMemcpyHostToDevice));
  std::vector<double> x(rows);
  for (int i = 0; i < rows; ++i) x[i] = 1.0 / (1 + i % 13);
  CHECK(cudaMemcpy(d_x, x.data(), rows * 8, cudaMemcpyHostToDevice));
  // CPU reference, checked after each kernel.
  std::vector<double> ref(rows, 0);
  for (int r = 0; r < rows; ++r)
    for (int k = rp[r]; k < rp[r + 1]; ++k) ref[r] += val[k] * x[col[k]];
  auto check = [&](const char* name, bool gather) {
    std::vector<double> y(rows);
    CHECK(cudaMemcpy(y.data(), d_y, rows * 8, cudaMemcpyDeviceToHost));
    if (!gather) return;
    for (int r = 0; r < rows; ++r)
      if (std::abs(y[r] - ref[r]) > 1e-9 * std::abs(ref[r]) + 1e-12) { std::printf("%s: WRONG at row %d\n", name, r); std::exit(2); }
  };
  const double csr_mb = (nnz * 12.0 + rows * 4.0 + rows * 16.0) / 1048576;
  std::printf("matrix: %d rows, %d entries, CSR f64 + x + y %.2f MB\n", rows, nnz, csr_mb);
  auto row = [&](const char* name, bool gather, auto launch) {
    launch();
    CHECK(cudaDeviceSynchronize());
    check(name, gather);
    const double c = timer.median(launch, true), w = timer.median(launch, false);
    std::printf("%-34s cold %7.2f  warm %7.2f\n", name, c, w);
  };
  auto blocks = [&](int threads) { return (threads + 255) / 256; };
  row("csr tpr1", true, [&] { csr<1, true><<<blocks(rows), 256>>>(rows, d_rp, d_col, d_val, d_x, d_y); });
  row("csr tpr2", true, [&] { csr<2, true><<<blocks(rows * 2), 256>>>(rows, d_rp, d_col, d_val, d_x, d_y); });
  row("csr tpr4", true, [&] { csr<4, true><<<blocks(rows * 4), 256>>>(rows, d_rp, d_col, d_val, d_x, d_y); });
  row("csr tpr8", true, [&] { csr<8, true><<<blocks(rows * 8), 256>>>(rows, d_rp, d_col, d_val, d_x, d_y); });
  row("csr tpr4, x[row] (no gather)", false, [&] { csr<4, false><<<blocks(rows * 4), 256>>>(rows, d_rp, d_col, d_val, d_x, d_y); });
  row("ell", true, [&] { ell<false, 4><<<blocks(rows), 256>>>(rows, stride, width, d_len, d_ecol, d_eval, d_x, d_y); });
  row("ell, first 4 loaded ahead of len", true, [&] { ell<true, 4><<<blocks(rows), 256>>>(rows, stride, width, d_len, d_ecol, d_eval, d_x, d_y); });
  row("ell, first 8 loaded ahead of len", true, [&] { ell<true, 8><<<blocks(rows), 256>>>(rows, stride, width, d_len, d_ecol, d_eval, d_x, d_y); });
  row("ell, all 15 loaded ahead of len", true, [&] { ell<true, 15><<<blocks(rows), 256>>>(rows, stride, width, d_len, d_ecol, d_eval, d_x, d_y); });
  const double mb_csr = (nnz * 12.0 + (rows + 1) * 4.0) / 1048576;
  const long long n = (long long)(mb_csr * 1048576) / 16;
  row("read the CSR's bytes (floor)", false, [&] { read_bytes<<<sms * 8, 256>>>(buf, n, sink); });
  return 0;
}
