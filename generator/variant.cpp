#include "generator/variant.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace jitsparse {

std::string to_string(TransposeKind k) {
  return k == TransposeKind::copy ? "copy" : k == TransposeKind::tree ? "tree" : "atomic";
}

std::string Schedule::name() const {
  const char* k = kind == ScheduleKind::static_   ? "static-"
                  : kind == ScheduleKind::dynamic ? "dynamic-"
                  : kind == ScheduleKind::hola    ? "hola-"
                                                  : "hisparse-";
  std::string s = k + std::to_string(threads) + "x" + std::to_string(blocks_per_sm);
  if (kind == ScheduleKind::hola) return s + "-ept" + std::to_string(entries_per_thread);
  if (kind == ScheduleKind::hisparse)
    return s + "-g" + std::to_string(threads_per_row) + "-big" + std::to_string(big_strip) +
           (unroll != 2 ? "-u" + std::to_string(unroll) : "") + (small_leaves ? "-s" : "") + (batched_leaves ? "-b" : "");
  if (threads_per_row > 1) s += "-tpr" + std::to_string(threads_per_row);
  if (unroll != 2) s += "-u" + std::to_string(unroll);
  if (cached_matrix) s += "-cached";
  if (even_grid) s += "-even";
  return s;
}

namespace {

// Reads a schedule name left to right. A hand-written reader, not std::regex: compiling the three patterns
// cost 25 ms on the first parse in a process (2-core machine), all of it in the first run-time selection
// of a matrix never tuned, whose budget is a millisecond.
struct NameReader {
  std::string_view s;
  size_t at = 0;
  bool literal(std::string_view t) {
    if (s.substr(at, t.size()) != t) return false;
    at += t.size();
    return true;
  }
  // 1 to max_digits decimal digits.
  bool number(int max_digits, int& out) {
    size_t end = at;
    while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
    if (end == at || end - at > static_cast<size_t>(max_digits)) return false;
    out = 0;  // at most 9 digits: no overflow, and no string made (the model reads hundreds of names)
    for (; at < end; ++at) out = out * 10 + (s[at] - '0');
    return true;
  }
  bool done() const { return at == s.size(); }
};

// static|dynamic-N(1-5 digits)xB(1-3)[-tprT(1-3)][-uU(1-2)][-cached][-even], hola-NxB-eptE(1-3),
// hisparse-NxB-gG(1-3)-bigS(1-9)[-uU(1-2)][-s][-b]; false when the name is none of these.
bool read_schedule(std::string_view name, Schedule& r) {
  NameReader n{name};
  auto threads_blocks = [&] {
    return n.number(5, r.threads) && n.literal("x") && n.number(3, r.blocks_per_sm);
  };
  if (n.literal("hisparse-")) {
    r.kind = ScheduleKind::hisparse;
    if (!threads_blocks() || !n.literal("-g") || !n.number(3, r.threads_per_row) || !n.literal("-big") ||
        !n.number(9, r.big_strip))
      return false;
    if (n.literal("-u") && !n.number(2, r.unroll)) return false;
    r.small_leaves = n.literal("-s");
    r.batched_leaves = n.literal("-b");
    return n.done();
  }
  if (n.literal("hola-")) {
    r.kind = ScheduleKind::hola;
    return threads_blocks() && n.literal("-ept") && n.number(3, r.entries_per_thread) && n.done();
  }
  if (n.literal("static-")) r.kind = ScheduleKind::static_;
  else if (n.literal("dynamic-")) r.kind = ScheduleKind::dynamic;
  else return false;
  if (!threads_blocks()) return false;
  if (n.literal("-tpr") && !n.number(3, r.threads_per_row)) return false;
  if (n.literal("-u") && !n.number(2, r.unroll)) return false;
  r.cached_matrix = n.literal("-cached");
  r.even_grid = n.literal("-even");
  return n.done();
}

}  // namespace

bool Schedule::read(std::string_view s, Schedule& out) {
  Schedule r;
  if (!read_schedule(s, r)) return false;
  out = r;
  return true;
}

Schedule Schedule::parse(const std::string& s) {
  Schedule r;
  if (!read_schedule(s, r)) {
    throw InvalidArgument("cannot read schedule '" + s +
                          "' (expected e.g. static-256x2, dynamic-128x4-tpr8, static-256x8-u4-cached, static-512x4-even, hola-256x4-ept4 or "
                          "hisparse-128x8-g16-big4096)");
  }
  check_schedule(r);
  return r;
}

long long row_kernel_blocks(long long rows, const Schedule& s, int sm_count) {
  const long long rows_per_chunk = s.threads / s.threads_per_row;
  const long long chunks = std::max(1LL, (rows + rows_per_chunk - 1) / rows_per_chunk);
  const long long blocks = std::min(static_cast<long long>(s.blocks_per_sm) * std::max(1, sm_count), chunks);
  if (!s.even_grid) return blocks;
  const long long chunks_per_block = (chunks + blocks - 1) / blocks;
  return (chunks + chunks_per_block - 1) / chunks_per_block;
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
  const bool row_family = s.row_family();
  if (s.cached_matrix && !row_family)
    throw InvalidArgument("schedule " + n + ": the cached load policy belongs to static and dynamic schedules only");
  if (s.unroll != 2 && !row_family && s.kind != ScheduleKind::hisparse)
    throw InvalidArgument("schedule " + n + ": unrolling belongs to static, dynamic and hisparse schedules only");
  if (s.unroll != 1 && s.unroll != 2 && s.unroll != 4 && s.unroll != 8)
    throw InvalidArgument("schedule " + n + ": unroll must be 1, 2, 4 or 8");
  if (s.even_grid && s.kind != ScheduleKind::static_)
    throw InvalidArgument("schedule " + n + ": the even grid belongs to static schedules only (a dynamic one "
                          "balances its blocks itself)");
  if (s.kind == ScheduleKind::hisparse) {
    const int b = s.big_strip;
    if (t < 4) throw InvalidArgument("schedule " + n + ": a hisparse group needs 4, 8, 16 or 32 threads");
    if (b != 0 && (b < 64 || b > (1 << 24) || (b & (b - 1)) != 0))
      throw InvalidArgument("schedule " + n + ": big strips start at a power of two from 64 to 2^24 entries (0: none)");
  } else if (s.big_strip != 0) {
    throw InvalidArgument("schedule " + n + ": big strips belong to hisparse schedules only");
  } else if (s.small_leaves) {
    throw InvalidArgument("schedule " + n + ": small-leaf lanes belong to hisparse schedules only");
  } else if (s.batched_leaves) {
    throw InvalidArgument("schedule " + n + ": batched leaves belong to hisparse schedules only");
  }
}

void check_variant(const Variant& v, int max_threads_per_block, int max_threads_per_sm, int max_blocks_per_sm) {
  check_schedule(v.schedule, max_threads_per_block, max_threads_per_sm, max_blocks_per_sm);
  const bool hola_layout = v.layout.outer == OuterLayout::hola, hola_schedule = v.schedule.kind == ScheduleKind::hola;
  if (hola_layout != hola_schedule)
    throw InvalidArgument("variant " + v.name() + ": " +
                          (hola_layout ? "a hola layout needs a hola schedule (e.g. hola-256x4-ept4)"
                                       : "a hola schedule runs on hola layouts only (e.g. hola-aos-aos)"));
  const bool hi_layout = v.layout.outer == OuterLayout::hisparse, hi_schedule = v.schedule.kind == ScheduleKind::hisparse;
  if (hi_layout != hi_schedule)
    throw InvalidArgument("variant " + v.name() + ": " +
                          (hi_layout ? "a hisparse layout needs a hisparse schedule (e.g. hisparse-128x8-g16-big4096)"
                                     : "a hisparse schedule runs on hisparse layouts only (e.g. hisparse64c2-aos-aos)"));
  if (v.op != Op::n && hi_layout != (v.transpose == TransposeKind::tree))
    throw InvalidArgument("variant " + v.name() + ": " +
                          (hi_layout ? "a hisparse layout transposes by reading its tree the other way (kind tree)"
                                     : "the tree kind belongs to hisparse layouts (others: atomic or copy)"));
}

bool Variant::deterministic() const {
  if (layout.outer == OuterLayout::hola) return false;
  if (layout.outer == OuterLayout::hisparse) return op == Op::n;  // op t/h sum by shared atomics
  return op == Op::n || transpose == TransposeKind::copy;
}

bool Variant::has_prologue() const {
  return layout.outer == OuterLayout::hola || (op != Op::n && transpose == TransposeKind::atomic);
}

std::string Variant::name() const {
  std::string n = entry + "." + to_string(precision) + "/" + layout.name() + "/" + schedule.name();
  if (op != Op::n) n += "/" + to_string(op) + "-" + to_string(transpose);
  n += ordering_suffix(ordering);
  if (ordering != Ordering::none && renumbered_y == RenumberedY::moved) n += kMovedYSuffix;
  return n;
}

Variant Variant::parse(const std::string& full) {
  // A renumbered variant ends in "@<ordering>" or "@<ordering>-ymove" (nothing else in a name holds '@').
  const auto at = full.rfind('@');
  const std::string s = full.substr(0, at);
  Ordering ordering = Ordering::none;
  RenumberedY renumbered_y = RenumberedY::mapped;
  if (at != std::string::npos) {
    std::string_view name = std::string_view(full).substr(at + 1);
    if (name.size() > kMovedYSuffix.size() && name.substr(name.size() - kMovedYSuffix.size()) == kMovedYSuffix) {
      renumbered_y = RenumberedY::moved;
      name.remove_suffix(kMovedYSuffix.size());
    }
    if (name != "rcm" && name != "degree")
      throw InvalidArgument("variant '" + full + "': unknown ordering '" + full.substr(at) +
                            "' (expected @rcm, @degree, @rcm-ymove or @degree-ymove)");
    ordering = parse_ordering(std::string(name));
  }
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
                            "' (expected t-atomic, t-copy, t-tree, h-atomic, h-copy or h-tree)");
    v.op = parse_op(op.substr(0, dash));
    const std::string kind = op.substr(dash + 1);
    if (v.op == Op::n || (kind != "atomic" && kind != "copy" && kind != "tree"))
      throw InvalidArgument("cannot read the operation '" + op + "' of variant '" + s +
                            "' (expected t-atomic, t-copy, t-tree, h-atomic, h-copy or h-tree)");
    v.transpose = kind == "copy" ? TransposeKind::copy : kind == "tree" ? TransposeKind::tree : TransposeKind::atomic;
  }
  v.ordering = ordering;
  v.renumbered_y = renumbered_y;
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
  if (v.schedule.kind == ScheduleKind::hisparse) j["big_strip"] = v.schedule.big_strip;
  if (v.schedule.cached_matrix) j["matrix_loads"] = "cached";
  if (v.schedule.unroll != 2) j["unroll"] = v.schedule.unroll;
  if (v.schedule.even_grid) j["even_grid"] = true;
  if (v.op != Op::n) j["transpose"] = to_string(v.transpose);
  if (v.ordering != Ordering::none) {
    j["ordering"] = to_string(v.ordering);
    j["renumbered_y"] = v.renumbered_y == RenumberedY::moved ? "moved" : "mapped";
  }
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
