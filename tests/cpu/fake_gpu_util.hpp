// A GPU described, not present: what the CPU tests give the tuning database and run-time selection.
#pragma once
#include <string>

#include "runtime/device_info.hpp"

namespace jitsparse::test {

// An sm_90 part with 4 SMs and the H100's thread limits (described_device); the name picks the database file.
inline DeviceInfo fake_gpu(const std::string& name = "Test GPU", long long l2_bytes = 0) {
  DeviceInfo d = described_device(l2_bytes);
  d.name = name;
  d.major = 9;
  d.sm_count = 4;
  return d;
}

}  // namespace jitsparse::test
