#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/layout.hpp"
#include "core/precision.hpp"

namespace jitsparse {

enum class ScheduleKind { static_, dynamic };

// How the kernel is launched: n_t threads per block, n_b blocks per SM (grid = n_b x SM count, and
// both go into __launch_bounds__), threads_per_row threads sharing one row (1..32, divides 32).
struct Schedule {
  ScheduleKind kind = ScheduleKind::static_;
  int threads = 256;
  int blocks_per_sm = 2;
  int threads_per_row = 1;

  // "static-256x2", "dynamic-128x4-tpr8" (tpr shown only when > 1)
  std::string name() const;
  static Schedule parse(const std::string& s);  // throws InvalidArgument
  bool operator==(const Schedule& o) const {
    return kind == o.kind && threads == o.threads && blocks_per_sm == o.blocks_per_sm &&
           threads_per_row == o.threads_per_row;
  }
};

// One point of the search space: what the generator instantiates.
struct Variant {
  std::string entry = "real";
  Precision precision = Precision::f64;
  Layout layout;
  Schedule schedule;

  // Canonical name, e.g. "quaternion.f64/ell-soa-aos/static-256x2"; parse() reads it back.
  std::string name() const;
  static Variant parse(const std::string& s);
  bool operator==(const Variant& o) const {
    return entry == o.entry && precision == o.precision && layout == o.layout && schedule == o.schedule;
  }
};

void to_json(nlohmann::json& j, const Variant& v);
void from_json(const nlohmann::json& j, Variant& v);

// Throws InvalidArgument when a schedule is outside what the kernels or the GPU accept.
void check_schedule(const Schedule& s, int max_threads_per_block = 1024, int max_threads_per_sm = 2048,
                    int max_blocks_per_sm = 32);

}  // namespace jitsparse
