#include "generator/hash.hpp"

#include <cstdio>

namespace jitsparse {

std::string Sha1::hex() {
  boost::uuids::detail::sha1::digest_type d;
  sha_.get_digest(d);
  char buf[41];
  for (int i = 0; i < 5; ++i) std::snprintf(buf + 8 * i, 9, "%08x", d[i]);
  return std::string(buf, 40);
}

std::string sha1_hex(const void* data, size_t bytes) {
  Sha1 h;
  h.update(data, bytes);
  return h.hex();
}

}  // namespace jitsparse
