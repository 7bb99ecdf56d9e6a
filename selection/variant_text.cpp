#include "selection/variant_text.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "generator/variant.hpp"

namespace jitsparse::model_detail {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

NameParts split_name(std::string_view v) {
  NameParts n;
  const size_t a = v.find('/'), b = a == std::string_view::npos ? a : v.find('/', a + 1);
  if (b == std::string_view::npos) return n;
  const size_t at = v.find('@', b + 1);
  const std::string_view body = v.substr(0, at);
  const size_t c = body.find('/', b + 1);
  n.head = v.substr(0, a + 1);
  n.layout = v.substr(a + 1, b - a - 1);
  n.schedule = body.substr(b + 1, c == std::string_view::npos ? std::string_view::npos : c - b - 1);
  n.kind = c == std::string_view::npos ? std::string_view() : body.substr(c + 1);
  n.ordering = at == std::string_view::npos ? std::string_view() : v.substr(at);
  if (ends_with(n.ordering, kMovedYSuffix)) n.ordering.remove_suffix(kMovedYSuffix.size());
  n.rest = v.substr(b + 1 + n.schedule.size());
  n.ok = true;
  return n;
}

namespace {
constexpr std::string_view kCached = "-cached", kEven = "-even";
// The schedule without a trailing "-even" (what the load policy and unrolling precede).
std::string_view without_even(std::string_view schedule) {
  if (ends_with(schedule, kEven)) schedule.remove_suffix(kEven.size());
  return schedule;
}
}  // namespace

bool schedule_cached(std::string_view schedule) { return ends_with(without_even(schedule), kCached); }

std::string cached_schedule(std::string_view schedule) {
  if (schedule_cached(schedule)) return std::string(schedule);
  const std::string_view core = without_even(schedule);
  return std::string(core) + std::string(kCached) + std::string(schedule.substr(core.size()));
}

PairParts pair_parts(std::string_view variant) { return pair_parts(split_name(variant)); }

PairParts pair_parts(const NameParts& n) {
  PairParts p;
  if (!n.ok) return p;
  p.layout = n.layout;
  // the schedule and kind as far as the next '/': the ordering goes with the last of them
  const std::string_view with_ordering =
      std::string_view((n.kind.empty() ? n.schedule : n.kind).data(), (n.kind.empty() ? n.schedule : n.kind).size() + n.ordering.size());
  const std::string_view schedule = n.kind.empty() ? with_ordering : n.schedule;
  p.kind = n.kind.empty() ? std::string_view() : with_ordering;
  p.tpr = "1";
  if (const size_t t = schedule.find("-tpr"); t != std::string_view::npos) p.tpr = schedule.substr(t + 4);
  if (schedule.rfind("hola", 0) == 0) p.tpr = "";
  p.ok = true;
  return p;
}

size_t pair_hash(std::string_view variant) { return pair_hash(variant, split_name(variant)); }

size_t pair_hash(std::string_view variant, const NameParts& n) {
  const PairParts p = pair_parts(n);
  const std::hash<std::string_view> h;
  if (!p.ok) return h(variant);
  size_t k = h(p.layout);
  k ^= h(p.tpr) + 0x9e3779b97f4a7c15ULL + (k << 6) + (k >> 2);
  k ^= h(p.kind) + 0x9e3779b97f4a7c15ULL + (k << 6) + (k >> 2);
  return k;
}

PolicyForm policy_form(std::string_view v) {
  PolicyForm f;
  const NameParts n = split_name(v);
  if (!n.ok) {
    f.wide = f.base = std::string(v);
    return f;
  }
  f.narrow = n.narrow();
  std::string_view layout = n.layout;
  if (f.narrow) layout.remove_suffix(4);
  const std::string_view outer = layout.substr(0, layout.find('-'));
  const bool can_be_narrow = outer == "csr" || outer == "ell" || outer.rfind("sell", 0) == 0;
  // the policies sit before an even grid's "-even", which the base keeps
  const std::string_view even = n.schedule.substr(without_even(n.schedule).size());
  std::string_view plain = without_even(n.schedule);
  if (ends_with(plain, kCached)) plain.remove_suffix(kCached.size());
  if (const size_t u = plain.rfind("-u"); u != std::string_view::npos && u + 2 < plain.size() &&
                                          plain.find_first_not_of("0123456789", u + 2) == std::string_view::npos)
    plain = plain.substr(0, u);
  const std::string head(n.head), wide_layout(layout), schedule(n.schedule), rest(n.rest);
  f.wide = head + wide_layout + "/" + schedule + rest;
  f.base = head + wide_layout + "/" + std::string(plain) + std::string(even) + rest;
  if (can_be_narrow) f.narrow_twin = head + wide_layout + "-d16/" + schedule + rest;
  return f;
}

std::string with_outer(std::string_view v, std::string_view outer) {
  const NameParts n = split_name(v);
  const size_t dash = n.ok ? n.layout.find('-') : std::string_view::npos;
  if (dash == std::string_view::npos) return "";
  const size_t at = static_cast<size_t>(n.layout.data() - v.data());
  std::string out(v);
  out.replace(at, dash, outer);
  return out;
}

VariantShape shape_of(std::string_view variant) { return shape_of(split_name(variant)); }

VariantShape shape_of(const NameParts& n) {
  VariantShape v;
  if (!n.ok) return v;
  const std::string_view outer = n.layout.substr(0, n.layout.find('-'));
  if (outer == "ell") v.padding = VariantShape::Padding::ell;
  else if (outer == "sell16" || outer == "sell32") v.padding = VariantShape::Padding::sell;
  else if (outer.rfind("sell", 0) == 0) v.padding = VariantShape::Padding::sorted_sell;
  v.row_family = n.schedule.rfind("static", 0) == 0 || n.schedule.rfind("dynamic", 0) == 0;
  if (v.row_family) v.tpr = std::max(1, std::atoi(std::string(n.tpr()).c_str()));
  return v;
}

int launch_kind(const NameParts& n) {
  if (n.schedule.rfind("dynamic", 0) == 0) return 1;
  if (n.schedule.rfind("hola", 0) == 0) return 2;
  if (n.schedule.rfind("hisparse", 0) == 0 || n.layout.rfind("hisparse", 0) == 0) return 3;
  return 0;  // static
}

}  // namespace jitsparse::model_detail
