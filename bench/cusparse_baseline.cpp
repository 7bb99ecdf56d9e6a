#include "bench/cusparse_baseline.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>
#include <library_types.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "core/yardstick.hpp"
#include "bench/sliced_ell.hpp"
#include "bench/cusparse_util.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/cuda_stream.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_info.hpp"

namespace jitsparse {
namespace {

using namespace cusparse_util;  // Unsupported, check_cusparse, record_status, the RAII handles, is_complex

// --- device arrays -------------------------------------------------------------------------------------

// A device array handed to cuSPARSE. It is never null, even for zero bytes: runtime's DeviceBuffer gives
// nullptr for an empty request, but cuSPARSE may reject a null array even where it is empty (col_idx and
// values of a matrix with no entries, a zero-size SpMV work buffer). So at least 16 bytes are allocated,
// while bytes() stays the size asked for (what device_bytes adds up).
class Array {
 public:
  Array() = default;
  Array(size_t bytes, const std::string& what) : buf_(std::max<size_t>(bytes, 16), what), bytes_(bytes) {}

  void* get() const { return buf_.get(); }
  template <typename T>
  T* as() const {
    return buf_.as<T>();
  }
  size_t bytes() const { return bytes_; }
  // Both wait for the stream (runtime's DeviceBuffer), so the host side may go away after.
  void upload(const void* host, cudaStream_t stream) { buf_.upload(host, bytes_, stream); }
  void download(void* host, cudaStream_t stream) const { buf_.download(host, bytes_, stream); }

 private:
  DeviceBuffer buf_;
  size_t bytes_ = 0;
};

// Allocate and copy a host vector in one step (the copy synchronizes the stream, so `v` may go away after).
template <typename T>
Array upload_vector(const std::vector<T>& v, cudaStream_t stream, const std::string& what) {
  Array a(v.size() * sizeof(T), what);
  a.upload(v.data(), stream);
  return a;
}

DnVec make_dnvec(int64_t size, void* values, cudaDataType type) {
  cusparseDnVecDescr_t v = nullptr;
  check_cusparse(cusparseCreateDnVec(&v, size, values, type), "cusparseCreateDnVec");
  return DnVec(v);
}

// --- entry-type classification --------------------------------------------------------------------------

// Quaternions as cuSPARSE's cheapest form (DESIGN.md, Measuring): q = a + b j, a = w + x i, b = y + z i,
// is the complex 2x2 block [[a, b], [-conj(b), conj(a)]], a vector element v = c + d j its first column
// (c, -conj(d)). In real components both maps only negate the third one (S = diag(1, 1, -1, 1)): the
// block is S M(q) S read as 2x2 complex numbers. True when M(a) of a generic probe has that structure
// (checked on the multiplication, not the name); every entry is checked again when the blocks are built.
constexpr double kQuaternionSign[4] = {1, 1, -1, 1};

bool complex_2x2_structured(const double* m) {  // m: 4x4 row-major real block
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) {
      auto at = [&](int i, int j) { return kQuaternionSign[i] * kQuaternionSign[j] * m[i * 4 + j]; };
      if (at(2 * r, 2 * c) != at(2 * r + 1, 2 * c + 1) || at(2 * r, 2 * c + 1) != -at(2 * r + 1, 2 * c)) return false;
    }
  return true;
}

bool is_quaternion_like(const EntryType& e) {
  if (e.num_vector_components() != 4) return false;
  std::vector<double> probe(static_cast<size_t>(e.num_components()));
  for (size_t i = 0; i < probe.size(); ++i) probe[i] = 0.375 + 1.25 * static_cast<double>(i) * (i % 2 ? -1 : 1);
  const std::vector<double> m = e.expansion(probe.data());
  return complex_2x2_structured(m.data());
}

enum class Family { scalar_csr, complex_csr, blocks };

Family family_of(const EntryType& e) {
  if (e.num_vector_components() == 1) return Family::scalar_csr;
  if (is_complex(e)) return Family::complex_csr;
  return Family::blocks;
}

// The methods of each family (cusparse_baseline.hpp), in the order they run and are reported.
const std::vector<std::string> kScalarMethods = {"cusparse-csr-alg1", "cusparse-csr-alg2", "cusparse-sell"};
const std::vector<std::string> kBlockMethods = {"cusparse-bsr-row",           "cusparse-bsr-col",
                                                "cusparse-bsrmv-row",         "cusparse-bsrmv-col",
                                                "cusparse-csr-alg1-expanded", "cusparse-csr-alg2-expanded"};
const std::vector<std::string> kQuaternionMethods = {"cusparse-bsr-complex2x2", "cusparse-bsrmv-complex2x2"};

const std::vector<std::string>& all_method_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = kScalarMethods;
    n.insert(n.end(), kBlockMethods.begin(), kBlockMethods.end());
    n.insert(n.end(), kQuaternionMethods.begin(), kQuaternionMethods.end());
    return n;
  }();
  return names;
}

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// --- the run ----------------------------------------------------------------------------------------------

template <typename T>
constexpr cudaDataType real_type() {
  return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
}
template <typename T>
constexpr cudaDataType complex_type() {
  return std::is_same_v<T, float> ? CUDA_C_32F : CUDA_C_64F;
}

template <typename T>
class Runner {
 public:
  // ref and scale: the reference y and its tolerance scale (of op(A) x). `operation` is cuSPARSE's own
  // (implicit transposes); adjoint_blocks makes the block methods use M(a)^T (explicit A^H of blocks).
  Runner(const HostMatrix& a, Precision p, const std::vector<double>& x, const BaselineOptions& options,
         cudaStream_t stream, std::vector<double> ref, std::vector<double> scale,
         cusparseOperation_t operation = CUSPARSE_OPERATION_NON_TRANSPOSE, bool adjoint_blocks = false)
      : a_(a), options_(options), stream_(stream), v_(a.vector_components()), op_(operation),
        adjoint_blocks_(adjoint_blocks) {
    ref_ = std::move(ref);
    scale_ = std::move(scale);
    tol_ = default_tolerance(p);
    bytes_ = compulsory_bytes(a, p);
    handle_ = make_handle(stream);
    std::vector<T> xt(x.begin(), x.end());
    x_dev_ = upload_vector(xt, stream, "vector x");
    x_host_ = x;
    y_len_ = static_cast<int64_t>(op_ == CUSPARSE_OPERATION_NON_TRANSPOSE ? a.rows : a.cols) * v_;
    y_dev_ = Array(static_cast<size_t>(y_len_) * sizeof(T), "vector y");
  }

  // What an explicit transpose costs once: cusparseCsr2cscEx2 of the CSR cuSPARSE would convert (the
  // matrix itself for real and complex entries, its real expansion for the others), median of 5, in us.
  double csr2csc_us() {
    const bool blocks = family_of(a_.entry) == Family::blocks;
    const bool cplx = family_of(a_.entry) == Family::complex_csr;
    Csr c = blocks ? expanded_csr(row_major_blocks()) : native_csr(cplx);
    const cudaDataType type = cplx ? complex_type<T>() : real_type<T>();
    Array cp(static_cast<size_t>(c.cols + 1) * sizeof(int), "csc column offsets");
    Array ri(static_cast<size_t>(c.nnz) * sizeof(int), "csc row indices");
    Array vals(c.values.bytes(), "csc values");
    size_t size = 0;
    cusparseHandle_t h = handle_.get();
    check_cusparse(cusparseCsr2cscEx2_bufferSize(h, c.rows, c.cols, c.nnz, c.values.get(), c.row_ptr.template as<int>(),
                                                 c.col_idx.template as<int>(), vals.get(), cp.template as<int>(), ri.template as<int>(), type,
                                                 CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                                 CUSPARSE_CSR2CSC_ALG1, &size),
                   "cusparseCsr2cscEx2_bufferSize");
    Array work(size, "csr2csc work buffer");
    auto run = [&] {
      check_cusparse(cusparseCsr2cscEx2(h, c.rows, c.cols, c.nnz, c.values.get(), c.row_ptr.template as<int>(),
                                        c.col_idx.template as<int>(), vals.get(), cp.template as<int>(), ri.template as<int>(), type,
                                        CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1,
                                        work.get()),
                     "cusparseCsr2cscEx2");
    };
    TimingOptions once = options_.timing;
    once.samples = 5;
    once.min_sample_ms = 0;  // one conversion per sample: what a user pays once
    return time_on_stream(stream_, run, once).median_us;
  }

  // Fills results[i] for every selected method, in the order of `names`.
  void run(const std::vector<std::string>& names, std::vector<BaselineResult>& results) {
    auto wanted = [&](const std::string& n) {
      return std::find(names.begin(), names.end(), n) != names.end();
    };
    // The result row of a method that is to run, else nullptr.
    auto slot = [&](const std::string& n) -> BaselineResult* {
      if (!wanted(n)) return nullptr;
      for (auto& r : results)
        if (r.method == n) return &r;
      return nullptr;
    };
    const Family family = family_of(a_.entry);
    if (family != Family::blocks) {
      const bool cplx = family == Family::complex_csr;
      if (wanted("cusparse-csr-alg1") || wanted("cusparse-csr-alg2"))
        guarded({slot("cusparse-csr-alg1"), slot("cusparse-csr-alg2")}, [&] {
          Csr csr = native_csr(cplx);
          for (auto alg : {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
            const char* n = alg == CUSPARSE_SPMV_CSR_ALG1 ? "cusparse-csr-alg1" : "cusparse-csr-alg2";
            if (auto* r = slot(n)) method(*r, [&](BaselineResult& res) { generic_csr(csr, alg, cplx, res); });
          }
        });
      // After the CSR arrays are freed: the two copies never share the GPU.
      if (auto* r = slot("cusparse-sell")) method(*r, [&](BaselineResult& res) { sliced_ell(cplx, res); });
      return;
    }

    // Blocks: M(a) of every entry, row-major, in the scalar type (shared by every block method).
    const int64_t block = static_cast<int64_t>(v_) * v_;
    const bool too_large = a_.nnz() * block > kInt32Max || static_cast<int64_t>(a_.rows) * v_ > kInt32Max ||
                           static_cast<int64_t>(a_.cols) * v_ > kInt32Max;
    if (too_large) {
      const std::string why = "unsupported: too large: the real expansion has " +
                              std::to_string(a_.nnz() * block) + " scalars and " +
                              std::to_string(static_cast<int64_t>(a_.rows) * v_) +
                              " rows, beyond 32-bit indices";
      for (const auto& n : names)
        if (auto* r = slot(n); r && r->status.empty()) r->status = why;
      return;
    }
    std::vector<BaselineResult*> block_slots;
    for (const auto& n : names) block_slots.push_back(slot(n));
    guarded(block_slots, [&] {
      std::vector<T> blocks = row_major_blocks();
      const bool any_bsr = wanted("cusparse-bsr-row") || wanted("cusparse-bsr-col") ||
                           wanted("cusparse-bsrmv-row") || wanted("cusparse-bsrmv-col");
      if (any_bsr) {
        Array row_ptr = upload_vector(a_.row_ptr, stream_, "bsr row offsets");
        Array col_idx = upload_vector(a_.col_idx, stream_, "bsr column indices");
        for (bool row_major : {true, false}) {
          const char* gen = row_major ? "cusparse-bsr-row" : "cusparse-bsr-col";
          const char* leg = row_major ? "cusparse-bsrmv-row" : "cusparse-bsrmv-col";
          if (!wanted(gen) && !wanted(leg)) continue;
          guarded({slot(gen), slot(leg)}, [&] {
            Array values =
                upload_vector(row_major ? blocks : transposed_blocks(blocks), stream_,
                                     row_major ? "bsr values (row-major)" : "bsr values (column-major)");
            Bsr bsr{&row_ptr, &col_idx, &values};
            if (auto* r = slot(gen))
              method(*r, [&](BaselineResult& res) { generic_bsr(bsr, row_major, res); });
            if (auto* r = slot(leg))
              method(*r, [&](BaselineResult& res) { legacy_bsrmv(bsr, row_major, res); });
          });
        }
      }
      if (wanted("cusparse-bsr-complex2x2") || wanted("cusparse-bsrmv-complex2x2")) {
        guarded({slot("cusparse-bsr-complex2x2"), slot("cusparse-bsrmv-complex2x2")}, [&] {
          Array row_ptr = upload_vector(a_.row_ptr, stream_, "bsr row offsets");
          Array col_idx = upload_vector(a_.col_idx, stream_, "bsr column indices");
          Array values = upload_vector(complex_2x2_blocks(blocks), stream_, "complex 2x2 bsr values");
          Bsr bsr{&row_ptr, &col_idx, &values};
          if (auto* r = slot("cusparse-bsr-complex2x2"))
            method(*r, [&](BaselineResult& res) { generic_bsr_complex2x2(bsr, res); });
          if (auto* r = slot("cusparse-bsrmv-complex2x2"))
            method(*r, [&](BaselineResult& res) { legacy_bsrmv_complex2x2(bsr, res); });
        });
      }
      if (wanted("cusparse-csr-alg1-expanded") || wanted("cusparse-csr-alg2-expanded")) {
        guarded({slot("cusparse-csr-alg1-expanded"), slot("cusparse-csr-alg2-expanded")}, [&] {
          Csr csr = expanded_csr(blocks);
          blocks.clear();
          blocks.shrink_to_fit();  // the host copy is not needed while timing
          for (auto alg : {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
            const char* n =
                alg == CUSPARSE_SPMV_CSR_ALG1 ? "cusparse-csr-alg1-expanded" : "cusparse-csr-alg2-expanded";
            if (auto* r = slot(n))
              method(*r, [&](BaselineResult& res) { generic_csr(csr, alg, false, res); });
          }
        });
      }
    });
  }

 private:
  struct Csr {
    int64_t rows = 0, cols = 0, nnz = 0;
    Array row_ptr, col_idx, values;
  };
  struct Bsr {
    const Array* row_ptr;
    const Array* col_idx;
    const Array* values;
  };

  // Runs `body` (which prepares data shared by several methods); if it throws, every listed method that
  // has no status yet gets the failure, so a failed upload never hides which methods did not run.
  void guarded(const std::vector<BaselineResult*>& slots, const std::function<void()>& body) {
    std::string status;
    try {
      body();
      return;
    } catch (const Unsupported& e) {
      status = std::string("unsupported: ") + e.what();
    } catch (const std::bad_alloc&) {
      status = "error: out of host memory preparing the matrix";
    } catch (const std::exception& e) {
      status = std::string("error: ") + e.what();
    }
    for (auto* r : slots)
      if (r && r->status.empty()) r->status = status;
  }

  // One method: its own setup, verification and timing; failures land in r.status.
  void method(BaselineResult& r, const std::function<void(BaselineResult&)>& body) {
    record_status(r.status, [&] { body(r); }, "the method recorded no status");
  }

  // Verify `launch` (y poisoned with NaN first), then time it if it is right.
  void verify_and_time(BaselineResult& r, const std::function<void()>& launch) {
    const size_t y_bytes = static_cast<size_t>(y_len_) * sizeof(T);
    // All-ones bytes are a quiet NaN in float and in double: a row the method forgets to write fails.
    cuda_check(cudaMemsetAsync(y_dev_.get(), 0xFF, y_bytes, stream_), "cudaMemsetAsync (poison y)");
    launch();
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (checked call of " + r.method + ")");
    cuda_check(cudaGetLastError(), "the checked call of " + r.method);
    std::vector<T> yt(static_cast<size_t>(y_len_));
    y_dev_.download(yt.data(), stream_);  // waits for the stream; copies nothing when y is empty
    std::vector<double> y(yt.begin(), yt.end());
    if (complex_pairs_y_)  // back from the complex-pair form of the 2x2 blocks
      for (size_t i = 2; i < y.size(); i += 4) y[i] = -y[i];

    double worst = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      double diff = std::abs(y[i] - ref_[i]);
      double e = !std::isfinite(diff) ? std::numeric_limits<double>::infinity()
                 : scale_[i] > 0      ? diff / scale_[i]
                 : diff > 0           ? std::numeric_limits<double>::infinity()
                                      : 0.0;
      worst = std::max(worst, e);
    }
    r.max_rel_error = worst;
    VerifyResult v = verify_result(y, ref_, scale_, tol_, v_);
    if (!v.ok) {
      r.status = "wrong";
      r.detail = v.message;
      return;  // never time a wrong method
    }
    if (options_.time) {
      TimingResult t = time_on_stream(stream_, launch, options_.timing);
      r.median_us = t.median_us;
      r.samples_us = std::move(t.samples_us);
      r.reps_per_sample = t.reps_per_sample;
      r.gbps = effective_gbps(bytes_, t.median_us);
      if (options_.graph_calls > 0) time_graph(r, launch);
    }
    r.status = "ok";
  }

  // The same calls captured in a CUDA graph. A method that cannot be captured keeps its ordinary time and
  // says why in graph_status; the stream is usable again either way (time_in_graph ends the capture).
  void time_graph(BaselineResult& r, const std::function<void()>& launch) {
    try {
      TimingResult g = time_in_graph(stream_, launch, options_.graph_calls, options_.timing);
      r.graph_median_us = g.median_us;
      r.graph_q1_us = g.q1_us;
      r.graph_q3_us = g.q3_us;
      r.graph_samples_us = std::move(g.samples_us);
      r.graph_status = "ok";
    } catch (const std::exception& e) {
      r.graph_status = std::string("unavailable: ") + e.what();
    }
  }

  // --- host-side formats ---

  // CSR of the matrix itself: V == 1 (values are M(a), which for "real" is the value) or complex (aos
  // (re, im) pairs as they are).
  Csr native_csr(bool cplx) {
    Csr c;
    c.rows = a_.rows;
    c.cols = a_.cols;
    c.nnz = a_.nnz();
    std::vector<T> values;
    if (cplx) {
      values.assign(a_.values.begin(), a_.values.end());
    } else {
      values = row_major_blocks();  // 1x1 blocks: for "real" the value itself
    }
    c.row_ptr = upload_vector(a_.row_ptr, stream_, "csr row offsets");
    c.col_idx = upload_vector(a_.col_idx, stream_, "csr column indices");
    c.values = upload_vector(values, stream_, "csr values");
    return c;
  }

  // M(a) of every entry, row-major: the sum EntryType::expansion computes, accumulated in double and
  // written in place (no allocation per entry: matrices have millions of them).
  std::vector<T> row_major_blocks() const {
    const size_t bs = static_cast<size_t>(v_) * v_;
    std::vector<T> blocks(static_cast<size_t>(a_.nnz()) * bs);
    std::vector<double> m(bs);
    for (int64_t k = 0; k < a_.nnz(); ++k) {
      std::fill(m.begin(), m.end(), 0.0);
      const double* e = a_.entry_values(k);
      for (const auto& t : a_.entry.terms)
        (adjoint_blocks_ ? m[static_cast<size_t>(t.x) * v_ + t.out] : m[static_cast<size_t>(t.out) * v_ + t.x]) +=
            t.coeff * e[t.a];
      std::copy(m.begin(), m.end(), blocks.begin() + k * bs);
    }
    return blocks;
  }

  // The 2x2 complex blocks (re, im interleaved, row-major) of quaternion-structured 4x4 real blocks.
  std::vector<T> complex_2x2_blocks(const std::vector<T>& blocks) const {
    std::vector<T> out(blocks.size() / 2);
    double m[16];
    for (size_t k = 0; k < blocks.size() / 16; ++k) {
      std::copy(blocks.begin() + k * 16, blocks.begin() + (k + 1) * 16, m);
      if (!complex_2x2_structured(m))
        throw Unsupported("entry " + std::to_string(k) + " is not a quaternion in its 4x4 real form");
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
          const int i = 2 * r, j = 2 * c;
          out[k * 8 + (r * 2 + c) * 2] = static_cast<T>(kQuaternionSign[i] * kQuaternionSign[j] * m[i * 4 + j]);
          out[k * 8 + (r * 2 + c) * 2 + 1] =
              static_cast<T>(kQuaternionSign[i + 1] * kQuaternionSign[j] * m[(i + 1) * 4 + j]);
        }
    }
    return out;
  }

  // x in the complex-pair form of the 2x2 blocks (the third component negated), uploaded once.
  const Array& complex_2x2_x() {
    if (!x_c2_.get()) {
      std::vector<T> xt(x_host_.begin(), x_host_.end());
      for (size_t i = 2; i < xt.size(); i += 4) xt[i] = -xt[i];
      x_c2_ = upload_vector(xt, stream_, "vector x (complex pairs)");
    }
    return x_c2_;
  }

  std::vector<T> transposed_blocks(const std::vector<T>& blocks) const {
    const size_t bs = static_cast<size_t>(v_) * v_;
    std::vector<T> t(blocks.size());
    for (size_t k = 0; k < blocks.size() / bs; ++k)
      for (int i = 0; i < v_; ++i)
        for (int j = 0; j < v_; ++j) t[k * bs + j * v_ + i] = blocks[k * bs + i * v_ + j];
    return t;
  }

  // The real (rows*V) x (cols*V) CSR with every block stored whole; sizes checked by the caller.
  Csr expanded_csr(const std::vector<T>& blocks) {
    const int v = v_;
    const size_t bs = static_cast<size_t>(v) * v;
    Csr c;
    c.rows = static_cast<int64_t>(a_.rows) * v;
    c.cols = static_cast<int64_t>(a_.cols) * v;
    c.nnz = a_.nnz() * v * v;
    std::vector<int32_t> row_ptr(static_cast<size_t>(c.rows) + 1, 0);
    std::vector<int32_t> col_idx(static_cast<size_t>(c.nnz));
    std::vector<T> values(static_cast<size_t>(c.nnz));
    size_t pos = 0;
    for (int32_t i = 0; i < a_.rows; ++i) {
      for (int r = 0; r < v; ++r) {
        for (int32_t k = a_.row_ptr[i]; k < a_.row_ptr[i + 1]; ++k) {
          for (int cc = 0; cc < v; ++cc) {
            col_idx[pos] = a_.col_idx[k] * v + cc;
            values[pos] = blocks[static_cast<size_t>(k) * bs + static_cast<size_t>(r) * v + cc];
            ++pos;
          }
        }
        row_ptr[static_cast<size_t>(i) * v + r + 1] = static_cast<int32_t>(pos);
      }
    }
    c.row_ptr = upload_vector(row_ptr, stream_, "expanded csr row offsets");
    c.col_idx = upload_vector(col_idx, stream_, "expanded csr column indices");
    c.values = upload_vector(values, stream_, "expanded csr values");
    return c;
  }

  // --- the methods ---

  // Generic SpMV on a ready matrix descriptor: buffer, preprocess (once, as a user who multiplies many
  // times would), verify, time.
  void generic_spmv(BaselineResult& r, cusparseSpMatDescr_t mat, int64_t x_len, int64_t y_len,
                    cudaDataType type, cusparseSpMVAlg_t alg, const Array* x = nullptr) {
    DnVec vx = make_dnvec(x_len, (x ? *x : x_dev_).get(), type);
    DnVec vy = make_dnvec(y_len, y_dev_.get(), type);
    // {1, 0} and {0, 0}: read as T for real types and as (re, im) for complex ones.
    static const T alpha[2] = {T(1), T(0)};
    static const T beta[2] = {T(0), T(0)};
    cusparseHandle_t h = handle_.get();
    size_t buffer_size = 0;
    const cusparseOperation_t op = op_;
    check_cusparse(cusparseSpMV_bufferSize(h, op, alpha, mat, vx.get(), beta, vy.get(), type, alg, &buffer_size),
                   "cusparseSpMV_bufferSize");
    Array work(buffer_size, "cusparseSpMV work buffer");
    check_cusparse(cusparseSpMV_preprocess(h, op, alpha, mat, vx.get(), beta, vy.get(), type, alg, work.get()),
                   "cusparseSpMV_preprocess");
    cusparseDnVecDescr_t x_d = vx.get(), y_d = vy.get();
    void* w = work.get();
    verify_and_time(r, [=] {
      check_cusparse(cusparseSpMV(h, op, alpha, mat, x_d, beta, y_d, type, alg, w), "cusparseSpMV");
    });
  }

  void generic_csr(Csr& c, cusparseSpMVAlg_t alg, bool cplx, BaselineResult& r) {
    const cudaDataType type = cplx ? complex_type<T>() : real_type<T>();
    cusparseSpMatDescr_t m = nullptr;
    check_cusparse(
        cusparseCreateCsr(&m, c.rows, c.cols, c.nnz, c.row_ptr.get(), c.col_idx.get(), c.values.get(),
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type),
        "cusparseCreateCsr");
    SpMat mat(m);
    r.device_bytes = static_cast<int64_t>(c.row_ptr.bytes() + c.col_idx.bytes() + c.values.bytes());
    r.detail = (cplx ? "complex csr " : "real csr ") + std::to_string(c.rows) + " x " +
               std::to_string(c.cols) + ", " + std::to_string(c.nnz) + " entries";
    // Vector lengths in elements of `type`: complex counts pairs; a transposed product swaps them.
    if (op_ == CUSPARSE_OPERATION_NON_TRANSPOSE)
      generic_spmv(r, m, c.cols, c.rows, type, alg);
    else
      generic_spmv(r, m, c.rows, c.cols, type, alg);
  }

  // Sliced ELL of this matrix (bench/sliced_ell.hpp), built on the host and uploaded once: cuSPARSE has no
  // conversion from CSR. Values as native_csr has them (real 1x1 blocks, complex (re, im) pairs).
  void sliced_ell(bool cplx, BaselineResult& r) {
    SellPattern pattern;
    try {
      pattern = sliced_ell_pattern(a_.row_ptr, a_.col_idx, kSellSliceSize);
    } catch (const InvalidArgument& e) {
      throw Unsupported(e.what());  // too large for 32-bit offsets: the matrix, not a failure
    }
    const std::vector<T> values = cplx ? sliced_ell_values<T>(pattern, a_.values, 2)
                                       : sliced_ell_values<T>(pattern, row_major_blocks(), 1);
    Array offsets = upload_vector(pattern.slice_offsets, stream_, "sell slice offsets");
    Array cols = upload_vector(pattern.col_idx, stream_, "sell column indices");
    Array vals = upload_vector(values, stream_, "sell values");
    const cudaDataType type = cplx ? complex_type<T>() : real_type<T>();
    cusparseSpMatDescr_t m = nullptr;
    check_cusparse(cusparseCreateSlicedEll(&m, a_.rows, a_.cols, a_.nnz(), pattern.values_size(), kSellSliceSize,
                                           offsets.get(), cols.get(), vals.get(), CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type),
                   "cusparseCreateSlicedEll");
    SpMat mat(m);
    r.device_bytes = static_cast<int64_t>(offsets.bytes() + cols.bytes() + vals.bytes());
    const double padding = pattern.values_size() > 0
                               ? 1.0 - static_cast<double>(a_.nnz()) / static_cast<double>(pattern.values_size())
                               : 0.0;
    r.detail = std::string(cplx ? "complex" : "real") + " sliced ell, slice " + std::to_string(kSellSliceSize) +
               ", " + std::to_string(pattern.values_size()) + " stored (" +
               std::to_string(static_cast<int>(std::lround(100 * padding))) + "% padding)";
    // Vector lengths as for CSR: elements of `type`; a transposed product swaps them.
    if (op_ == CUSPARSE_OPERATION_NON_TRANSPOSE)
      generic_spmv(r, m, a_.cols, a_.rows, type, CUSPARSE_SPMV_SELL_ALG1);
    else
      generic_spmv(r, m, a_.rows, a_.cols, type, CUSPARSE_SPMV_SELL_ALG1);
  }

  void generic_bsr(const Bsr& b, bool row_major, BaselineResult& r) {
    const cudaDataType type = real_type<T>();
    cusparseSpMatDescr_t m = nullptr;
    check_cusparse(
        cusparseCreateBsr(&m, a_.rows, a_.cols, a_.nnz(), v_, v_, b.row_ptr->get(), b.col_idx->get(),
                          b.values->get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                          type, row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL),
        "cusparseCreateBsr");
    SpMat mat(m);
    r.device_bytes = bsr_bytes(b);
    r.detail = "bsr " + std::to_string(v_) + "x" + std::to_string(v_) +
               (row_major ? " row-major" : " column-major") + " blocks, " + std::to_string(a_.nnz()) +
               " blocks";
    generic_spmv(r, m, static_cast<int64_t>(a_.cols) * v_, static_cast<int64_t>(a_.rows) * v_, type,
                 CUSPARSE_SPMV_BSR_ALG1);
  }

  // The legacy API's matrix descriptor: general, zero-based (both bsrmv forms).
  static MatDescr general_descr() {
    cusparseMatDescr_t d = nullptr;
    check_cusparse(cusparseCreateMatDescr(&d), "cusparseCreateMatDescr");
    MatDescr descr(d);
    check_cusparse(cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL), "cusparseSetMatType");
    check_cusparse(cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ZERO), "cusparseSetMatIndexBase");
    return descr;
  }
  static int64_t bsr_bytes(const Bsr& b) {
    return static_cast<int64_t>(b.row_ptr->bytes() + b.col_idx->bytes() + b.values->bytes());
  }

  // Sets complex_pairs_y_ while a complex 2x2 method runs (verify_and_time maps y back).
  struct ComplexPairs {
    bool& flag;
    explicit ComplexPairs(bool& f) : flag(f) { flag = true; }
    ~ComplexPairs() { flag = false; }
  };

  void generic_bsr_complex2x2(const Bsr& b, BaselineResult& r) {
    const cudaDataType type = complex_type<T>();
    cusparseSpMatDescr_t m = nullptr;
    check_cusparse(cusparseCreateBsr(&m, a_.rows, a_.cols, a_.nnz(), 2, 2, b.row_ptr->get(), b.col_idx->get(),
                                     b.values->get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, type, CUSPARSE_ORDER_ROW),
                   "cusparseCreateBsr (complex 2x2)");
    SpMat mat(m);
    r.device_bytes = bsr_bytes(b);
    r.detail = "bsr 2x2 complex row-major blocks (quaternions as [[a, b], [-conj b, conj a]]), " +
               std::to_string(a_.nnz()) + " blocks";
    ComplexPairs pairs(complex_pairs_y_);
    generic_spmv(r, m, static_cast<int64_t>(a_.cols) * 2, static_cast<int64_t>(a_.rows) * 2, type,
                 CUSPARSE_SPMV_BSR_ALG1, &complex_2x2_x());
  }

  void legacy_bsrmv_complex2x2(const Bsr& b, BaselineResult& r) {
    using C = std::conditional_t<std::is_same_v<T, float>, cuComplex, cuDoubleComplex>;
    const MatDescr descr = general_descr();
    cusparseMatDescr_t d = descr.get();
    r.device_bytes = bsr_bytes(b);
    r.detail = "legacy bsrmv 2x2 complex blocks CUSPARSE_DIRECTION_ROW";
    cusparseHandle_t h = handle_.get();
    const int mb = a_.rows, nb = a_.cols, nnzb = static_cast<int>(a_.nnz());
    const C* val = b.values->template as<const C>();
    const int* rp = b.row_ptr->template as<const int>();
    const int* ci = b.col_idx->template as<const int>();
    const C* x = complex_2x2_x().template as<const C>();
    C* y = y_dev_.template as<C>();
    static const C alpha = {T(1), T(0)}, beta = {T(0), T(0)};
    ComplexPairs pairs(complex_pairs_y_);
    verify_and_time(r, [=] {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      if constexpr (std::is_same_v<T, float>)
        check_cusparse(cusparseCbsrmv(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb, nnzb,
                                      &alpha, d, val, rp, ci, 2, x, &beta, y),
                       "cusparseCbsrmv");
      else
        check_cusparse(cusparseZbsrmv(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb, nnzb,
                                      &alpha, d, val, rp, ci, 2, x, &beta, y),
                       "cusparseZbsrmv");
#pragma GCC diagnostic pop
    });
  }

  void legacy_bsrmv(const Bsr& b, bool row_major, BaselineResult& r) {
    const MatDescr descr = general_descr();
    cusparseMatDescr_t d = descr.get();
    r.device_bytes = bsr_bytes(b);
    r.detail = "legacy bsrmv " + std::to_string(v_) + "x" + std::to_string(v_) +
               (row_major ? " CUSPARSE_DIRECTION_ROW" : " CUSPARSE_DIRECTION_COLUMN");
    cusparseHandle_t h = handle_.get();
    const cusparseDirection_t dir = row_major ? CUSPARSE_DIRECTION_ROW : CUSPARSE_DIRECTION_COLUMN;
    const int mb = a_.rows, nb = a_.cols, nnzb = static_cast<int>(a_.nnz()), dim = v_;
    const T* val = b.values->template as<const T>();
    const int* rp = b.row_ptr->template as<const int>();
    const int* ci = b.col_idx->template as<const int>();
    const T* x = x_dev_.template as<const T>();
    T* y = y_dev_.template as<T>();
    static const T alpha = T(1), beta = T(0);
    verify_and_time(r, [=] {
// bsrmv belongs to the legacy API, which newer toolkits mark deprecated; it is still what many users call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      if constexpr (std::is_same_v<T, float>)
        check_cusparse(cusparseSbsrmv(h, dir, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb, nnzb, &alpha, d, val,
                                      rp, ci, dim, x, &beta, y),
                       "cusparseSbsrmv");
      else
        check_cusparse(cusparseDbsrmv(h, dir, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb, nnzb, &alpha, d, val,
                                      rp, ci, dim, x, &beta, y),
                       "cusparseDbsrmv");
#pragma GCC diagnostic pop
    });
  }

  const HostMatrix& a_;
  const BaselineOptions& options_;
  cudaStream_t stream_;
  const int v_;
  const cusparseOperation_t op_;
  const bool adjoint_blocks_;
  std::vector<double> ref_, scale_;
  double tol_ = 0, bytes_ = 0;
  Handle handle_;
  Array x_dev_, y_dev_;
  Array x_c2_;                      // x for the complex 2x2 methods, made on first use
  std::vector<double> x_host_;
  bool complex_pairs_y_ = false;    // y is in complex-pair form (a complex 2x2 method is running)
  int64_t y_len_ = 0;
};

}  // namespace

namespace {

std::vector<std::string> plain_methods(const EntryType& entry) {
  if (family_of(entry) != Family::blocks) return kScalarMethods;
  std::vector<std::string> names = kBlockMethods;
  if (is_quaternion_like(entry)) names.insert(names.end(), kQuaternionMethods.begin(), kQuaternionMethods.end());
  return names;
}

const char* kExplicit = "-explicit";
const std::string kImplicit = "cusparse-csr-alg1-implicit";
const std::string kSellImplicit = "cusparse-sell-implicit";  // real and complex only

bool has_implicit(const EntryType& entry, Op op) {
  return op == Op::h || family_of(entry) != Family::blocks;
}

// The explicit transposed matrix of op(A) for the cuSPARSE methods: A^T's pattern with A's entries,
// conjugated for complex A^H (block types get M(a)^T through Runner's adjoint_blocks instead).
HostMatrix explicit_transpose(const HostMatrix& a, Op op) {
  HostMatrix b = transpose_pattern(a);
  if (op == Op::h && family_of(a.entry) == Family::complex_csr)
    for (size_t k = 1; k < b.values.size(); k += 2) b.values[k] = -b.values[k];
  return b;
}

}  // namespace

std::vector<std::string> cusparse_methods(const EntryType& entry, Op op) {
  std::vector<std::string> names = plain_methods(entry);
  if (op == Op::n) return names;
  for (auto& n : names) n += kExplicit;
  if (has_implicit(entry, op)) names.push_back(kImplicit);
  if (family_of(entry) != Family::blocks) names.push_back(kSellImplicit);
  return names;
}

namespace {

// The methods of `names` that end in `suffix`, without it (and the result rows they belong to).
std::vector<std::string> strip(const std::vector<std::string>& names, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& n : names)
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(n.substr(0, n.size() - suffix.size()));
  return out;
}

// Runs `base` methods through `runner` into the rows named base + suffix (renamed = the implicit row).
template <typename T>
void run_into(Runner<T>& runner, const std::vector<std::string>& base, const std::string& suffix,
              const std::string& renamed, std::vector<BaselineResult>& results, double setup_us) {
  std::vector<BaselineResult> tmp;
  for (const auto& b : base) {
    BaselineResult r;
    r.method = b;
    tmp.push_back(r);
  }
  runner.run(base, tmp);
  for (auto& t : tmp)
    for (auto& r : results)
      if (r.method == (renamed.empty() ? t.method + suffix : renamed)) {
        const std::string name = r.method;
        r = t;
        r.method = name;
        r.setup_us = setup_us;
      }
}

template <typename T>
void run_methods(const HostMatrix& a, Precision p, const std::vector<double>& x, const BaselineOptions& options,
                 cudaStream_t stream, const std::vector<std::string>& names, std::vector<BaselineResult>& results) {
  const Op op = options.op;
  std::vector<double> ref = reference_apply(a, x, op), scale = reference_abs_scale(a, x, op);
  if (op == Op::n) {
    Runner<T> runner(a, p, x, options, stream, ref, scale);
    runner.run(names, results);
    return;
  }
  const std::vector<std::string> explicit_names = strip(names, kExplicit);
  if (!explicit_names.empty()) {
    const HostMatrix b = explicit_transpose(a, op);
    const bool adjoint_blocks = op == Op::h && family_of(a.entry) == Family::blocks;
    Runner<T> runner(b, p, x, options, stream, ref, scale, CUSPARSE_OPERATION_NON_TRANSPOSE, adjoint_blocks);
    double setup = 0;
    if (options.time) {
      Runner<T> conv(a, p, std::vector<double>(static_cast<size_t>(a.cols) * a.vector_components(), 0.0), options,
                     stream, {}, {});
      setup = conv.csr2csc_us();
    }
    run_into(runner, explicit_names, kExplicit, "", results, setup);
  }
  auto wants = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  if (wants(kImplicit) || wants(kSellImplicit)) {
    const bool cplx = family_of(a.entry) == Family::complex_csr;
    const cusparseOperation_t cop =
        op == Op::h && cplx ? CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE : CUSPARSE_OPERATION_TRANSPOSE;
    Runner<T> runner(a, p, x, options, stream, ref, scale, cop);
    const std::string base = family_of(a.entry) == Family::blocks ? "cusparse-csr-alg1-expanded" : "cusparse-csr-alg1";
    if (wants(kImplicit)) run_into(runner, {base}, "", kImplicit, results, 0);
    if (wants(kSellImplicit)) run_into(runner, {"cusparse-sell"}, "", kSellImplicit, results, 0);
  }
}

}  // namespace

std::vector<BaselineResult> run_cusparse_baselines(const HostMatrix& a, Precision p,
                                                   const std::vector<double>& x,
                                                   const BaselineOptions& options) {
  const Op op = options.op;
  const int64_t want_x = static_cast<int64_t>(is_transposed(op) ? a.rows : a.cols) * a.vector_components();
  if (static_cast<int64_t>(x.size()) != want_x)
    throw InvalidArgument("run_cusparse_baselines: x has " + std::to_string(x.size()) +
                          " numbers, the matrix needs " + std::to_string(want_x) + " (" +
                          (is_transposed(op) ? "rows" : "cols") + " * vector components)");
  a.validate();

  const std::vector<std::string> applicable = cusparse_methods(a.entry, op);
  std::vector<std::string> requested = options.methods.empty() ? applicable : options.methods;
  std::vector<std::string> all = all_method_names();
  for (const auto& n : all_method_names()) all.push_back(n + kExplicit);
  all.push_back(kImplicit);
  all.push_back(kSellImplicit);
  std::vector<BaselineResult> results;
  std::vector<std::string> to_run;
  for (const auto& n : requested) {
    if (std::find(all.begin(), all.end(), n) == all.end()) {
      std::string known;
      for (const auto& k : all) known += (known.empty() ? "" : ", ") + k;
      throw InvalidArgument("unknown cuSPARSE method '" + n + "' (known: " + known + ")");
    }
    if (std::any_of(results.begin(), results.end(), [&](const BaselineResult& r) { return r.method == n; }))
      continue;
    BaselineResult r;
    r.method = n;
    if (std::find(applicable.begin(), applicable.end(), n) == applicable.end())
      r.status = "unsupported: not a method for entry type '" + a.entry.name + "'";
    else
      to_run.push_back(n);
    results.push_back(std::move(r));
  }
  if (to_run.empty()) return results;

  if (a.rows == 0 || a.cols == 0) {
    for (auto& r : results)
      if (r.status.empty())
        r.status =
            "unsupported: empty matrix (" + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ")";
    return results;
  }
  if (!a.entry.supports(to_string(p))) {
    for (auto& r : results)
      if (r.status.empty())
        r.status = "unsupported: entry type '" + a.entry.name + "' is not defined in " + to_string(p);
    return results;
  }

  query_device(options.device);  // throws DeviceError (no GPU, bad ordinal) with a clear message
  cuda_check(cudaSetDevice(options.device), "cudaSetDevice(" + std::to_string(options.device) + ")");
  CudaStream stream;
  // Setup failures that concern every method (no memory for x or y, cusparseCreate) are recorded as
  // each method's status, so a caller always gets one row per method.
  try {
    if (p == Precision::f32)
      run_methods<float>(a, p, x, options, stream.get(), to_run, results);
    else
      run_methods<double>(a, p, x, options, stream.get(), to_run, results);
  } catch (const Unsupported& e) {
    for (auto& r : results)
      if (r.status.empty()) r.status = std::string("unsupported: ") + e.what();
  } catch (const std::exception& e) {
    for (auto& r : results)
      if (r.status.empty()) r.status = std::string("error: ") + e.what();
  }
  for (auto& r : results)
    if (r.status.empty()) r.status = "error: not run";  // defensive: never leave a row blank
  return results;
}

std::string cusparse_version_string() {
  int major = 0, minor = 0, patch = 0;
  if (cusparseGetProperty(MAJOR_VERSION, &major) != CUSPARSE_STATUS_SUCCESS ||
      cusparseGetProperty(MINOR_VERSION, &minor) != CUSPARSE_STATUS_SUCCESS ||
      cusparseGetProperty(PATCH_LEVEL, &patch) != CUSPARSE_STATUS_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace jitsparse
