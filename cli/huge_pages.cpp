#include "cli/huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace jitsparse::cli {

void reexec_with_huge_pages(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
  if (std::getenv("JITSPARSE_NO_HUGE_PAGES")) return;
  const char* current = std::getenv("GLIBC_TUNABLES");
  std::string tunables = current ? current : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;  // set (by us or the user)
  tunables = tunables.empty() ? kTunable : tunables + ":" + kTunable;
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: go on as we are
  if (current)
    setenv("GLIBC_TUNABLES", current, 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

std::string huge_pages_state() {
  if (std::getenv("JITSPARSE_NO_HUGE_PAGES")) return "off (JITSPARSE_NO_HUGE_PAGES is set)";
  const char* t = std::getenv("GLIBC_TUNABLES");
  if (t && std::string(t).find("glibc.malloc.hugetlb=1") != std::string::npos)
    return "requested from glibc (GLIBC_TUNABLES glibc.malloc.hugetlb=1; JITSPARSE_NO_HUGE_PAGES=1 turns it off)";
  return "not requested (GLIBC_TUNABLES sets glibc.malloc.hugetlb otherwise, or the re-execution failed)";
}

}  // namespace jitsparse::cli
