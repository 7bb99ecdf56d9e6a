// Transparent huge pages for the host's large buffers (packing a layout allocates and fills hundreds of
// megabytes at a time; with 4 KB pages the kernel's page faults took 40-60% of packing time).
#pragma once

#include <string>

namespace jitsparse::cli {

// Where glibc is not yet asked to back malloc with transparent huge pages (the tunable
// glibc.malloc.hugetlb=1, read only at start-up), re-executes this program once with it set in
// GLIBC_TUNABLES. Returns (doing nothing) where it is already set, where JITSPARSE_NO_HUGE_PAGES is set,
// or where the re-execution fails; glibc older than 2.35 ignores the tunable.
void reexec_with_huge_pages(char** argv);

// One line for `jitsparse info`: whether this process asked glibc for huge pages, and how to turn it off.
std::string huge_pages_state();

}  // namespace jitsparse::cli
