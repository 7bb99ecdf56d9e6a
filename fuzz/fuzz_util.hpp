#pragma once
// Shared by the fuzz targets: what counts as a finding. A reader may reject input only with a ParseError
// whose message starts with the file name (and, for text, ":<line>:"); any other exception escapes to
// libFuzzer (a crash), and a result that breaks the reader's own promises aborts with a message.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace jitsparse::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::abort();
}

inline void require(bool ok, const std::string& what) {
  if (!ok) finding(what);
}

// "<file>:<digits>: ..." (a text line), or, with `byte_offsets`, also "<file>: byte <digits>: ...".
inline bool names_file_and_line(const std::string& message, const std::string& file, bool byte_offsets = false) {
  if (message.rfind(file, 0) != 0) return false;
  size_t i = file.size();
  if (byte_offsets && message.compare(i, 7, ": byte ") == 0)
    i += 7;
  else if (i < message.size() && message[i] == ':')
    ++i;
  else
    return false;
  const size_t digits = i;
  while (i < message.size() && std::isdigit(static_cast<unsigned char>(message[i]))) ++i;
  return i > digits && message.compare(i, 2, ": ") == 0;
}

// Runs f; true when it returned. A ParseError is an expected rejection if `message_ok` accepts its text.
template <class F, class MessageCheck>
bool accepted(F&& f, MessageCheck&& message_ok) {
  try {
    f();
    return true;
  } catch (const ParseError& e) {
    if (!message_ok(std::string(e.what()))) finding(std::string("badly formed error message: ") + e.what());
    return false;
  }
}

}  // namespace jitsparse::fuzz
