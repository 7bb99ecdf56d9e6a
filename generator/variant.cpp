#include "generator/variant.hpp"

#include <cstdlib>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace jitsparse {

std::string to_string(TransposeKind k) { return k == TransposeKind::copy ? "copy" : "atomic"; }

std::string Schedule::name() const {
  const char* k = kind == ScheduleKind::static_ ? "static-" : kind == ScheduleKind::dynamic ? "dynamic-" : "hola-";
  std::string s = k + std::to_string(threads) + "x" + std::to_string(blocks_per_sm);
  if (kind == ScheduleKind::hola) return s + "-ept" + std::to_string(entries_per_thread);
  if (threads_per_row > 1) s += "-tpr" + std::to_string(threads_per_row);
  return s;
}

Schedule Schedule::parse(const std::string& s) {
  static const std::regex re(R"((static|dynamic)-(\d{1,5})x(\d{1,3})(?:-tpr(\d{1,3}))?)");
  static const std::regex hola(R"(hola-(\d{1,5})x(\d{1,3})-ept(\d{1,3}))");
  std::smatch m;
  Schedule r;
  if (std::regex_match(s, m, hola)) {
    r.kind = ScheduleKind::hola;
    r.threads = std::atoi(m[1].str().c_str());
    r.blocks_per_sm = std::atoi(m[2].str().c_str());
    r.entries_per_thread = std::atoi(m[3].str().c_str());
  } else if (std::regex_match(s, m, re)) {
    r.kind = m[1] == "static" ? ScheduleKind::static_ : ScheduleKind::dynamic;
    r.threads = std::atoi(m[2].str().c_str());
    r.blocks_per_sm = std::atoi(m[3].str().c_str());
    r.threads_per_row = m[4].matched ? std::atoi(m[4].str().c_str()) : 1;
  } else {
    throw InvalidArgument("cannot read schedule '" + s +
                          "' (expected e.g. static-256x2, dynamic-128x4-tpr8 or hola-256x8-ept4)");
  }
  check_schedule(r);
  return r;
}

void check_schedule(const Schedule& s, int max_threads_per_block, int max_threads_per_sm, int max_blocks_per_sm) {
  const std::string n = s.name();
  if (s.threads < 32 || s.threads % 32 != 0 || s.threads > max_threads_per_block)
    throw InvalidArgument("schedule " + n + ": threads per block must be a multiple of 32 up to " +
                          std::to_string(max_threads_per_block));
  if (s.blocks_per_sm < 1 || s.blocks_per_sm > max_blocks_per_sm ||
      s.blocks_per_sm * s.threads > max_threads_per_sm)
    throw InvalidArgument("schedule " + n + ": blocks per SM x threads per block must stay within " +
                          std::to_string(max_threads_per_sm) + " threads and " +
                          std::to_string(max_blocks_per_sm) + " blocks per SM");
  const int t = s.threads_per_row;
  if (t < 1 || t > 32 || (32 % t) != 0)
    throw InvalidArgument("schedule " + n + ": threads per row must be 1, 2, 4, 8, 16 or 32");
  if (s.kind == ScheduleKind::hola) {
    const int e = s.entries_per_thread;
    if (t != 1) throw InvalidArgument("schedule " + n + ": a hola schedule has no threads per row");
    if (e < 1 || e > 32 || (e & (e - 1)) != 0)
      throw InvalidArgument("schedule " + n + ": entries per thread must be 1, 2, 4, 8, 16 or 32");
  } else if (s.entries_per_thread != 1) {
    throw InvalidArgument("schedule " + n + ": entries per thread belong to hola schedules only");
  }
}

void check_variant(const Variant& v, int max_threads_per_block, int max_threads_per_sm, int max_blocks_per_sm) {
  check_schedule(v.schedule, max_threads_per_block, max_threads_per_sm, max_blocks_per_sm);
  const bool hola_layout = v.layout.outer == OuterLayout::hola, hola_schedule = v.schedule.kind == ScheduleKind::hola;
  if (hola_layout != hola_schedule)
    throw InvalidArgument("variant " + v.name() + ": " +
                          (hola_layout ? "a hola layout needs a hola schedule (e.g. hola-256x8-ept4)"
                                       : "a hola schedule runs on hola layouts only (e.g. hola-aos-aos)"));
}

bool Variant::deterministic() const {
  if (layout.outer == OuterLayout::hola) return false;
  return op == Op::n || transpose == TransposeKind::copy;
}

bool Variant::has_prologue() const {
  return layout.outer == OuterLayout::hola || (op != Op::n && transpose == TransposeKind::atomic);
}

std::string Variant::name() const {
  std::string n = entry + "." + to_string(precision) + "/" + layout.name() + "/" + schedule.name();
  if (op != Op::n) n += "/" + to_string(op) + "-" + to_string(transpose);
  return n;
}

Variant Variant::parse(const std::string& s) {
  const auto a = s.find('/'), b = s.find('/', a == std::string::npos ? a : a + 1);
  const auto dot = s.rfind('.', a);
  if (a == std::string::npos || b == std::string::npos || dot == std::string::npos)
    throw InvalidArgument("cannot read variant '" + s + "' (expected e.g. quaternion.f64/ell-soa-aos/static-256x2)");
  Variant v;
  v.entry = s.substr(0, dot);
  v.precision = parse_precision(s.substr(dot + 1, a - dot - 1));
  v.layout = Layout::parse(s.substr(a + 1, b - a - 1));
  const auto c = s.find('/', b + 1);
  v.schedule = Schedule::parse(s.substr(b + 1, c == std::string::npos ? std::string::npos : c - b - 1));
  if (c != std::string::npos) {
    const std::string op = s.substr(c + 1);
    const auto dash = op.find('-');
    if (dash == std::string::npos)
      throw InvalidArgument("cannot read the operation '" + op + "' of variant '" + s +
                            "' (expected t-atomic, t-copy, h-atomic or h-copy)");
    v.op = parse_op(op.substr(0, dash));
    const std::string kind = op.substr(dash + 1);
    if (v.op == Op::n || (kind != "atomic" && kind != "copy"))
      throw InvalidArgument("cannot read the operation '" + op + "' of variant '" + s +
                            "' (expected t-atomic, t-copy, h-atomic or h-copy)");
    v.transpose = kind == "copy" ? TransposeKind::copy : TransposeKind::atomic;
  }
  check_variant(v);
  return v;
}

void to_json(nlohmann::json& j, const Variant& v) {
  j = nlohmann::json{{"name", v.name()},
                     {"entry", v.entry},
                     {"precision", to_string(v.precision)},
                     {"layout", v.layout.name()},
                     {"schedule", v.schedule.name()},
                     {"threads", v.schedule.threads},
                     {"blocks_per_sm", v.schedule.blocks_per_sm},
                     {"threads_per_row", v.schedule.threads_per_row},
                     {"op", to_string(v.op)},
                     {"deterministic", v.deterministic()}};
  if (v.schedule.kind == ScheduleKind::hola) j["entries_per_thread"] = v.schedule.entries_per_thread;
  if (v.op != Op::n) j["transpose"] = to_string(v.transpose);
}

void from_json(const nlohmann::json& j, Variant& v) {
  if (j.is_string()) {
    v = Variant::parse(j.get<std::string>());
    return;
  }
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    throw InvalidArgument("a variant in JSON needs a \"name\" such as \"real.f64/csr-aos-aos/static-256x2\"");
  v = Variant::parse(j["name"].get<std::string>());
}

}  // namespace jitsparse
