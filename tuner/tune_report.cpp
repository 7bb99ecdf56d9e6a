// The tuning report: header facts, a summary and a per-domain table, then one section per matrix with
// its layout study, memory chart, schedule heat maps and failures.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/file_util.hpp"
#include "tuner/html_util.hpp"
#include "tuner/report.hpp"
#include "tuner/svg_chart.hpp"

namespace jitsparse {

using namespace report_detail;

namespace {

struct LayoutParts {
  std::string outer, inner, vector;
};

// "sell32-soa-aos" -> outer, inner, vector; the last two parts are inner and vector, the rest is outer
// (so the older "sell-32-soa-aos" spelling also splits right).
LayoutParts split_layout(const std::string& layout) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dash = layout.find('-', start);
    parts.push_back(layout.substr(start, dash - start));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  if (parts.size() < 3) return {layout, "", ""};
  LayoutParts p{parts[0], parts[parts.size() - 2], parts.back()};
  for (size_t i = 1; i + 2 < parts.size(); ++i) p.outer += "-" + parts[i];
  return p;
}

// The schedule part of a variant name "entry.prec/layout/schedule".
std::string schedule_of_variant(const std::string& variant) {
  const size_t slash = variant.rfind('/');
  return slash == std::string::npos ? "" : variant.substr(slash + 1);
}

// The winner's speedup over schedule-only tuning: the stored value, else computed from the two times.
std::optional<double> matrix_speedup(const json& m) {
  if (auto s = number(m, "speedup_over_schedule_only")) return s;
  return ratio(number(object_of(m, "schedule_only"), "median_us"),
               number(object_of(m, "winner"), "median_us"));
}

std::string seconds(std::optional<double> s) { return s ? fixed(*s, 1) + " s" : kNa; }

// ---- top of the page

std::string tune_header(const json& t) {
  const json& gpu = object_of(t, "gpu");
  const json& comp = object_of(t, "compile");
  std::string gpu_text = text(gpu, "name");
  // The parenthesis would be all n/a on an older document without them; leave it out then.
  if (!raw_text(gpu, "arch").empty() || number(gpu, "sm_count"))
    gpu_text += " <span class=\"sub\">(" + text(gpu, "arch") + ", " + fmt_count(number(gpu, "sm_count")) +
                " SMs)</span>";
  const std::string compile_text = fmt_count(number(comp, "variants")) +
                                   " variants: " + fmt_count(number(comp, "compiled")) + " compiled, " +
                                   fmt_count(number(comp, "from_cache")) + " from the cache, " +
                                   seconds(number(comp, "seconds"));
  return "<h1>jitsparse tuning report</h1>\n" +
         facts({{"tool", text(t, "tool")},
                {"GPU", gpu_text},
                {"GPU key", mono(text(gpu, "key"))},
                {"started", text(t, "started")},
                {"wall time", seconds(number(t, "wall_seconds"))},
                {"mode", text(t, "mode")},
                {"compile", compile_text},
                {"matrices", fmt_count(static_cast<double>(array_of(t, "matrices").size()))}});
}

std::string summary_row(const json& m, size_t index) {
  const json& win = object_of(m, "winner");
  // Older documents name only the winning variant; its last part is the schedule.
  std::string schedule = raw_text(win, "schedule");
  if (schedule.empty()) schedule = schedule_of_variant(raw_text(win, "variant"));
  const std::string name = raw_text(m, "name");
  return "<tr>" + td("<a href=\"#" + anchor("m", index, name) + "\">" + or_na(name) + "</a>") +
         td(text(m, "entry")) + td(text(m, "precision")) + td_num(fmt_count(number(m, "rows"))) +
         td_num(fmt_count(number(m, "nnz"))) + td(text(win, "layout")) + td(or_na(schedule)) +
         td_num(fmt_time(number(win, "median_us"))) + td_num(fmt_gbps(number(win, "gbps"))) +
         td_num(fmt_time(number(object_of(m, "schedule_only"), "median_us"))) +
         td_num(fmt_speedup(matrix_speedup(m))) + "</tr>\n";
}

std::string tune_summary(const json& t) {
  const json& matrices = array_of(t, "matrices");
  std::string out = "<h2>Summary</h2>\n";
  if (matrices.empty()) return out + "<p class=\"na\">no matrices were tuned</p>\n";
  out += "<table>\n" +
         header_row({"matrix", "entry", "precision", "rows", "nnz", "winner layout", "schedule",
                     "median &micro;s", "GB/s", "schedule-only &micro;s", "speedup vs schedule-only"});
  for (size_t i = 0; i < matrices.size(); ++i) out += summary_row(matrices[i], i);
  return out + "</table>\n";
}

std::string tune_domains(const json& t) {
  const json& domains = array_of(t, "domains");
  if (domains.empty()) return "";
  std::string out =
      "<h2>Per domain</h2>\n<table>\n" +
      header_row({"entry", "precision", "winner", "geometric-mean speedup over schedule-only", "matrices"});
  for (const json& d : domains) {
    std::string names;
    for (const json& n : array_of(d, "matrices"))
      names += (names.empty() ? "" : ", ") + or_na(scalar_text(n));
    out += "<tr>" + td(text(d, "entry")) + td(text(d, "precision")) + td(mono(text(d, "winner"))) +
           td_num(fmt_speedup(number(d, "geomean_speedup_over_schedule_only"))) +
           td(names.empty() ? kNa : names) + "</tr>\n";
  }
  return out + "</table>\n";
}

// ---- one matrix

std::string matrix_facts(const json& m) {
  const json& f = object_of(m, "features");
  auto rows = number(m, "rows"), cols = number(m, "cols");
  auto mean = number(f, "mean_row"), std_row = number(f, "std_row");
  return facts(
      {{"entry / precision", text(m, "entry") + " / " + text(m, "precision")},
       {"size",
        fmt_count(rows) + " &times; " + fmt_count(cols) + ", " + fmt_count(number(m, "nnz")) + " entries"},
       {"entries per row",
        "mean " + (mean ? fixed(*mean, 2) : kNa) + ", max " + fmt_count(number(f, "max_row")) + ", std " +
            (std_row ? fixed(*std_row, 2) : kNa) + ", empty rows " + fmt_count(number(f, "empty_rows"))},
       {"compulsory traffic", fmt_mb(number(m, "compulsory_bytes")) + " MB"},
       {"winner", mono(text(object_of(m, "winner"), "variant"))},
       {"schedule-only best", mono(text(object_of(m, "schedule_only"), "variant"))},
       {"variants measured", fmt_count(number(m, "measured"))},
       {"timed", raw_text(m, "timing") == "graph"
                     ? std::string("in CUDA graphs: the GPU's time per call, without the host's cost of a launch")
                     : std::string("launches back to back")}});
}

std::string layout_row(const json& l, const std::string& winner) {
  const std::string name = raw_text(l, "layout");
  const LayoutParts p = split_layout(name);
  return std::string(!name.empty() && name == winner ? "<tr class=\"win\">" : "<tr>") + td(or_na(p.outer)) +
         td(or_na(p.inner)) + td(or_na(p.vector)) + td(mono(text(l, "best_variant"))) +
         td_num(fmt_time(number(l, "median_us"))) + td_num(fmt_gbps(number(l, "gbps"))) +
         td_num(fmt_speedup(number(l, "speedup_over_schedule_only"))) + td_num(fmt_mb(number(l, "bytes"))) +
         td_status(l) + "</tr>\n";
}

std::string layout_table(const json& m) {
  const json& layouts = array_of(m, "layouts");
  if (layouts.empty()) return "<p class=\"na\">no layouts measured</p>\n";
  const std::string winner = raw_text(object_of(m, "winner"), "layout");
  std::string out = "<table>\n" + header_row({"outer", "inner", "vector", "best variant", "best &micro;s",
                                              "GB/s", "speedup over schedule-only", "MB", "status"});
  for (const json& l : layouts) out += layout_row(l, winner);
  return out + "</table>\n";
}

std::string layout_speedup_chart(const json& m) {
  std::vector<Bar> bars;
  for (const json& l : array_of(m, "layouts")) {
    auto s = number(l, "speedup_over_schedule_only");
    bars.push_back({raw_text(l, "layout"), s, s ? fixed(*s, 2) + "&times;" : "", s && *s < 1});
  }
  if (bars.empty()) return "";
  return "<figure>" + svg_bar_chart(bars, {1.0, "1.0 = schedule-only", "speedup over schedule-only tuning"}) +
         "<figcaption>Best time per layout relative to the best schedule of the default layout; bars below "
         "the dashed line are slower.</figcaption></figure>\n";
}

std::string memory_chart(const json& m) {
  std::vector<Bar> bars;
  for (const json& l : array_of(m, "layouts")) {
    auto b = number(l, "bytes");
    std::optional<double> mb = b ? std::optional<double>(*b / 1e6) : std::nullopt;
    bars.push_back({raw_text(l, "layout"), mb, mb ? fixed(*mb, 1) + " MB" : "", false});
  }
  if (bars.empty()) return "";
  auto compulsory = number(m, "compulsory_bytes");
  BarChartOptions opt{std::nullopt, "", "device memory per layout (MB)"};
  if (compulsory && *compulsory > 0) opt = {*compulsory / 1e6, "compulsory traffic", opt.axis_label};
  return "<figure>" + svg_bar_chart(bars, opt) +
         "<figcaption>Bytes of the matrix and vectors in each layout (padding included); the dashed line is "
         "the "
         "compulsory traffic of one product.</figcaption></figure>\n";
}

// `next_id` runs over the whole page: the hatch pattern ids of all heat maps must differ.
std::string heatmaps(const json& m, int& next_id) {
  const json& maps = array_of(m, "heatmaps");
  if (maps.empty()) return "";
  std::string out = "<h3>Schedule heat maps</h3>\n";
  for (const json& h : maps) {
    const Heatmap hm = read_heatmap(h);
    out += "<figure>" + svg_heatmap(hm, next_id++) + "<figcaption><b>" + text(h, "layout") + "</b>, " +
           text(h, "kind") + " schedule, " + fmt_count(number(h, "threads_per_row")) +
           " thread(s) per row. Median &micro;s; colour = time &divide; best cell (" +
           fmt_time(heatmap_best(hm)) +
           " &micro;s, outlined): green best, red 2&times; or slower; hatched = no measurement.</figcaption>"
           "</figure>\n";
  }
  return out;
}

std::string failures(const json& m) {
  const json& list = array_of(m, "failures");
  if (list.empty()) return "";
  const size_t shown = std::min<size_t>(list.size(), 200);  // keep the page small on a bad run
  std::string out = "<details><summary>" + grouped(static_cast<double>(list.size())) +
                    " failed variant(s)</summary>\n<table>\n" + header_row({"variant", "status"});
  for (size_t i = 0; i < shown; ++i)
    out += "<tr>" + td(mono(text(list[i], "variant"))) + td_status(list[i]) + "</tr>\n";
  if (shown < list.size())
    out += "<tr><td colspan=\"2\" class=\"na\">" + grouped(static_cast<double>(list.size() - shown)) +
           " more not shown</td></tr>\n";
  return out + "</table></details>\n";
}

std::string matrix_section(const json& m, size_t index, int& next_id) {
  const std::string name = raw_text(m, "name");
  std::string out = "<h2 id=\"" + anchor("m", index, name) + "\">" + or_na(name) + " <span class=\"sub\">" +
                    text(m, "entry") + " " + text(m, "precision") + "</span></h2>\n";
  out += matrix_facts(m);
  out += "<h3>Compound-entry layouts (outer-inner-vector)</h3>\n" + layout_table(m) + layout_speedup_chart(m);
  const std::string mem = memory_chart(m);
  if (!mem.empty()) out += "<h3>Memory per layout</h3>\n" + mem;
  out += heatmaps(m, next_id);
  return out + failures(m);
}

}  // namespace

std::string tune_report_html(const json& tune) {
  std::string out =
      page_open("jitsparse tuning report") + tune_header(tune) + tune_summary(tune) + tune_domains(tune);
  int next_id = 0;
  const json& matrices = array_of(tune, "matrices");
  for (size_t i = 0; i < matrices.size(); ++i) out += matrix_section(matrices[i], i, next_id);
  return out + page_close();
}

void write_tune_report_html(const json& tune, const std::string& path) {
  write_file_atomically(path, tune_report_html(tune));
}

}  // namespace jitsparse
