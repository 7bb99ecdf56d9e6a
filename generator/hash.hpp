#pragma once
#include <string>

#include <boost/uuid/detail/sha1.hpp>

namespace jitsparse {

// SHA-1 (Boost's header-only implementation) for content-addressed cache keys and integrity checks.
class Sha1 {
 public:
  void update(const void* data, size_t bytes) { sha_.process_bytes(data, bytes); }
  void update(const std::string& s) {
    update(s.data(), s.size());
    const unsigned char sep = 0;  // keeps ("ab","c") apart from ("a","bc")
    update(&sep, 1);
  }
  std::string hex();

 private:
  boost::uuids::detail::sha1 sha_;
};

std::string sha1_hex(const void* data, size_t bytes);

}  // namespace jitsparse
