#pragma once
#include <stdexcept>
#include <string>

namespace jitsparse {

// Every failure the library reports is one of these; the CLI prints what() and exits non-zero.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A malformed input file: what() names the file and the line.
struct ParseError : Error {
  using Error::Error;
};
// A size, index or value outside what the operation accepts.
struct InvalidArgument : Error {
  using Error::Error;
};
// No usable GPU, an unsupported architecture, a failed CUDA call.
struct DeviceError : Error {
  using Error::Error;
};
// NVRTC rejected generated source; what() holds the log.
struct CompileError : Error {
  using Error::Error;
};

}  // namespace jitsparse
