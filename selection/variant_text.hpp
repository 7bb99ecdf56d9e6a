#pragma once
// What the selection model reads from variant names, textually: it reads thousands of names per
// prediction, too many to parse each into a Variant (generator/variant.hpp, the names' grammar).
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace jitsparse::model_detail {

bool ends_with(std::string_view s, std::string_view tail);

// A variant name's parts, views into it: "entry.prec/layout/schedule[/op-kind][@ordering[-ymove]]"
// (Variant::name).
struct NameParts {
  std::string_view head;      // "entry.prec/"
  std::string_view layout, schedule;
  std::string_view kind;      // "t-atomic" (empty for op n)
  std::string_view ordering;  // "@rcm" (empty when not renumbered), without the y form's "-ymove": both
                              // forms of a variant count as renumbered in that ordering
  std::string_view rest;      // everything after the schedule
  bool ok = false;            // the name had an entry, a layout and a schedule
  bool narrow() const { return ends_with(layout, "-d16"); }
  // Threads per row: the digits after "-tpr", "1" without, empty for hola (whose schedules the search
  // sweeps together).
  std::string_view tpr() const {
    if (schedule.rfind("hola", 0) == 0) return {};
    const size_t t = schedule.find("-tpr");
    if (t == std::string_view::npos) return "1";
    const std::string_view digits = schedule.substr(t + 4);
    return digits.substr(0, digits.find_first_not_of("0123456789"));
  }
};

NameParts split_name(std::string_view v);

// A row schedule's load policy, read from its name: "-cached" comes before the even grid's "-even"
// (Schedule::name), so "static-512x2-tpr4-cached-even" is cached and its cached form is itself, and the
// cached form of "static-512x2-even" is "static-512x2-cached-even".
bool schedule_cached(std::string_view schedule);
std::string cached_schedule(std::string_view schedule);

// The parts of a variant's pair key (variant_pair_key): its layout, what follows "-tpr" in the schedule
// ("1" without, empty for hola) and the transpose kind, each as the name's text up to the next '/'. So a
// renumbering suffix or a policy suffix after "-tprN" ("-tpr4-cached", "-tpr4@rcm") makes a pair of its
// own while the same suffix without "-tpr" does not: a known inconsistency, kept because quick tuning's
// rounds and the evaluated databases were measured with it (a consistent key moved quick tuning from
// 93% / 72% to 89% / 66% within 10% / 3% offline, partly on variants the database never timed).
struct PairParts {
  std::string_view layout, tpr, kind;
  bool ok = false;
};

PairParts pair_parts(std::string_view variant);
PairParts pair_parts(const NameParts& n);  // of a name already split

// variant_pair_key as a hash, without building the string (the model takes one per measurement of every
// neighbour: thousands per prediction).
size_t pair_hash(std::string_view variant);
size_t pair_hash(std::string_view variant, const NameParts& n);  // n: split_name(variant)

// The tuner's last stage (policy_twins) times twins of its fastest variants that differ only in narrow
// column indices (-d16 on the layout), cached loads (-cached) or unrolling (-uN on the schedule). A
// variant's form: whether it is narrow, its wide twin, its base (all three policies removed: the variant
// the twins were made from) and, where the layout has a narrow form, its narrow twin.
struct PolicyForm {
  std::string wide, base, narrow_twin;  // narrow_twin: empty unless the layout has a narrow form
  bool narrow = false;
};

PolicyForm policy_form(std::string_view v);

// The variant with another outer layout, all else kept ("...ell-aos-soa-d16/static-512x4" with
// "sell32s256": "...sell32s256-aos-soa-d16/static-512x4"); "" for a name without an outer layout.
std::string with_outer(std::string_view v, std::string_view outer);

// What the model's corrections read from a variant's name, parsed once per candidate.
struct VariantShape {
  enum class Padding { none, ell, sell, sorted_sell } padding = Padding::none;
  bool row_family = false;  // a static or dynamic schedule: a group of threads per row
  int tpr = 1;
};

VariantShape shape_of(std::string_view variant);
VariantShape shape_of(const NameParts& n);  // of a name already split

// What a variant launches per product, which sets a time it cannot go below however small the matrix: a
// row kernel (static or dynamic schedule: one kernel), hola (a kernel finding each block's first row,
// then the product), hisparse (work lists per node type). On the H100 the fastest row kernel of a
// 0.1-0.3 MB matrix took 1.5-1.7 us and the fastest hola 3.5-4.5 us; of the main set's 6-13 MB matrices
// 2.8-4.2 us and 5.5-10.8 us (twenty-second session). A renumbered variant counts as its plain kind: the
// tuner renumbers only large scattered matrices, whose times say nothing of a floor.
constexpr int kLaunchKinds = 4;

int launch_kind(const NameParts& n);

using KindTimes = std::array<double, kLaunchKinds>;

}  // namespace jitsparse::model_detail
