#include "generator/variant.hpp"

#include <cstdlib>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace jitsparse {

std::string Schedule::name() const {
  std::string s = (kind == ScheduleKind::static_ ? "static-" : "dynamic-") + std::to_string(threads) + "x" +
                  std::to_string(blocks_per_sm);
  if (threads_per_row > 1) s += "-tpr" + std::to_string(threads_per_row);
  return s;
}

Schedule Schedule::parse(const std::string& s) {
  static const std::regex re(R"((static|dynamic)-(\d+)x(\d+)(?:-tpr(\d+))?)");
  std::smatch m;
  if (!std::regex_match(s, m, re))
    throw InvalidArgument("cannot read schedule '" + s + "' (expected e.g. static-256x2 or dynamic-128x4-tpr8)");
  Schedule r;
  r.kind = m[1] == "static" ? ScheduleKind::static_ : ScheduleKind::dynamic;
  r.threads = std::atoi(m[2].str().c_str());
  r.blocks_per_sm = std::atoi(m[3].str().c_str());
  r.threads_per_row = m[4].matched ? std::atoi(m[4].str().c_str()) : 1;
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
}

std::string Variant::name() const {
  return entry + "." + to_string(precision) + "/" + layout.name() + "/" + schedule.name();
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
  v.schedule = Schedule::parse(s.substr(b + 1));
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
                     {"threads_per_row", v.schedule.threads_per_row}};
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
