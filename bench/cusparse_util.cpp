#include "bench/cusparse_util.hpp"

#include <new>
#include <string>
#include <vector>

namespace jitsparse::cusparse_util {

void check_cusparse(cusparseStatus_t s, const char* what) {
  if (s == CUSPARSE_STATUS_SUCCESS) return;
  const std::string msg =
      std::string(what) + " returned " + cusparseGetErrorName(s) + ": " + cusparseGetErrorString(s);
  if (s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED) throw Unsupported(msg);
  throw DeviceError(msg);
}

void record_status(std::string& status, const std::function<void()>& body, const char* blank) {
  try {
    body();
  } catch (const Unsupported& e) {
    status = std::string("unsupported: ") + e.what();
  } catch (const std::bad_alloc&) {
    status = "error: out of host memory";
  } catch (const std::exception& e) {
    status = std::string("error: ") + e.what();
  }
  if (status.empty()) status = std::string("error: ") + blank;  // defensive: never blank
}

Handle make_handle(cudaStream_t stream) {
  cusparseHandle_t h = nullptr;
  check_cusparse(cusparseCreate(&h), "cusparseCreate");
  Handle owned(h);
  check_cusparse(cusparseSetStream(h, stream), "cusparseSetStream");
  check_cusparse(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_HOST), "cusparseSetPointerMode");
  return owned;
}

bool is_complex(const EntryType& e) {
  if (e.num_components() != 2 || e.num_vector_components() != 2) return false;
  const double probe[2] = {0.375, -1.625};
  const std::vector<double> m = e.expansion(probe);
  return m[0] == probe[0] && m[1] == -probe[1] && m[2] == probe[1] && m[3] == probe[0];
}

}  // namespace jitsparse::cusparse_util
