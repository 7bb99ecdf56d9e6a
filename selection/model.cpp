#include "selection/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/entry_type.hpp"
#include "generator/source_gen.hpp"
#include "selection/model_terms.hpp"
#include "selection/variant_text.hpp"

namespace jitsparse {
namespace {

using namespace model_detail;

constexpr double kFailedLog = 1.3862943611198906;  // log(4): a variant that failed on a neighbour
constexpr double kUnknownLog = 0.6931471805599453;  // log(2): nothing of its layout was timed there
constexpr double kScheduleGuess = 0.05;             // an untimed schedule of a timed layout: a bit worse
constexpr double kNearBest = 1.3;                   // a neighbour proposes its variants up to this slower
constexpr double kResidentLow = 0.25, kResidentHigh = 0.75;  // of the L2: where row kernels load cached
constexpr double kPaddingGainLimit = 0.2;           // log: a layout padding less on the query gains at most 1.22x
constexpr size_t kFloorRecords = 3;                 // the smallest records read for the launch floors
constexpr double kFloorScale = 0.25;                // floors count from neighbours this much larger

double lg(double v) { return std::log2(1.0 + std::max(0.0, v)); }
// A neighbour's weight at distance d: inverse-square, softened so an exact twin does not silence the others.
double neighbour_weight(double d) { return 1.0 / ((d + 0.2) * (d + 0.2)); }
double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

// How many of the first wide candidates get their narrow twin rated (SelectionModel::predict).
constexpr size_t kTwinSeeds = 8;
constexpr int kWideEntryBytes = 16;  // few_blocks_form: entries at least this wide

// Whether the model may learn from a measurement: the search's own (not what jitsparse evaluate added since:
// the model must see a record as the search left it, or a second evaluation would predict from what the
// first measured), of a variant the query may run.
bool search_measured(const MeasurementRecord& m, bool deterministic) {
  return m.origin.empty() && (!deterministic || m.deterministic());
}

// A map built once and read many times: sorted pairs in one block of memory. A prediction usually finds
// its neighbours' profiles out of the caches (the application just read its matrix): a lookup then fetches
// a few cache lines, where a hash map's node per entry cost a miss each (predictions with the caches
// flushed before each, 2-core machine: 10-17% faster).
template <class K, class V>
class FlatMap {
 public:
  void add(K key, V value) { items_.emplace_back(key, value); }
  // Sorts by key; the values added under one key fold into one, in the order added (fold(earlier, later)).
  template <class Fold>
  void seal(Fold fold) {
    std::stable_sort(items_.begin(), items_.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    size_t kept = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (kept > 0 && items_[kept - 1].first == items_[i].first)
        items_[kept - 1].second = fold(items_[kept - 1].second, items_[i].second);
      else
        items_[kept++] = items_[i];
    }
    items_.resize(kept);
    items_.shrink_to_fit();
  }
  const V* find(K key) const {  // null where absent
    const auto it = std::lower_bound(items_.begin(), items_.end(), key, [](const auto& item, K k) { return item.first < k; });
    return it != items_.end() && it->first == key ? &it->second : nullptr;
  }

 private:
  std::vector<std::pair<K, V>> items_;
};

// A neighbour's profile: log(time / its best) of every variant it timed, and the best of each pair. Keys
// view the record's names (or, transferred, the renamed copies in `names`).
struct Profile {
  std::deque<std::string> names;                               // renamed variants (transfer only)
  FlatMap<int32_t, double> log_relative;  // timed ("ok"), by NameIds number
  FlatMap<int32_t, bool> failed;          // measured but not ok
  FlatMap<size_t, double> pair_best;      // best log_relative of the pair (pair_hash)
  KindTimes kind_us;  // fastest time of each launch_kind
  const MeasurementRecord* best = nullptr;  // the fastest the search measured (search_best)
  // What it proposes (proposed_variants): every variant within kNearBest of its best, its best hola
  // variant and its best of the widest threads per row.
  std::vector<std::string_view> proposals;
  // Its fastest plain time and its fastest in each ordering ("@rcm", either y form): renumbering_gain's
  // evidence, any_renumbered's answer.
  double plain_us = 0;
  std::unordered_map<std::string_view, double> ordering_us;
  Profile() { kind_us.fill(std::numeric_limits<double>::infinity()); }
};

// The fastest of what the search measured.
const MeasurementRecord* search_best(const MatrixRecord& r, bool deterministic) {
  const MeasurementRecord* b = nullptr;
  for (const auto& m : r.measurements)
    if (m.ok() && search_measured(m, deterministic) && (!b || m.median_us < b->median_us))
      b = &m;
  return b;
}

// Variant names numbered once per model: profiles key their timings by number, so rating a candidate
// hashes its name once rather than at each lookup in each neighbour (a prediction of 393 candidates on
// the 2-core machine: 0.43 -> 0.35 ms). The views point into the records' names and the profiles'
// renamed copies, which outlive the numbers.
class NameIds {
 public:
  int32_t intern(std::string_view v) { return ids_.try_emplace(v, static_cast<int32_t>(ids_.size())).first->second; }
  int32_t find(std::string_view v) const {  // -1: no profile holds it
    const auto it = ids_.find(v);
    return it == ids_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<std::string_view, int32_t> ids_;
};

// as_entry: rename the record's variants to this entry type (transfer); empty keeps them.
void fill_profile(const MatrixRecord& r, bool deterministic, const std::string& as_entry, NameIds& ids, Profile& p) {
  auto renamed = [&](const std::string& v) -> std::string_view {
    if (as_entry.empty() || as_entry == r.entry) return v;
    const size_t dot = v.find('.');
    if (dot == std::string::npos) return v;
    p.names.push_back(as_entry + v.substr(dot));
    return p.names.back();
  };
  const MeasurementRecord* best = search_best(r, deterministic);
  p.best = best;
  if (!best || best->median_us <= 0) return;
  // by name too, for the proposals below (in this map's order, as they were always read)
  std::unordered_map<std::string_view, double> by_name;
  by_name.reserve(r.measurements.size());
  for (const auto& m : r.measurements) {
    if (!search_measured(m, deterministic)) continue;
    if (!m.ok() || m.median_us <= 0) {
      if (m.status.rfind("skipped", 0) != 0) p.failed.add(ids.intern(renamed(m.variant)), true);
      continue;
    }
    const double l = std::log(m.median_us / best->median_us);
    const std::string_view v = renamed(m.variant);
    by_name[v] = l;
    p.log_relative.add(ids.intern(v), l);
    const NameParts n = split_name(v);  // once: the pair and the launch kind read it
    p.pair_best.add(pair_hash(v, n), l);
    double& kind = p.kind_us[launch_kind(n)];
    kind = std::min(kind, m.median_us);
    double& fastest = n.ordering.empty() ? p.plain_us : p.ordering_us[n.ordering];
    if (fastest == 0 || m.median_us < fastest) fastest = m.median_us;
  }
  p.log_relative.seal([](double, double later) { return later; });  // a variant timed twice: the last time
  p.failed.seal([](bool, bool) { return true; });
  p.pair_best.seal([](double earlier, double later) { return std::min(earlier, later); });
  // Ties go to the first met.
  const std::string widest_tpr = std::to_string(kWidestThreadsPerRow);
  const std::pair<const std::string_view, double>*hola = nullptr, *widest = nullptr;
  for (const auto& entry : by_name) {
    if (entry.second <= std::log(kNearBest)) p.proposals.push_back(entry.first);
    if (entry.first.find("/hola-") != std::string_view::npos && (!hola || entry.second < hola->second)) hola = &entry;
    if (split_name(entry.first).tpr() == widest_tpr && (!widest || entry.second < widest->second)) widest = &entry;
  }
  if (hola) p.proposals.push_back(hola->first);
  if (widest) p.proposals.push_back(widest->first);
}

// A variant's log(time / best) on a neighbour that did not time it (the caller looks up what it timed):
// 4x where it failed there; else, for a policy twin of a variant the neighbour timed, that variant's (its
// wide twin, else its base; a narrow one gains narrow_log); else its pair's best plus a guess; else 2x.
// The names' numbers: of the variant, of its wide twin (where it is narrow) and of its base (where it is a
// policy twin); -1 where none or no profile holds it.
struct CandidateIds {
  int32_t self = -1, wide = -1, base = -1;
};
// The wide and base numbers of variant v, whose policy form is f (self is looked up apart: rate() needs it
// before it parses the form).
void add_policy_ids(CandidateIds& id, std::string_view v, const PolicyForm& f, const NameIds& ids) {
  if (f.narrow) id.wide = ids.find(f.wide);
  if (f.base != v) id.base = ids.find(f.base);
}
// nullopt where nothing of the pair was timed there.
std::optional<double> estimate_known(const Profile& p, const CandidateIds& id, size_t pair, bool narrow, double narrow_log) {
  if (id.self >= 0 && p.failed.find(id.self)) return kFailedLog;
  const double narrowing = narrow ? narrow_log : 0.0;
  if (id.wide >= 0)
    if (const double* l = p.log_relative.find(id.wide)) return *l + narrowing;
  if (id.base >= 0)
    if (const double* l = p.log_relative.find(id.base)) return *l + narrowing;
  if (const double* l = p.pair_best.find(pair)) return *l + kScheduleGuess;
  return std::nullopt;
}

// A sorted sell's stand-ins on a neighbour that never sorted: the same variant as ELL and as sell32
// (with_outer), with their names' numbers, pairs and padding kinds (sorted_sell_estimate).
struct StandIn {
  CandidateIds id;
  size_t pair = 0;
  bool narrow = false;
  VariantShape::Padding padding = VariantShape::Padding::none;
};
std::vector<StandIn> sorted_sell_stand_ins(std::string_view v, const NameIds& ids) {
  std::vector<StandIn> out;
  for (const auto& [outer, padding] : {std::pair{"ell", VariantShape::Padding::ell}, std::pair{"sell32", VariantShape::Padding::sell}}) {
    const std::string name = with_outer(v, outer);
    if (name.empty()) continue;
    const PolicyForm f = policy_form(name);
    StandIn s;
    s.id.self = ids.find(name);
    add_policy_ids(s.id, name, f, ids);
    s.pair = pair_hash(name);
    s.narrow = f.narrow;
    s.padding = padding;
    out.push_back(s);
  }
  return out;
}

// A sorted sell's log(time / best) on a neighbour where the tuner never sorted (sorted_sell_pays: never on
// the main set's regular grids), so nothing of its pair was timed: the faster of its stand-ins there, each
// carried to the sorted layout's bytes on that neighbour (its padding, row order and scattered y:
// sorted_sell_overhead) as the padding term carries bytes; nullopt where neither was timed. Counted as
// unknown (2x), sorted sells lost every 250 MB irregular mesh of the twenty-ninth session's set to ELL or
// csr in the main set's model, 1.15-1.3x slower there (H100).
std::optional<double> sorted_sell_estimate(const Profile& p, const std::vector<StandIn>& stand_ins, const MatrixRecord& r,
                                           int components, int vector_components, Precision precision, long long l2_bytes,
                                           double narrow_log) {
  VariantShape sorted;
  sorted.padding = VariantShape::Padding::sorted_sell;
  const double sorted_traffic = traffic_factor(sorted, r.features, components, vector_components, precision) +
                                sorted_sell_overhead(r.features, components, vector_components, precision);
  const double share = std::max(kLatencyPaddingShare, bandwidth_share(r.compulsory_bytes, l2_bytes));
  std::optional<double> best;
  for (const StandIn& s : stand_ins) {
    const double* timed = s.id.self >= 0 ? p.log_relative.find(s.id.self) : nullptr;
    const std::optional<double> l = timed ? std::optional<double>(*timed) : estimate_known(p, s.id, s.pair, s.narrow, narrow_log);
    if (!l) continue;
    VariantShape shape;
    shape.padding = s.padding;
    const double traffic = traffic_factor(shape, r.features, components, vector_components, precision);
    const double bytes = sorted_traffic > 0 && traffic > 0 ? share * std::log(sorted_traffic / traffic) : 0.0;
    if (!best || *l + bytes < *best) best = *l + bytes;
  }
  return best;
}

// The outer layout of the sorted twins the model makes (the window the features' sorted padding samples),
// and the bandwidth share a query needs for them: padding costs time where bytes decide it (half the L2
// and up); below, the 10-21 MB training matrices whose rows sorting would pack tighter ran their sorted
// twins 1.1x slower than ELL (H100).
constexpr const char* kSortedTwinOuter = "sell32s256";
constexpr double kSortedTwinShare = 0.5;
// ... and entries of at most 16 bytes. On the 250 MB scanned Dirac operator in f64 (32-byte quaternions)
// the sorted twin of the main set's ELL winner ran 1.55x the best, csr 1.23x; in f32 (16 bytes) 1.08x
// against csr's 1.24x (H100, thirtieth session): wider entries lose more to the sorted layout's chain of
// loads than its bytes save, which the stand-ins cannot see on a neighbour that never sorted.
constexpr int kSortedTwinEntryBytes = 16;

// The candidates the neighbours propose: what any of them ran near its best, each one's best hola variant
// (balanced by entries: the fallback for a query whose rows are far more skewed than any neighbour's) and
// its best of 32 threads per row (for a small query with long rows: the tiny R-MAT graphs of the H100
// database ran csr with 32 threads per row fastest, 1.2-1.3x faster than hola, and the main set, whose
// graph is 60 MB, never ran those near its best). Unordered: the ranking's sort is a total order (its last
// key is the name), so the order found is moot.
std::unordered_set<std::string_view> proposed_variants(const std::vector<const Profile*>& profiles) {
  std::unordered_set<std::string_view> candidates;
  for (const Profile* p : profiles) candidates.insert(p->proposals.begin(), p->proposals.end());
  return candidates;
}

using Neighbours = std::vector<std::pair<double, const MatrixRecord*>>;  // (distance, record)

// Each launch kind's floor: the fastest that the neighbours (their profiles) and the kFloorRecords smallest
// of the records that may teach ran it in (an upper bound of the true floor, which only the smallest
// matrices show); infinite for a kind none of them ran.
template <class ProfileOf>
KindTimes launch_floors(const std::vector<const Profile*>& profiles, const Neighbours& near, Neighbours teachers,
                        const ProfileOf& profile_of) {
  KindTimes floor_us;
  floor_us.fill(std::numeric_limits<double>::infinity());
  for (const Profile* p : profiles)
    for (int kind = 0; kind < kLaunchKinds; ++kind)  //
      floor_us[kind] = std::min(floor_us[kind], p->kind_us[kind]);
  const size_t smallest = std::min(kFloorRecords, teachers.size());
  auto smaller = [](const auto& l, const auto& r) {
    return l.second->compulsory_bytes < r.second->compulsory_bytes;
  };
  std::partial_sort(teachers.begin(), teachers.begin() + smallest, teachers.end(), smaller);
  for (size_t i = 0; i < smallest; ++i)
    if (std::none_of(near.begin(), near.end(), [&](const auto& n) { return n.second == teachers[i].second; })) {
      const KindTimes& theirs = profile_of(*teachers[i].second).kind_us;
      for (int kind = 0; kind < kLaunchKinds; ++kind) floor_us[kind] = std::min(floor_us[kind], theirs[kind]);
    }
  return floor_us;
}

// The first `seeds` row kernels of a ranking at every other threads per row (1-32 dividing their block).
std::vector<std::string> threads_per_row_twins(const std::vector<Candidate>& ranked, size_t seeds) {
  std::vector<std::string> twins;
  for (size_t i = 0; i < std::min(seeds, ranked.size()); ++i) {
    if (!shape_of(ranked[i].variant).row_family) continue;
    const Variant v = Variant::parse(ranked[i].variant);
    for (int tpr = 1; tpr <= kWidestThreadsPerRow; tpr *= 2) {
      if (tpr == v.schedule.threads_per_row || v.schedule.threads % tpr != 0) continue;
      Variant twin = v;
      twin.schedule.threads_per_row = tpr;
      twins.push_back(twin.name());
    }
  }
  return twins;
}

// A static row kernel of wide entries (16 bytes or more: complex and quaternion f64, quaternion f32, 3x3
// blocks) whose grid holds fewer blocks than the GPU has SMs, with its launch bounds' blocks per SM set to
// one; "" where that changes nothing. Every SM then holds at most one of its blocks whatever the bounds
// say, so asking for more only caps the registers (2048 threads leave 32 a thread: wide entries spill).
// On the H100 database of the twenty-ninth session (op n, 1,123 pairs of one variant timed at one and at
// more blocks per SM on such grids): one block per SM 0.83x the time of eight or more (88% faster, never
// more than 1% slower), 0.89x of two, 0.98-0.99x of three or four; neutral (1.00x) for narrower entries.
// Only the schedule is read (Schedule::read, unchecked: the generator made it), not the whole name: a
// Variant parse of every candidate cost a prediction 0.4 ms on the 2-core machine.
std::string few_blocks_form(std::string_view variant, long long rows, int sm_count) {
  const NameParts n = split_name(variant);
  Schedule s;
  if (!n.ok || !n.ordering.empty() || !Schedule::read(n.schedule, s) || s.kind != ScheduleKind::static_ ||
      s.blocks_per_sm <= 1 || rows * s.threads_per_row >= static_cast<long long>(sm_count) * s.threads)
    return "";
  s.blocks_per_sm = 1;
  const size_t at = static_cast<size_t>(n.schedule.data() - variant.data());
  return std::string(variant.substr(0, at)) + s.name() + std::string(variant.substr(at + n.schedule.size()));
}

// Whether a matrix's columns lie far from its rows on average: over an eighth of the columns away
// (column_scatter). Random orders sit at 28-34%, an icosphere's natural order at 21-23%, every scanned or
// natural mesh and box of the H100 database at 0.2-9%.
bool scattered_columns(const MatrixFeatures& f) { return column_scatter(f) > 0.125; }

// A variant with x and y in soa (one array per vector component) in its aos form; "" for other layouts
// and renumbered variants (their x is gathered in the renumbered, local order). A scattered matrix gathers
// each x element from its own sector, and soa makes that one sector per component: on the H100 database
// of the twenty-ninth session (pairs differing only in the vector layout) soa ran 1.12-1.54x the time of
// aos on scattered compound matrices (faster in 1-19% of pairs) against 1.04-1.14x on local ones, so
// neighbours in mesh order understate its cost (a random-order 3x3-block query took csr-soa-soa: 2.2x).
std::string scattered_x_form(std::string_view variant) {
  const NameParts n = split_name(variant);
  if (!n.ok || !n.ordering.empty()) return "";
  // layout: outer-inner-vector[-d16]
  const size_t first = n.layout.find('-'), second = first == std::string_view::npos ? first : n.layout.find('-', first + 1);
  if (second == std::string_view::npos || n.layout.substr(second + 1, 3) != "soa") return "";
  const size_t at = static_cast<size_t>(n.layout.data() - variant.data()) + second + 1;
  std::string out(variant);
  out.replace(at, 3, "aos");
  return out;
}

// Whether any neighbour timed a variant renumbered in this ordering ("@rcm").
bool any_renumbered(const std::vector<const Profile*>& profiles, std::string_view ordering) {
  return std::any_of(profiles.begin(), profiles.end(), [&](const Profile* p) { return p->ordering_us.count(ordering) > 0; });
}

// What renumbering in `ordering` gains on matrices like the query: among the records that renumbering
// may pay on and that timed both ways, those whose entries are nearest the query's in size (any entry
// type: the entry size decides what share of the traffic the scattered reads of x are), the
// kGainNeighbours nearest by the model's coordinates; the weighted geometric mean of their fastest plain
// time over their fastest renumbered one. 1 with none. On the H100 (twenty-first session) it is 1.3-2.0x
// for random-order Laplacians and Helmholtz matrices of 36 MB and more, about 1 for 3x3 blocks and
// 0.5-0.8x for the quaternion Dirac operators.
constexpr int kGainNeighbours = 3;
template <class MayTeach, class ProfileOf, class CoordinatesOf>
double renumbering_gain(const TuningDatabase& db, const MayTeach& may_teach, const ProfileOf& profile_of,
                        const CoordinatesOf& coordinates_of, const std::array<double, kModelFeatures>& query,
                        Ordering ordering) {
  const std::string suffix = ordering_suffix(ordering);
  struct Evidence {
    double entry_gap, distance, log_gain;
  };
  std::vector<Evidence> timed_both;
  for (const MatrixRecord* r : db.records()) {
    if (!may_teach(*r) || !renumbering_may_pay(r->features) || preferred_ordering(r->features) != ordering ||
        !EntryRegistry::instance().contains(r->entry))
      continue;
    const Profile& p = profile_of(*r);
    const auto renumbered_it = p.ordering_us.find(suffix);
    const double plain = p.plain_us, renumbered = renumbered_it == p.ordering_us.end() ? 0.0 : renumbered_it->second;
    if (plain <= 0 || renumbered <= 0) continue;
    const auto& x = coordinates_of(*r, EntryRegistry::instance().get(r->entry).num_components());
    double d = 0;
    for (int i = 0; i < kModelFeatures; ++i) d += (x[i] - query[i]) * (x[i] - query[i]);
    // the last coordinate is log2 of the entry's components
    timed_both.push_back({std::abs(x[kModelFeatures - 1] - query[kModelFeatures - 1]), std::sqrt(d), std::log(plain / renumbered)});
  }
  if (timed_both.empty()) return 1.0;
  std::sort(timed_both.begin(), timed_both.end(), [](const Evidence& l, const Evidence& r) {
    return l.entry_gap != r.entry_gap ? l.entry_gap < r.entry_gap : l.distance < r.distance;
  });
  double sum = 0, weights = 0;
  for (size_t i = 0; i < timed_both.size() && i < static_cast<size_t>(kGainNeighbours); ++i) {
    if (timed_both[i].entry_gap > timed_both.front().entry_gap) break;  // entries of another size
    const double w = neighbour_weight(timed_both[i].distance);
    sum += w * timed_both[i].log_gain;
    weights += w;
  }
  return std::exp(sum / weights);
}

}  // namespace

// "quaternion.f64/ell-soa-aos/static-256x2-tpr4/t-atomic" -> "ell-soa-aos/4/t-atomic": the unit whose
// schedules the search sweeps together (hola: the layout and kind, any entries per thread). Textual, for
// speed: prediction must stay within a millisecond.
std::string variant_pair_key(const std::string& variant) {
  const PairParts p = pair_parts(variant);
  if (!p.ok) return variant;
  return std::string(p.layout) + "/" + std::string(p.tpr) + "/" + std::string(p.kind);
}

const std::array<const char*, kModelFeatures>& model_feature_names() {
  static const std::array<const char*, kModelFeatures> names = {
      "log2 rows",       "log2 entries",          "log2 bytes / L2", "log2 mean row",
      "row length c.v.", "log2 max / mean row", "empty rows",      "log2 x distance", "log2 components"};
  return names;
}

std::string family_of_domain(const std::string& domain) {
  for (const char* prefix : {"builtin-", "train-", "irregular-"})
    if (domain.rfind(prefix, 0) == 0) return domain.substr(std::char_traits<char>::length(prefix));
  return domain;
}

std::array<double, kModelFeatures> model_features(const MatrixFeatures& f, double compulsory_bytes, long long l2_bytes,
                                                  int components) {
  // Scales: how much a coordinate changes which kernel wins. Fitted on the H100 database of 2026-11-25
  // (146 records timed in CUDA graphs below the L2, leave one matrix out; a fit on the f32 records lifted
  // the f64 ones from 53% to 64% of first choices within 10% of the best, and the other way 49% -> 63%);
  // these scales, their common ground, took it from 50% to 58%, every choice timed. Size counts most: the rows
  // against the threads of a grid decide the schedule of a matrix within the L2, which launches back to
  // back hid until graphs timed it (the scales before, 0.25 each, were judged on those times). Then the
  // matrix against the L2 (a quarter of it or less is served from it, four times or more is streamed),
  // the distance of columns from the diagonal (x locality), the row-length shape (ELL/SELL padding,
  // threads per row); the spread of row lengths least, as the longest row over the mean says most of it.
  const double l2 = l2_bytes > 0 ? static_cast<double>(l2_bytes) : 50.0 * (1 << 20);
  const double cv = ratio(f.std_row, f.mean_row);
  return {1.0 * lg(static_cast<double>(f.rows)),
          1.0 * lg(static_cast<double>(f.nnz)),
          3.0 * std::clamp(std::log2(std::max(compulsory_bytes, 1.0) / l2), -2.0, 2.0),
          lg(f.mean_row),
          1.0 * std::log2(1.0 + cv),
          2.0 * lg(ratio(static_cast<double>(f.max_row), f.mean_row)),
          4.0 * ratio(static_cast<double>(f.empty_rows), static_cast<double>(f.rows)),
          2.0 * lg(ratio(f.mean_distance_from_diagonal * 1024.0, static_cast<double>(f.cols))),
          // entry size (registers per entry, vector width of the loads): only apart when transferring
          std::log2(static_cast<double>(std::max(1, components)))};
}

// What predict derives from the records, kept for the next query (the records do not change under a
// model): each record's profile and its model coordinates. Thread-safe: predict is const.
struct SelectionModel::Cache {
  explicit Cache(long long l2) : l2_bytes(l2) {}

  // The caller holds `mutex` (predict holds it throughout: the numbers of names grow as profiles fill).
  // as_entry: the entry type whose names the record's variants take (transfer), or empty for its own.
  const Profile& profile(const MatrixRecord& r, bool deterministic, const std::string& as_entry) {
    auto& slot = profiles[{&r, deterministic, as_entry == r.entry ? std::string() : as_entry}];
    if (!slot) {
      slot = std::make_unique<Profile>();
      fill_profile(r, deterministic, as_entry, ids, *slot);
    }
    return *slot;
  }
  const std::array<double, kModelFeatures>& coordinates(const MatrixRecord& r, int components) {
    auto [it, fresh] = coordinates_by.try_emplace({&r, components});
    if (fresh) it->second = model_features(r.features, r.compulsory_bytes, l2_bytes, components);
    return it->second;
  }

  const long long l2_bytes;
  std::mutex mutex;
  NameIds ids;
  std::map<std::tuple<const MatrixRecord*, bool, std::string>, std::unique_ptr<Profile>> profiles;
  std::map<std::pair<const MatrixRecord*, int>, std::array<double, kModelFeatures>> coordinates_by;
};

SelectionModel::SelectionModel(const TuningDatabase& db, long long l2_bytes, int neighbours)
    : db_(db),
      l2_bytes_(l2_bytes),
      sm_count_(db.sm_count()),
      neighbours_(std::max(1, neighbours)),
      cache_(std::make_unique<Cache>(l2_bytes)) {}

SelectionModel::~SelectionModel() = default;

void SelectionModel::prepare(bool deterministic) const {
  const std::lock_guard<std::mutex> lock(cache_->mutex);
  for (const MatrixRecord* r : db_.records()) {
    if (!r->complete || r->search != "full") continue;  // never teaches (predict's may_teach)
    cache_->profile(*r, deterministic, "");
    cache_->coordinates(*r, EntryRegistry::instance().contains(r->entry) ? EntryRegistry::instance().get(r->entry).num_components() : 1);
  }
}

Prediction SelectionModel::predict(const ModelQuery& q, const TrainingFilter& filter) const {
  const std::lock_guard<std::mutex> lock(cache_->mutex);
  Prediction out;
  const std::string prec = to_string(q.precision), op = to_string(q.op);
  const auto query = model_features(q.features, q.compulsory_bytes, l2_bytes_, q.components);
  // A complete full search of the query's precision and operation that the filter lets teach.
  auto may_teach = [&](const MatrixRecord& r) {
    if (r.precision != prec || r.op != op || !r.complete || r.search != "full") return false;
    if (r.hash == filter.exclude_hash || (!filter.exclude_family.empty() && family_of_domain(r.domain) == filter.exclude_family))
      return false;
    return filter.learn_only_prefix.empty() || r.domain.rfind(filter.learn_only_prefix, 0) == 0;
  };
  auto gather = [&](bool transfer) {
    Neighbours near;
    for (const MatrixRecord* r : db_.records()) {
      if ((r->entry == q.entry) == transfer || !may_teach(*r)) continue;
      int components = q.components;
      if (transfer) {  // the record's entry type must be known to compare entry sizes
        if (!EntryRegistry::instance().contains(r->entry)) continue;
        components = EntryRegistry::instance().get(r->entry).num_components();
      }
      const auto& x = cache_->coordinates(*r, components);
      double d = 0;
      for (int i = 0; i < kModelFeatures; ++i) d += (x[i] - query[i]) * (x[i] - query[i]);
      near.emplace_back(std::sqrt(d), r);
    }
    return near;
  };
  // Transferred: the records' variants renamed to the query's entry type.
  const std::string* as_entry = nullptr;
  const std::string own;
  auto profile_of = [&](const MatrixRecord& r) -> const Profile& { return cache_->profile(r, q.deterministic, *as_entry); };
  // The nearest records that have a search best, in distance order.
  auto nearest_with_best = [&](Neighbours all) {
    std::sort(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    Neighbours kept;
    for (const auto& n : all) {
      if (kept.size() >= static_cast<size_t>(neighbours_)) break;
      if (profile_of(*n.second).best) kept.push_back(n);
    }
    return kept;
  };
  as_entry = &own;
  auto teachers = gather(false);
  auto near = nearest_with_best(teachers);
  if (near.empty()) {
    as_entry = &q.entry;
    teachers = gather(true);
    near = nearest_with_best(teachers);
    out.transferred = true;
  }
  if (near.empty()) return out;
  const size_t k = near.size();

  std::vector<const Profile*> profiles;
  std::vector<double> weights;
  std::vector<int> components;  // of each neighbour's entry type (transfer: not the query's)
  std::vector<const MeasurementRecord*> bests;  // each neighbour's best
  double weight_sum = 0;
  for (size_t j = 0; j < k; ++j) {
    const auto& [d, r] = near[j];
    profiles.push_back(&profile_of(*r));
    bests.push_back(profiles.back()->best);
    components.push_back(EntryRegistry::instance().contains(r->entry)
                             ? EntryRegistry::instance().get(r->entry).num_components()
                             : q.components);
    weights.push_back(neighbour_weight(d));
    weight_sum += weights.back();
    out.neighbours.push_back({r->name, r->hash, d, 0});
  }
  for (size_t j = 0; j < k; ++j) out.neighbours[j].weight = weights[j] / weight_sum;

  const int vector_components = EntryRegistry::instance().contains(q.entry)
                                    ? EntryRegistry::instance().get(q.entry).num_vector_components()
                                    : 1;
  const std::unordered_set<std::string_view> candidates = proposed_variants(profiles);
  // What the query can run, as the tuner would time it: renumbered variants only where renumbering may
  // pay (else two moves of x and y for nothing) and only in the ordering the tuner would try for it (a
  // graph's @degree would scramble a mesh), narrow ones only where the columns may fit 16 bits (else
  // their wide twins).
  const bool may_renumber = renumbering_may_pay(q.features);
  // sorted sells only where sorting cuts the padding (sorted_sell_pays), as the tuner searches them: on a
  // regular query a sorted sell's row order and scattered y cost more than its padding saves (a box
  // Laplacian of 100 MB: 1.15x ELL's time, H100), but an irregular neighbour's profile ranks it first
  const bool may_sort = sorted_sell_pays(q.features, q.components);
  // and where its bytes decide its time (kSortedTwinShare), sorted twins of the first candidates, which
  // neighbours that never sorted rate through their ELL and sell32 forms (below)
  const int entry_bytes = q.components * scalar_bytes(q.precision);
  const bool sorted_twins = may_sort && bandwidth_share(q.compulsory_bytes, l2_bytes_) >= kSortedTwinShare &&
                            entry_bytes <= kSortedTwinEntryBytes;
  // Unknown at run time (compute_features does not check every column): a mean distance of the columns
  // from the diagonal over the 16-bit limit proves that some column is over it.
  const bool narrow_ok = q.features.narrow_fits == 1 ||
                         (q.features.narrow_fits == -1 && q.features.mean_distance_from_diagonal <= kNarrowOffsetLimit);
  const std::string ordering_wanted = ordering_suffix(preferred_ordering(q.features));
  std::deque<std::string> made;  // names of the twins made here (views into them stay valid)
  // A matrix larger than the L2 cannot stay there between products: cached matrix loads never won on one
  // (H100, twentieth session: 0 of 33 records; the cached twin of the best 1.06-1.5x slower, 1.12x in the
  // median), though neighbours in the L2 rank them first (dirac_large f32: 1.27x).
  const bool streamed = l2_bytes_ > 0 && q.compulsory_bytes > static_cast<double>(l2_bytes_);
  // A matrix of a quarter to three quarters of the L2 stays there between products, and a row kernel's
  // cached loads keep it there: its best cached variant was never more than 1.5% slower than its best
  // evict-first one, and 1.16x faster on the geometric mean, up to 1.86x (H100, 39 records, twenty-first
  // session; at 0.75-1x of the L2 evict-first won by up to 8.5%). Neighbours on either side of that
  // range (the main set's 12 MB and 190 MB matrices) disagree, so the query's own size decides.
  const double l2 = static_cast<double>(l2_bytes_);
  const bool resident = l2_bytes_ > 0 && q.compulsory_bytes > kResidentLow * l2 && q.compulsory_bytes <= kResidentHigh * l2;
  std::unordered_set<std::string_view> runnable;
  for (const std::string_view v : candidates) {
    const NameParts n = split_name(v);
    const bool renumbered = !n.ordering.empty();
    if (renumbered && (!may_renumber || n.ordering != ordering_wanted)) continue;
    if (!may_sort && shape_of(n).padding == VariantShape::Padding::sorted_sell) continue;
    if (streamed && schedule_cached(n.schedule)) continue;
    std::string runs(v);
    if (!narrow_ok && !renumbered && n.narrow()) runs = policy_form(v).wide;
    if (resident && !schedule_cached(n.schedule) && shape_of(v).row_family) {
      const NameParts w = split_name(runs);
      runs = std::string(runs.data(), w.schedule.data() - runs.data()) + cached_schedule(w.schedule) + std::string(w.rest);
    }
    if (runs == v) {
      runnable.insert(v);
    } else {
      made.push_back(std::move(runs));
      runnable.insert(made.back());
    }
  }
  std::vector<double> narrow_logs(k);  // each neighbour's expected gain of narrow offsets
  std::vector<char> never_sorted(k);   // the tuner searched no sorted sell there (sorted_sell_estimate)
  for (size_t j = 0; j < k; ++j) {
    narrow_logs[j] = narrow_log_ratio(near[j].second->features, near[j].second->compulsory_bytes, l2_bytes_, components[j],
                                      vector_components, q.precision);
    never_sorted[j] = sorted_twins && !sorted_sell_pays(near[j].second->features, components[j]);
  }
  // A scattered query (renumbering may pay) learns from neighbours whose columns lie near the diagonal as
  // from the query renumbered: there a renumbered candidate is rated by its plain form, and a plain one by
  // that form slowed by what renumbering gains on scattered matrices like the query (renumbering_gain;
  // where it loses, the renumbered ones are slowed instead). Read as they stand, such neighbours rate
  // plain variants near their best and renumbered ones unknown (2x), outvoting the scattered neighbours
  // that timed both: a random-order 250 MB Laplacian in f32, learnt from two random-order Laplacians and
  // three ordered ones, got a plain ELL at 2.2x the time of its renumbered best (H200, fortieth session).
  std::vector<char> describes_renumbered(k, 0);
  for (size_t j = 0; j < k; ++j) describes_renumbered[j] = may_renumber && near_diagonal_columns(near[j].second->features);
  const bool none_renumbered = !any_renumbered(profiles, ordering_wanted);  // twins are made below
  double renumbered_gain = 1;
  if (may_renumber && (none_renumbered || std::find(describes_renumbered.begin(), describes_renumbered.end(), 1) != describes_renumbered.end())) {
    auto own_profile = [&](const MatrixRecord& r) -> const Profile& { return cache_->profile(r, q.deterministic, ""); };
    auto coordinates_of = [&](const MatrixRecord& r, int c) -> const auto& { return cache_->coordinates(r, c); };
    renumbered_gain = renumbering_gain(db_, may_teach, own_profile, coordinates_of, query, preferred_ordering(q.features));
  }
  const double plain_penalty_log = std::max(0.0, std::log(renumbered_gain));
  const double renumbered_penalty_log = std::max(0.0, -std::log(renumbered_gain));
  // A layout that pads more on the query than on a neighbour reads more bytes there: its time scales by
  // the ratio (ELL tuned on a regular grid, then run on an irregular mesh), where the bytes decide the time
  // (padding_log_ratio: a latency-bound matrix pays little for its padding). The other way it gains at
  // most kPaddingGainLimit: where a neighbour pads much more (a skewed graph), its slow time is more than
  // bytes (the slice's longest row is a chain); the full ratio made sell16 4x faster on an R-MAT query
  // than on the graph neighbour, and it ran 7.8x slower than the best (main-set holdout, H100 database of
  // the twentieth session). By padding kind and neighbour, computed once (the ratio depends on nothing
  // else of the variant).
  std::array<std::vector<double>, 4> padding_logs_by_kind;
  for (int kind = 0; kind < 4; ++kind) {
    VariantShape shape;
    shape.padding = static_cast<VariantShape::Padding>(kind);
    const double here = traffic_factor(shape, q.features, q.components, vector_components, q.precision);
    for (size_t j = 0; j < k; ++j) {
      const MatrixRecord& r = *near[j].second;
      const double there = traffic_factor(shape, r.features, components[j], vector_components, q.precision);
      padding_logs_by_kind[kind].push_back(
          padding_log_ratio(here, q.compulsory_bytes, there, r.compulsory_bytes, l2_bytes_, kPaddingGainLimit));
    }
  }
  // Relative times carry over between matrices of different sizes only above each launch kind's floor.
  // From the main set's 6-190 MB matrices hola's 1.2-2x of the best read as 1.2-2x on a 0.2 MB query,
  // where its floor is 2.4x a row kernel's: the model chose hola there, 2.6-3.1x slower than the best
  // (H100, twenty-second session). A variant is expected at its time on a neighbour (with the corrections below) scaled by the compulsory bytes, or
  // its kind's floor where that is more, over the query's best time (the neighbour's best scaled alike,
  // not below the lowest floor). Where neighbours and query are alike in size nothing changes; a query
  // far smaller than every neighbour has each variant at its floor, and the variants of one kind keep
  // the order of their relative times (Candidate::scale_free).
  const KindTimes floor_us = launch_floors(profiles, near, std::move(teachers), profile_of);
  const double lowest_floor = *std::min_element(floor_us.begin(), floor_us.end());
  std::vector<double> best_here_us(k, 0.0);  // the query's best time as each neighbour's suggests
  for (size_t j = 0; j < k; ++j) {
    const MatrixRecord& r = *near[j].second;
    if (r.compulsory_bytes > 0 && q.compulsory_bytes > 0 && std::isfinite(lowest_floor))
      best_here_us[j] = std::max(lowest_floor, bests[j]->median_us * q.compulsory_bytes / r.compulsory_bytes);
  }
  // The query's longest row in place of each neighbour's, in its best variant (chain_log_delta): the
  // relative times below stay relative to that best as it would run on the query.
  std::vector<double> best_chain_logs(k, 0.0);
  for (size_t j = 0; j < k; ++j)
    best_chain_logs[j] = chain_log_delta(shape_of(bests[j]->variant), near[j].second->features, q.features, bests[j]->median_us);
  // What rate() looks a variant up by in a neighbour's profile: its names' numbers, its pair, its policy
  // form (parsed only for a variant some neighbour did not time) and a sorted sell's stand-ins (made at
  // their first use).
  struct Lookup {
    Lookup(std::string_view variant, const NameParts& name, const VariantShape& s)
        : v(variant), pair(pair_hash(variant, name)), shape(s) {}
    std::string_view v;
    size_t pair;
    VariantShape shape;
    CandidateIds id;
    bool numbered = false;
    std::optional<PolicyForm> form;
    std::optional<std::vector<StandIn>> stand_ins;
  };
  // log(time / best) of a variant on neighbour j: as timed there (`timed` set), else estimated.
  auto neighbour_log = [&](size_t j, Lookup& l, bool& timed) {
    if (!l.numbered) {
      l.id.self = cache_->ids.find(l.v);
      l.numbered = true;
    }
    if (const double* t = l.id.self >= 0 ? profiles[j]->log_relative.find(l.id.self) : nullptr) {
      timed = true;
      return *t;
    }
    if (!l.form) {
      l.form = policy_form(l.v);
      add_policy_ids(l.id, l.v, *l.form, cache_->ids);
    }
    std::optional<double> known = estimate_known(*profiles[j], l.id, l.pair, l.form->narrow, narrow_logs[j]);
    // a sorted sell on a neighbour that never sorted: through its ELL and sell32 forms
    if (!known && never_sorted[j] && l.shape.padding == VariantShape::Padding::sorted_sell) {
      if (!l.stand_ins) l.stand_ins = sorted_sell_stand_ins(l.v, cache_->ids);
      known = sorted_sell_estimate(*profiles[j], *l.stand_ins, *near[j].second, components[j], vector_components,
                                   q.precision, l2_bytes_, narrow_logs[j]);
    }
    return known.value_or(kUnknownLog);
  };
  std::vector<double> logs;  // rate()'s per-neighbour log(relative time), reused
  auto rate = [&](std::string_view v) {
    Candidate c;
    c.variant = std::string(v);
    const NameParts name = split_name(v);
    const VariantShape shape = shape_of(name);
    Lookup self(v, name, shape);
    // a renumbered candidate on a neighbour that describes the query renumbered: its plain form there
    const bool renumbered = !name.ordering.empty();
    std::optional<Lookup> plain;
    const double floor = floor_us[launch_kind(name)];
    double mean = 0, floored = 0;
    logs.assign(k, 0.0);
    const double critical_us = critical_path_us(shape, q.features);
    // at the floor: its pointer load and its longest row's chain on top (floor_latency_us)
    const double floor_extra_us = std::isfinite(floor) ? floor_latency_us(shape, q.features) : 0.0;
    const auto& padding_logs = padding_logs_by_kind[static_cast<int>(shape.padding)];
    for (size_t j = 0; j < k; ++j) {
      const MatrixRecord& r = *near[j].second;
      Lookup* lookup = &self;
      if (describes_renumbered[j] && renumbered) {
        if (!plain) {
          const std::string_view plain_name = v.substr(0, v.find('@'));
          plain.emplace(plain_name, split_name(plain_name), shape);
        }
        lookup = &*plain;
      }
      bool timed = false;
      logs[j] = neighbour_log(j, *lookup, timed);
      c.measured_on += timed;
      if (describes_renumbered[j]) logs[j] += renumbered ? renumbered_penalty_log : plain_penalty_log;
      logs[j] += padding_logs[j];
      if (shape.row_family) logs[j] += parallelism_log_ratio(shape, r.features, q.features, q.components);
      // the query's longest row in place of the neighbour's, step by step (chain_log_delta)
      logs[j] += chain_log_delta(shape, r.features, q.features, bests[j]->median_us * std::exp(logs[j])) - best_chain_logs[j];
      // The chain of the query's longest row against what the neighbour's time already holds: its time
      // scaled by the compulsory bytes, or its own chain when that was longer (a skewed neighbour), and
      // never less than the kind's floor (the bytes of a 147-row matrix scale a time to 0.01 us, and a
      // 1 us chain read as 100x slower: the model chose hola for it).
      const double bytes_ratio = r.compulsory_bytes > 0 ? q.compulsory_bytes / r.compulsory_bytes : 0.0;
      const double scaled_us = bests[j]->median_us * std::exp(logs[j]) * bytes_ratio;
      const double kind_floor = std::isfinite(floor) ? floor : 0.0;
      if (critical_us > 0 && r.compulsory_bytes > 0) {
        const double held_us = std::max({scaled_us, critical_path_us(shape, r.features), kind_floor});
        if (critical_us > held_us) logs[j] += std::log(critical_us / held_us);
      }
      mean += out.neighbours[j].weight * logs[j];
      // carried to the query's size: not below the kind's floor (with what the row kernel adds to it there),
      // nor below the chain of its longest row
      const bool far_larger = bytes_ratio < kFloorScale;
      floored += out.neighbours[j].weight *
                 (best_here_us[j] > 0 && far_larger
                      ? std::log(std::max({kind_floor + floor_extra_us, scaled_us, critical_us}) / best_here_us[j])
                      : logs[j]);
    }
    double var = 0;
    for (size_t j = 0; j < k; ++j) var += out.neighbours[j].weight * (logs[j] - mean) * (logs[j] - mean);
    c.expected_relative = std::exp(floored);
    c.scale_free = std::exp(mean);
    c.spread = std::sqrt(var);
    return c;
  };
  for (const std::string_view v : runnable) out.ranked.push_back(rate(v));
  // Expected time first, then the one timed on more neighbours. No risk aversion: ranking by expected
  // time plus a quarter of the spread over the neighbours (sessions seven to nineteen) put first choices
  // within 10% of the best on 67% of 146 held-out records, without on 73% (worst 2.55x -> 1.74x; the
  // family holdout 42% -> 46%, worst 8.5x -> 2.4x; H100 database of the twentieth session).
  auto score = [](const Candidate& c) { return std::log(c.expected_relative); };
  auto rank = [&]() {  // scores computed once per candidate, not per comparison
    std::vector<std::pair<double, size_t>> keys;
    keys.reserve(out.ranked.size());
    for (size_t i = 0; i < out.ranked.size(); ++i) keys.emplace_back(score(out.ranked[i]), i);
    std::sort(keys.begin(), keys.end(), [&](const auto& lk, const auto& rk) {
      if (lk.first != rk.first) return lk.first < rk.first;
      const Candidate &l = out.ranked[lk.second], &r = out.ranked[rk.second];
      if (l.scale_free != r.scale_free) return l.scale_free < r.scale_free;  // at the same floor
      if (l.measured_on != r.measured_on) return l.measured_on > r.measured_on;
      return l.variant < r.variant;
    });
    std::vector<Candidate> sorted;
    sorted.reserve(keys.size());
    for (const auto& key : keys) sorted.push_back(std::move(out.ranked[key.second]));
    out.ranked = std::move(sorted);
  };
  // Neighbours timed narrow twins of their own fastest variants only: where the query's columns may fit,
  // the narrow twins of the first wide candidates are rated too (the others would not reach the top).
  if (narrow_ok) {
    rank();
    const size_t seeds = std::min<size_t>(kTwinSeeds, out.ranked.size());
    for (size_t i = 0; i < seeds; ++i) {
      const NameParts n = split_name(out.ranked[i].variant);
      if (!n.ordering.empty() || n.narrow()) continue;
      std::string twin = policy_form(out.ranked[i].variant).narrow_twin;
      if (twin.empty() || runnable.count(twin)) continue;
      made.push_back(std::move(twin));
      runnable.insert(made.back());
      out.ranked.push_back(rate(made.back()));
      out.ranked.back().twin = true;
    }
  }
  // Where sorting rows cuts the padding of a query of half the L2 or more, the first ELL and sell candidates get
  // their sorted twins at the same schedule: neighbours in mesh order never sorted, so no sorted sell of
  // theirs is near their best (the candidates it proposes), and a stage-one sorted sell of an irregular
  // neighbour is no match for a fully tuned ELL. The twins are rated through their stand-ins.
  if (sorted_twins) {
    rank();
    const size_t ranked = out.ranked.size();
    for (size_t i = 0, seeds = 0; i < ranked && seeds < kTwinSeeds; ++i) {
      const VariantShape shape = shape_of(out.ranked[i].variant);
      if (!shape.row_family || (shape.padding != VariantShape::Padding::ell && shape.padding != VariantShape::Padding::sell))
        continue;
      ++seeds;  // the first ELL and sell candidates, however far down their padding put them
      const std::string twin = with_outer(out.ranked[i].variant, kSortedTwinOuter);
      if (twin.empty()) continue;
      // and, where the columns may fit, its narrow form (the narrow twins above came before it)
      const std::string narrow = narrow_ok && !split_name(twin).narrow() ? policy_form(twin).narrow_twin : std::string();
      for (const bool is_narrow : {false, true}) {
        const std::string& name = is_narrow ? narrow : twin;
        if (name.empty() || runnable.count(name)) continue;
        made.push_back(name);
        runnable.insert(made.back());
        out.ranked.push_back(rate(made.back()));
        out.ranked.back().twin = is_narrow;  // quick tuning times narrow twins last, as the others above
      }
    }
  }
  // A query far smaller than every neighbour has its row kernels at the floor, where the longest row's
  // chain picks the threads per row (floor_latency_us); the neighbours' near-best variants offer only the
  // few they ran well on their own rows (the main set's 6-190 MB matrices: 2-8 and the widest), so the
  // first candidates get their twins at every threads per row.
  if (std::all_of(near.begin(), near.end(), [&](const auto& n) { return q.compulsory_bytes < kFloorScale * n.second->compulsory_bytes; })) {
    rank();
    for (std::string& twin : threads_per_row_twins(out.ranked, kTwinSeeds)) {
      if (runnable.count(twin)) continue;
      made.push_back(std::move(twin));
      runnable.insert(made.back());
      out.ranked.push_back(rate(made.back()));
    }
  }
  // A query in scattered order whose neighbours never timed a renumbered variant (they lie near the
  // diagonal, so the tuner never renumbered them): their profiles describe the query renumbered, and
  // what renumbering gains is learnt from the scattered matrices that timed both ways (renumbering_gain).
  // Without this a random-order 250 MB Laplacian, learnt from the main set's ordered Laplacians, got a
  // plain variant at 0.42x of its renumbered best (H100, twenty-first session).
  // A twin is expected at its plain form's time there, which the neighbours that describe the query
  // renumbered rated (above) slower by the gain.
  if (may_renumber && none_renumbered) {
    const double gain = renumbered_gain;
    if (gain > 1) {
      out.renumbering_gain = gain;
      rank();
      const size_t seeds = std::min<size_t>(kTwinSeeds, out.ranked.size());
      for (size_t i = 0; i < seeds; ++i) {
        if (!split_name(out.ranked[i].variant).ordering.empty()) continue;
        Candidate twin = out.ranked[i];
        // narrow where the layout has that form, as the renumbered fastest that the gain was learnt from
        // mostly are (run-time selection falls back to the wide twin where the renumbered columns do not fit)
        const PolicyForm form = policy_form(twin.variant);
        twin.variant = (form.narrow_twin.empty() ? form.wide : form.narrow_twin) + ordering_wanted;
        if (runnable.count(twin.variant)) continue;
        twin.expected_relative /= gain;
        twin.scale_free /= gain;
        twin.measured_on = 0;
        twin.twin = false;
        made.push_back(twin.variant);
        runnable.insert(made.back());
        out.ranked.push_back(std::move(twin));
      }
    }
  }
  // The padding and longest-row terms can slow every candidate down: expected times stay relative to the
  // fastest expected one.
  double fastest = 0;
  for (const auto& c : out.ranked) fastest = fastest == 0 ? c.expected_relative : std::min(fastest, c.expected_relative);
  if (fastest > 1)
    for (auto& c : out.ranked) c.expected_relative /= fastest;
  // Transferred variants the query's entry type cannot run (no adjoint, too much shared memory) go.
  if (out.transferred && EntryRegistry::instance().contains(q.entry)) {
    const EntryType& entry = EntryRegistry::instance().get(q.entry);
    out.ranked.erase(std::remove_if(out.ranked.begin(), out.ranked.end(),
                                    [&](const Candidate& c) { return !entry_supports(Variant::parse(c.variant), entry); }),
                     out.ranked.end());
  }
  rank();
  if (out.ranked.empty()) return out;
  // Rules the neighbours' profiles cannot teach, applied to every candidate: wide entries on a grid of
  // fewer blocks than SMs run one block per SM (few_blocks_form); a scattered query of compound vectors
  // gathers x in aos (scattered_x_form). The candidates keep their expected times; a rewritten one that
  // repeats an earlier candidate goes.
  const bool few_blocks = q.op == Op::n && sm_count_ > 0 && entry_bytes >= kWideEntryBytes;
  const bool scattered = q.op == Op::n && vector_components > 1 && scattered_columns(q.features);  // measured for A x
  if (few_blocks || scattered) {
    std::unordered_map<std::string, int> rewritten;  // name -> candidates holding it so far
    for (auto& c : out.ranked) {
      bool changed = false;
      if (scattered)
        if (std::string aos = scattered_x_form(c.variant); !aos.empty()) {
          c.variant = std::move(aos);
          changed = true;
        }
      if (few_blocks)
        if (std::string one = few_blocks_form(c.variant, q.features.rows, sm_count_); !one.empty()) {
          c.variant = std::move(one);
          changed = true;
        }
      if (changed) rewritten.emplace(c.variant, 0);
    }
    if (!rewritten.empty()) {  // only a rewritten name can repeat one
      std::vector<Candidate> kept;
      kept.reserve(out.ranked.size());
      for (auto& c : out.ranked) {
        const auto it = rewritten.find(c.variant);
        if (it == rewritten.end() || it->second++ == 0) kept.push_back(std::move(c));
      }
      out.ranked = std::move(kept);
    }
  }

  // Confidence: the first candidate's spread over the neighbours and how far the nearest one is.
  const Candidate& top = out.ranked.front();
  const double nearest = out.neighbours.front().distance;
  out.confidence = std::exp(-top.spread / 0.05) * std::exp(-std::max(0.0, nearest - 0.5));
  return out;
}

Variant rule_of_thumb(const MatrixFeatures& f, const std::string& entry, Precision p, Op op, bool deterministic,
                      const ScheduleLimits& limits) {
  // ELL pads every row to the longest: fine when the longest is close to the mean; sliced ELL pads per
  // slice, the hybrid's answer to moderate irregularity; skewed rows are left to CSR.
  const double spread = ratio(static_cast<double>(f.max_row), f.mean_row), cv = ratio(f.std_row, f.mean_row);
  const char* layout = spread <= 1.5 ? "ell-aos-aos" : (cv <= 1.0 && spread <= 8.0 ? "sell32-aos-aos" : "csr-aos-aos");
  Variant v;
  v.entry = entry;
  v.precision = p;
  v.op = op;
  v.transpose = deterministic ? TransposeKind::copy : TransposeKind::atomic;
  v.layout = Layout::parse(layout);
  int tpr = 1;
  while (tpr < 8 && 2 * tpr <= f.mean_row / 2) tpr *= 2;  // long rows: share them, short rows: one thread each
  // Stage one's schedule: static, 256 threads, as many blocks as fit (half for quaternion f64).
  const int vector_components = EntryRegistry::instance().contains(entry)
                                    ? EntryRegistry::instance().get(entry).num_vector_components() : 1;
  v.schedule = stage_one_row_schedule(limits, vector_components, p, tpr);
  return v;
}

}  // namespace jitsparse
