#include "bench/cusparse_add.hpp"

#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <library_types.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/matrix_add.hpp"
#include "core/reference.hpp"
#include "bench/cusparse_util.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/cuda_stream.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_info.hpp"

namespace jitsparse {
namespace {

using namespace cusparse_util;  // Unsupported, check_cusparse, record_status, the RAII handles, is_complex

// cuSPARSE may reject a null array even where it is empty (DeviceBuffer gives null for 0 bytes).
DeviceBuffer device_array(size_t bytes, const std::string& what) {
  return DeviceBuffer(std::max<size_t>(bytes, 16), what);
}
template <typename T>
DeviceBuffer upload(const std::vector<T>& v, cudaStream_t stream, const std::string& what) {
  DeviceBuffer d = device_array(v.size() * sizeof(T), what);
  if (!v.empty()) d.upload(v.data(), v.size() * sizeof(T), stream);
  return d;
}
template <typename T>
std::vector<T> download(const DeviceBuffer& d, size_t count, cudaStream_t stream) {
  std::vector<T> v(count);
  if (count > 0) d.download(v.data(), count * sizeof(T), stream);
  return v;
}

// The entry type of cuSPARSE's real scalar form (add_matrices only needs a name and one component).
EntryType scalar_entry() {
  EntryType e;
  e.name = "scalar";
  e.components = {"v"};
  e.vector_components = {"v"};
  e.terms = {{0, 0, 0, 1.0}};
  return e;
}

// The matrix as cuSPARSE holds it: complex entries as they are; any other type as the real
// (rows*V) x (cols*V) CSR whose block (i, j) is M(a_ij) (M(a_ij)^T with transpose_blocks), stored whole.
HostMatrix scalar_form(const HostMatrix& m, bool cplx, bool transpose_blocks) {
  if (cplx) return m;
  const int v = m.vector_components();
  const size_t bs = static_cast<size_t>(v) * v;
  HostMatrix s;
  s.entry = scalar_entry();
  s.name = m.name;
  s.rows = m.rows * v;  // sizes checked by the caller
  s.cols = m.cols * v;
  s.row_ptr.assign(static_cast<size_t>(s.rows) + 1, 0);
  s.col_idx.reserve(static_cast<size_t>(m.nnz()) * bs);
  s.values.reserve(static_cast<size_t>(m.nnz()) * bs);
  std::vector<double> blocks;  // the blocks of one row
  for (int32_t i = 0; i < m.rows; ++i) {
    const int32_t begin = m.row_ptr[i], end = m.row_ptr[i + 1];
    blocks.assign(static_cast<size_t>(end - begin) * bs, 0.0);
    for (int32_t k = begin; k < end; ++k) {  // M(a) from the terms, as EntryType::expansion sums them
      double* blk = blocks.data() + static_cast<size_t>(k - begin) * bs;
      const double* e = m.entry_values(k);
      for (const auto& t : m.entry.terms)
        (transpose_blocks ? blk[static_cast<size_t>(t.x) * v + t.out]
                          : blk[static_cast<size_t>(t.out) * v + t.x]) += t.coeff * e[t.a];
    }
    for (int r = 0; r < v; ++r) {
      for (int32_t k = begin; k < end; ++k)
        for (int c = 0; c < v; ++c) {
          s.col_idx.push_back(m.col_idx[k] * v + c);
          s.values.push_back(blocks[static_cast<size_t>(k - begin) * bs + static_cast<size_t>(r) * v + c]);
        }
      s.row_ptr[static_cast<size_t>(i) * v + r + 1] = static_cast<int32_t>(s.col_idx.size());
    }
  }
  return s;
}

HostMatrix abs_values(HostMatrix m) {
  for (double& x : m.values) x = std::fabs(x);
  return m;
}

// The csrgeam2 functions of one value type.
template <typename V>
struct Geam2 {
  cusparseStatus_t (*buffer_size)(cusparseHandle_t, int, int, const V*, const cusparseMatDescr_t, int,
                                  const V*, const int*, const int*, const V*, const cusparseMatDescr_t, int,
                                  const V*, const int*, const int*, const cusparseMatDescr_t, const V*,
                                  const int*, const int*, size_t*);
  cusparseStatus_t (*compute)(cusparseHandle_t, int, int, const V*, const cusparseMatDescr_t, int, const V*,
                              const int*, const int*, const V*, const cusparseMatDescr_t, int, const V*,
                              const int*, const int*, const cusparseMatDescr_t, V*, int*, int*, void*);
  const char* name;
  cudaDataType type;
};
// Newer toolkits may mark the legacy API deprecated; it is still what a cuSPARSE user calls for C = A + B.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
Geam2<float> geam2(float) {
  return {cusparseScsrgeam2_bufferSizeExt, cusparseScsrgeam2, "cusparseScsrgeam2", CUDA_R_32F};
}
Geam2<double> geam2(double) {
  return {cusparseDcsrgeam2_bufferSizeExt, cusparseDcsrgeam2, "cusparseDcsrgeam2", CUDA_R_64F};
}
Geam2<cuComplex> geam2(cuComplex) {
  return {cusparseCcsrgeam2_bufferSizeExt, cusparseCcsrgeam2, "cusparseCcsrgeam2", CUDA_C_32F};
}
Geam2<cuDoubleComplex> geam2(cuDoubleComplex) {
  return {cusparseZcsrgeam2_bufferSizeExt, cusparseZcsrgeam2, "cusparseZcsrgeam2", CUDA_C_64F};
}
#pragma GCC diagnostic pop

template <typename V>
V make_scalar(double x) {
  if constexpr (std::is_same_v<V, cuComplex>)
    return make_cuComplex(static_cast<float>(x), 0.f);
  else if constexpr (std::is_same_v<V, cuDoubleComplex>)
    return make_cuDoubleComplex(x, 0.0);
  else
    return static_cast<V>(x);
}

// A CSR on the GPU in cuSPARSE's form; values are k = 1 or 2 scalars S per element.
struct DeviceCsr {
  int rows = 0, cols = 0, nnz = 0;
  DeviceBuffer row_ptr, col_idx, values;
};

// V: float, double, cuComplex or cuDoubleComplex; S: its real scalar.
template <typename V>
class AddRunner {
  static constexpr bool kComplex = std::is_same_v<V, cuComplex> || std::is_same_v<V, cuDoubleComplex>;
  using S = std::conditional_t<std::is_same_v<V, float> || std::is_same_v<V, cuComplex>, float, double>;
  static constexpr int kScalars = kComplex ? 2 : 1;  // S per element of V

 public:
  AddRunner(const AddBaselineOptions& options, cudaStream_t stream, double tol)
      : options_(options), stream_(stream), tol_(tol) {}

  void run(const HostMatrix& a, const HostMatrix& b, double alpha, double beta, AddBaselineResult& r) {
    const Op op = options_.op;
    const bool transposed = op != Op::n;
    const bool expanded = !kComplex && a.vector_components() > 1;
    // What goes to the GPU: for op t the expansion holds M(a)^T, so that csr2csc restores M(a) at (j, i);
    // for op h it holds M(a), whose csr2csc is A^H's expansion (see cusparse_add.hpp).
    const HostMatrix sa = scalar_form(a, kComplex, op == Op::t && expanded);
    const HostMatrix sb = scalar_form(b, kComplex, op == Op::t && expanded);

    // The reference: add_matrices of op(A), op(B) in the entry type, then cuSPARSE's form of it. The
    // tolerance scale |alpha op(A)| + |beta op(B)| per scalar comes from the uploaded forms.
    HostMatrix ref, scale;
    {
      const HostMatrix op_a = transposed ? transpose_pattern(a) : a,
                       op_b = transposed ? transpose_pattern(b) : b;
      ref = scalar_form(add_matrices(op_a, op_b, alpha, beta), kComplex, op == Op::h && expanded);
    }
    scale = transposed ? add_matrices(abs_values(transpose_pattern(sa)), abs_values(transpose_pattern(sb)),
                                      std::fabs(alpha), std::fabs(beta))
                       : add_matrices(abs_values(sa), abs_values(sb), std::fabs(alpha), std::fabs(beta));
    if (scale.col_idx != ref.col_idx || scale.row_ptr != ref.row_ptr)
      throw Error("internal: the reference and its scale have different patterns");

    handle_ = make_handle(stream_);
    descr_ = make_descr();
    DeviceCsr da = upload_csr(sa, "A"), db = upload_csr(sb, "B");
    DeviceCsr ta, tb;  // op t/h: csr2csc of A and B, allocated once
    DeviceBuffer convert_work;
    if (transposed) {
      ta = alloc_csr(da.cols, da.rows, da.nnz, "A^T");
      tb = alloc_csr(db.cols, db.rows, db.nnz, "B^T");
      convert_work =
          device_array(std::max(csr2csc_buffer(da, ta), csr2csc_buffer(db, tb)), "csr2csc work buffer");
    }
    const DeviceCsr& oa = transposed ? ta : da;
    const DeviceCsr& ob = transposed ? tb : db;
    const int m = oa.rows, n = oa.cols;
    const int64_t capacity = int64_t{oa.nnz} + ob.nnz;  // nnz(C) <= nnz(A) + nnz(B), checked by the caller
    DeviceCsr c = alloc_csr(m, n, static_cast<int>(capacity), "C");
    const size_t elem = sizeof(S) * kScalars;
    r.allocated_bytes = static_cast<int64_t>((static_cast<size_t>(m) + 1) * sizeof(int) +
                                             static_cast<size_t>(capacity) * (sizeof(int) + elem));

    const Geam2<V> api = geam2(V{});
    const V alpha_v = make_scalar<V>(alpha), beta_v = make_scalar<V>(beta);
    cusparseHandle_t h = handle_.get();
    cusparseMatDescr_t d = descr_.get();
    size_t work_bytes = 0;
    check_cusparse(api.buffer_size(h, m, n, &alpha_v, d, oa.nnz, oa.values.as<V>(), oa.row_ptr.as<int>(),
                          oa.col_idx.as<int>(), &beta_v, d, ob.nnz, ob.values.as<V>(), ob.row_ptr.as<int>(),
                          ob.col_idx.as<int>(), d, c.values.as<V>(), c.row_ptr.as<int>(), c.col_idx.as<int>(),
                          &work_bytes),
          "csrgeam2_bufferSizeExt");
    DeviceBuffer work = device_array(work_bytes, "csrgeam2 work buffer");

    auto convert = [&] {
      csr2csc(da, ta, convert_work.get());
      csr2csc(db, tb, convert_work.get());
    };
    int nnz_c = -1;  // written by every call (host pointer mode)
    auto launch = [&] {
      if (transposed) convert();
      int nnz = 0;
      check_cusparse(cusparseXcsrgeam2Nnz(h, m, n, d, oa.nnz, oa.row_ptr.as<int>(), oa.col_idx.as<int>(), d, ob.nnz,
                                 ob.row_ptr.as<int>(), ob.col_idx.as<int>(), d, c.row_ptr.as<int>(), &nnz,
                                 work.get()),
            "cusparseXcsrgeam2Nnz");
      if (nnz < 0 || nnz > capacity)
        throw Error("cusparseXcsrgeam2Nnz reported " + std::to_string(nnz) +
                    " entries, beyond nnz(A) + nnz(B) = " + std::to_string(capacity));
      nnz_c = nnz;
      check_cusparse(api.compute(h, m, n, &alpha_v, d, oa.nnz, oa.values.as<V>(), oa.row_ptr.as<int>(),
                        oa.col_idx.as<int>(), &beta_v, d, ob.nnz, ob.values.as<V>(), ob.row_ptr.as<int>(),
                        ob.col_idx.as<int>(), d, c.values.as<V>(), c.row_ptr.as<int>(), c.col_idx.as<int>(),
                        work.get()),
            api.name);
    };

    r.detail = std::string(kComplex   ? "complex csr "
                           : expanded ? "real expansion ("
                                      : "real csr ") +
               (expanded ? std::to_string(a.vector_components()) + "x" +
                               std::to_string(a.vector_components()) + " blocks) "
                         : "") +
               std::to_string(m) + " x " + std::to_string(n) + ", nnz " + std::to_string(oa.nnz) + " + " +
               std::to_string(ob.nnz);

    // The checked call, from a poisoned C (all-ones bytes: -1 indices, NaN values).
    for (DeviceBuffer* buf : {&c.row_ptr, &c.col_idx, &c.values})
      cuda_check(cudaMemsetAsync(buf->get(), 0xFF, buf->bytes(), stream_), "cudaMemsetAsync (poison C)");
    launch();
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (checked call of " + r.method + ")");
    cuda_check(cudaGetLastError(), "the checked call of " + r.method);
    r.nnz_c = nnz_c;
    r.device_bytes = static_cast<int64_t>((static_cast<size_t>(m) + 1) * sizeof(int) +
                                          static_cast<size_t>(nnz_c) * (sizeof(int) + elem));
    r.detail += " -> " + std::to_string(nnz_c);
    if (!verify(c, nnz_c, ref, scale, r)) return;  // never time a wrong result

    if (options_.time) {
      TimingResult t = time_on_stream(stream_, launch, options_.timing);
      r.median_us = t.median_us;
      r.q1_us = t.q1_us;
      r.q3_us = t.q3_us;
      r.samples_us = std::move(t.samples_us);
      r.reps_per_sample = t.reps_per_sample;
      if (transposed) r.convert_us = time_on_stream(stream_, convert, options_.timing).median_us;
    }
    r.status = "ok";
  }

 private:
  static MatDescr make_descr() {  // general, zero-based: for A, B and C alike
    cusparseMatDescr_t d = nullptr;
    check_cusparse(cusparseCreateMatDescr(&d), "cusparseCreateMatDescr");
    MatDescr owned(d);
    check_cusparse(cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL), "cusparseSetMatType");
    check_cusparse(cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ZERO), "cusparseSetMatIndexBase");
    return owned;
  }

  DeviceCsr upload_csr(const HostMatrix& s, const std::string& what) const {
    DeviceCsr d;
    d.rows = s.rows;
    d.cols = s.cols;
    d.nnz = static_cast<int>(s.nnz());
    d.row_ptr = upload(s.row_ptr, stream_, what + " row offsets");
    d.col_idx = upload(s.col_idx, stream_, what + " column indices");
    d.values = upload(std::vector<S>(s.values.begin(), s.values.end()), stream_, what + " values");
    return d;
  }
  DeviceCsr alloc_csr(int rows, int cols, int nnz, const std::string& what) const {
    DeviceCsr d;
    d.rows = rows;
    d.cols = cols;
    d.nnz = nnz;
    d.row_ptr = device_array((static_cast<size_t>(rows) + 1) * sizeof(int), what + " row offsets");
    d.col_idx = device_array(static_cast<size_t>(nnz) * sizeof(int), what + " column indices");
    d.values = device_array(static_cast<size_t>(nnz) * kScalars * sizeof(S), what + " values");
    return d;
  }

  // CSC of `in` is CSR of its transpose: written into out's arrays (out.rows = in.cols).
  size_t csr2csc_buffer(const DeviceCsr& in, DeviceCsr& out) const {
    size_t size = 0;
    check_cusparse(cusparseCsr2cscEx2_bufferSize(handle_.get(), in.rows, in.cols, in.nnz, in.values.get(),
                                        in.row_ptr.as<int>(), in.col_idx.as<int>(), out.values.get(),
                                        out.row_ptr.as<int>(), out.col_idx.as<int>(), geam2(V{}).type,
                                        CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                        CUSPARSE_CSR2CSC_ALG1, &size),
          "cusparseCsr2cscEx2_bufferSize");
    return size;
  }
  void csr2csc(const DeviceCsr& in, DeviceCsr& out, void* work) const {
    check_cusparse(cusparseCsr2cscEx2(handle_.get(), in.rows, in.cols, in.nnz, in.values.get(), in.row_ptr.as<int>(),
                             in.col_idx.as<int>(), out.values.get(), out.row_ptr.as<int>(),
                             out.col_idx.as<int>(), geam2(V{}).type, CUSPARSE_ACTION_NUMERIC,
                             CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, work),
          "cusparseCsr2cscEx2");
  }

  // C against the reference: the pattern exactly, the values within tol of the scale. Sets "wrong".
  bool verify(const DeviceCsr& c, int nnz_c, const HostMatrix& ref, const HostMatrix& scale,
              AddBaselineResult& r) {
    auto wrong = [&](const std::string& why) {
      r.status = "wrong";
      r.detail = why + " (" + r.detail + ")";
      return false;
    };
    if (ref.rows != c.rows)
      throw Error("internal: the reference has " + std::to_string(ref.rows) + " rows, C " +
                  std::to_string(c.rows));
    const std::vector<int32_t> row_ptr =
        download<int32_t>(c.row_ptr, static_cast<size_t>(c.rows) + 1, stream_);
    if (row_ptr[0] != 0) return wrong("C's row offsets do not start at 0");
    if (nnz_c != ref.nnz())
      return wrong("C has " + std::to_string(nnz_c) + " stored elements, the union of the patterns " +
                   std::to_string(ref.nnz()));
    const std::vector<int32_t> col_idx = download<int32_t>(c.col_idx, static_cast<size_t>(nnz_c), stream_);
    for (int32_t i = 0; i < c.rows; ++i) {
      const bool same_row =
          row_ptr[i + 1] == ref.row_ptr[i + 1] &&
          std::equal(ref.col_idx.begin() + ref.row_ptr[i], ref.col_idx.begin() + ref.row_ptr[i + 1],
                     col_idx.begin() + ref.row_ptr[i]);
      if (!same_row) return wrong("the pattern of C differs from the union's in row " + std::to_string(i));
    }
    const std::vector<S> vt = download<S>(c.values, static_cast<size_t>(nnz_c) * kScalars, stream_);
    const std::vector<double> got(vt.begin(), vt.end());
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double diff = std::fabs(got[i] - ref.values[i]);
      worst = std::max(worst, !std::isfinite(diff)  ? std::numeric_limits<double>::infinity()
                              : scale.values[i] > 0 ? diff / scale.values[i]
                              : diff > 0            ? std::numeric_limits<double>::infinity()
                                                    : 0.0);
    }
    r.max_rel_error = worst;
    const VerifyResult v = verify_result(got, ref.values, scale.values, tol_);
    if (!v.ok) {
      const int64_t k = v.first_bad / kScalars;  // the stored element
      const auto row = std::upper_bound(ref.row_ptr.begin(), ref.row_ptr.end(), k) - ref.row_ptr.begin() - 1;
      return wrong(v.message + "; element " + std::to_string(k) + " of C: row " + std::to_string(row) +
                   ", column " + std::to_string(ref.col_idx[static_cast<size_t>(k)]));
    }
    return true;
  }

  const AddBaselineOptions& options_;
  cudaStream_t stream_;
  double tol_;
  Handle handle_;
  MatDescr descr_;
};

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

}  // namespace

std::string cusparse_add_method(const EntryType& entry, Op op) {
  std::string name = op == Op::n ? "cusparse-csrgeam2" : "cusparse-csr2csc+csrgeam2";
  if (!is_complex(entry) && entry.num_vector_components() > 1) name += "-expanded";
  return name;
}

AddBaselineResult run_cusparse_add(const HostMatrix& a, const HostMatrix& b, double alpha, double beta,
                                   Precision p, const AddBaselineOptions& options) {
  // Caller errors, before any GPU work.
  if (a.entry.name != b.entry.name || a.components() != b.components())
    throw InvalidArgument("run_cusparse_add: entry types differ ('" + a.entry.name + "' and '" +
                          b.entry.name + "')");
  if (a.rows != b.rows || a.cols != b.cols)
    throw InvalidArgument("run_cusparse_add: sizes differ (" + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + " and " + std::to_string(b.rows) + " x " +
                          std::to_string(b.cols) + ")");
  if (!std::isfinite(alpha) || !std::isfinite(beta))
    throw InvalidArgument("run_cusparse_add: alpha and beta must be finite");
  a.validate();
  b.validate();

  const Op op = options.op;
  AddBaselineResult r;
  r.method = cusparse_add_method(a.entry, op);
  const bool cplx = is_complex(a.entry);
  const int64_t v = cplx ? 1 : a.vector_components();
  const int64_t scalars_a = a.nnz() * v * v, scalars_b = b.nnz() * v * v;
  if (a.rows == 0 || a.cols == 0)
    r.status = "unsupported: empty matrix (" + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ")";
  else if (!a.entry.supports(to_string(p)))
    r.status = "unsupported: entry type '" + a.entry.name + "' is not defined in " + to_string(p);
  else if (op == Op::h && cplx)
    r.status = "unsupported: op h of complex entries (cusparseCsr2cscEx2 does not conjugate)";
  else if (op == Op::h && !a.entry.has_adjoint)
    r.status = "unsupported: entry type '" + a.entry.name + "' has no adjoint";
  else if (a.rows * v > kInt32Max - 1 || a.cols * v > kInt32Max - 1 || scalars_a + scalars_b > kInt32Max)
    r.status = "unsupported: too large for cuSPARSE's 32-bit indices (" + std::to_string(scalars_a) + " + " +
               std::to_string(scalars_b) + " stored elements of " + std::to_string(a.rows * v) + " x " +
               std::to_string(a.cols * v) + ")";
  if (!r.status.empty()) return r;

  query_device(options.device);  // throws DeviceError (no GPU, bad ordinal) with a clear message
  cuda_check(cudaSetDevice(options.device), "cudaSetDevice(" + std::to_string(options.device) + ")");
  record_status(r.status, [&] {
    CudaStream stream;
    const double tol = default_tolerance(p);
    if (p == Precision::f32) {
      if (cplx)
        AddRunner<cuComplex>(options, stream.get(), tol).run(a, b, alpha, beta, r);
      else
        AddRunner<float>(options, stream.get(), tol).run(a, b, alpha, beta, r);
    } else {
      if (cplx)
        AddRunner<cuDoubleComplex>(options, stream.get(), tol).run(a, b, alpha, beta, r);
      else
        AddRunner<double>(options, stream.get(), tol).run(a, b, alpha, beta, r);
    }
  }, "no status recorded");
  return r;
}

}  // namespace jitsparse
