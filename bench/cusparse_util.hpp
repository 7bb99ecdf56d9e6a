#pragma once
#include <functional>
#include <memory>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "core/entry_type.hpp"
#include "core/error.hpp"

namespace jitsparse::cusparse_util {

// What the cuSPARSE baselines (SpMV: bench/cusparse_baseline.cpp; A + B: bench/cusparse_add.cpp) share.

// cuSPARSE said CUSPARSE_STATUS_NOT_SUPPORTED (or we know it cannot take the matrix): the method is
// "unsupported", not an error.
struct Unsupported : Error {
  using Error::Error;
};

// Throws Unsupported for NOT_SUPPORTED and MATRIX_TYPE_NOT_SUPPORTED, DeviceError for any other failure;
// the message names the call.
void check_cusparse(cusparseStatus_t s, const char* what);

// Runs one method's body and records how it failed in `status` (left as the body set it on success):
// "unsupported: ..." for Unsupported, "error: ..." for any other exception (host memory included), and
// "error: <blank>" when the body set no status at all, so a row is never blank.
void record_status(std::string& status, const std::function<void()>& body, const char* blank);

// RAII for cuSPARSE objects.
struct HandleDeleter {
  void operator()(cusparseHandle_t h) const { cusparseDestroy(h); }
};
struct SpMatDeleter {
  void operator()(cusparseSpMatDescr_t m) const { cusparseDestroySpMat(m); }
};
struct DnVecDeleter {
  void operator()(cusparseDnVecDescr_t v) const { cusparseDestroyDnVec(v); }
};
struct MatDescrDeleter {
  void operator()(cusparseMatDescr_t d) const { cusparseDestroyMatDescr(d); }
};
using Handle = std::unique_ptr<std::remove_pointer_t<cusparseHandle_t>, HandleDeleter>;
using SpMat = std::unique_ptr<std::remove_pointer_t<cusparseSpMatDescr_t>, SpMatDeleter>;
using DnVec = std::unique_ptr<std::remove_pointer_t<cusparseDnVecDescr_t>, DnVecDeleter>;
using MatDescr = std::unique_ptr<std::remove_pointer_t<cusparseMatDescr_t>, MatDescrDeleter>;

// A handle on `stream`, scalars passed from the host.
Handle make_handle(cudaStream_t stream);

// True when the entry is the complex numbers with components (re, im): then the aos values are exactly
// cuComplex / cuDoubleComplex. Checked on the multiplication itself, not the name, so a renamed user copy
// also qualifies and a look-alike with another product does not.
bool is_complex(const EntryType& e);

}  // namespace jitsparse::cusparse_util
