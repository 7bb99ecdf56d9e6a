// The benchmark page: header facts, the speedup chart over the best cuSPARSE method, then one table per
// precision with a row per matrix and a column per method.
#include <algorithm>
#include <map>
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

struct BenchMatrix {
  std::string matrix, entry;
  std::map<std::string, std::vector<const json*>> cells;  // method column -> rows
  std::optional<double> best_cusparse_us;
  std::string best_cusparse_method;
};

struct BenchPrecision {
  std::string precision;
  std::vector<std::string> methods;  // columns, jitsparse first
  std::vector<BenchMatrix> matrices;
};

// The column every jitsparse row goes to.
const std::string kJit = "jitsparse";

bool measured_ok(const json& r) {
  const std::string s = raw_text(r, "status");
  return (s.empty() || s == "ok") && number(r, "median_us").has_value();
}

// jitsparse rows share one column (their variant differs per matrix); other methods get one each.
std::string method_column(const json& r) {
  if (flag(r, "is_jitsparse")) return kJit;
  const std::string m = raw_text(r, "method");
  return m.empty() ? "(unnamed)" : m;
}

// ---- grouping the rows: by precision (in order of appearance), then by matrix and entry

BenchPrecision& precision_group(std::vector<BenchPrecision>& groups, const std::string& prec) {
  auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.precision == prec; });
  return g != groups.end() ? *g : groups.emplace_back(BenchPrecision{prec, {}, {}});
}

void add_column(BenchPrecision& g, const std::string& col) {
  if (std::find(g.methods.begin(), g.methods.end(), col) != g.methods.end()) return;
  if (col == kJit)
    g.methods.insert(g.methods.begin(), col);
  else
    g.methods.push_back(col);
}

BenchMatrix& matrix_group(BenchPrecision& g, const std::string& mat, const std::string& entry) {
  auto m = std::find_if(g.matrices.begin(), g.matrices.end(),
                        [&](const auto& x) { return x.matrix == mat && x.entry == entry; });
  return m != g.matrices.end() ? *m : g.matrices.emplace_back(BenchMatrix{mat, entry, {}, {}, ""});
}

void add_row(BenchMatrix& m, const std::string& col, const json& r) {
  m.cells[col].push_back(&r);
  // Ties keep the first method, so the order of the rows decides between equal times.
  auto us = number(r, "median_us");
  if (!flag(r, "is_jitsparse") && measured_ok(r) && (!m.best_cusparse_us || *us < *m.best_cusparse_us)) {
    m.best_cusparse_us = us;
    m.best_cusparse_method = col;
  }
}

std::vector<BenchPrecision> group_bench(const json& bench) {
  std::vector<BenchPrecision> groups;
  for (const json& r : array_of(bench, "rows")) {
    BenchPrecision& g = precision_group(groups, raw_text(r, "precision"));
    const std::string col = method_column(r);
    add_column(g, col);
    add_row(matrix_group(g, raw_text(r, "matrix"), raw_text(r, "entry")), col, r);
  }
  return groups;
}

// ---- rendering

// jitsparse's speedup over the best cuSPARSE method: the stored value, else computed from the times.
std::optional<double> bench_speedup(const json& r, const BenchMatrix& m) {
  if (auto s = number(r, "speedup_vs_best_cusparse")) return s;
  if (!measured_ok(r)) return std::nullopt;
  return ratio(m.best_cusparse_us, number(r, "median_us"));
}

// "jitsparse block3.f64/sell32-soa-aos/static-256x8" -> the variant name.
std::string jitsparse_variant(const std::string& method) {
  const std::string prefix = "jitsparse ";
  return method.compare(0, prefix.size(), prefix) == 0 ? method.substr(prefix.size()) : method;
}

// One measurement: GB/s in bold, then time and stream fraction; a failure shows its (cut) status instead.
std::string bench_measurement(const json& r) {
  const std::string status = raw_text(r, "status");
  if (!status.empty() && status != "ok")
    return "<span class=\"bad\">" + html_escape(truncated(status, 60)) + "</span>";
  std::string out = "<b>" + fmt_gbps(number(r, "gbps")) + "</b> GB/s<br><span class=\"sub\">" +
                    fmt_time(number(r, "median_us")) + " &micro;s &middot; " +
                    fmt_percent(number(r, "fraction_of_stream")) + " of stream</span>";
  // The jitsparse column holds a different variant per matrix, so name it.
  if (flag(r, "is_jitsparse"))
    out +=
        "<br><span class=\"mono sub\">" + html_escape(jitsparse_variant(raw_text(r, "method"))) + "</span>";
  return out;
}

std::string bench_cell(const std::vector<const json*>& rows) {
  std::string out;
  for (const json* r : rows) out += (out.empty() ? "" : "<br>") + bench_measurement(*r);
  return out;
}

// The L2 mode: cold numbers are bandwidth shares, warm ones on matrices that fit in L2 are not.
std::string timing_text(const json& b) {
  if (!b.contains("timing") || !b["timing"].is_object()) return "L2 warm (older file: not recorded)";
  const json& t = b["timing"];
  if (text(t, "l2") == "cold")
    return "L2 cold: " + fmt_count(number(t, "flush_bytes").value_or(0) / 1048576.0) +
           " MiB read before every sample, one launch per sample, median of " + fmt_count(number(t, "samples"));
  return "L2 warm: back-to-back launches, median of " + fmt_count(number(t, "samples")) +
         " samples (matrices that fit in L2 are partly served from it)";
}

// `bench --graph`: how the graph times were taken (timing.graph), else nothing.
std::string graph_timing_text(const json& b) {
  const json& g = object_of(object_of(b, "timing"), "graph");
  if (g.empty()) return "";
  return fmt_count(number(g, "calls_per_graph")) +
         " back-to-back calls captured in one CUDA graph, time per call, L2 warm; on matrices whose compulsory "
         "bytes are below " +
         fmt_mb(number(g, "below_bytes")) + " MB (the L2)";
}

// `bench --graph`: the empty kernel's launch time, the floor under every method.
std::string launch_floor_text(const json& b) {
  const json& f = object_of(b, "empty_kernel");
  const std::string status = raw_text(f, "status");
  if (status != "ok") return html_escape(truncated(status, 200));
  std::string out = "empty kernel: single launches " + fmt_time(number(f, "single_us")) + " &micro;s (q1 " +
                    fmt_time(number(f, "single_q1_us")) + ", q3 " + fmt_time(number(f, "single_q3_us")) + ")";
  const std::string graph_status = raw_text(f, "graph_status");
  if (graph_status == "ok")
    out += "; in a CUDA graph " + fmt_time(number(f, "graph_us")) + " &micro;s per launch (q1 " +
           fmt_time(number(f, "graph_q1_us")) + ", q3 " + fmt_time(number(f, "graph_q3_us")) + ")";
  else
    out += "; in a CUDA graph: " + or_na(truncated(graph_status, 200));
  return out;
}

std::string bench_header(const json& b) {
  const json& gpu = object_of(b, "gpu");
  const json& stream = object_of(b, "stream");
  const std::string gpu_text = text(gpu, "name") + " <span class=\"sub\">(" + text(gpu, "arch") + ", " +
                               fmt_count(number(gpu, "sm_count")) + " SMs)</span>";
  std::vector<std::pair<std::string, std::string>> items = {
      {"tool", text(b, "tool")},
      {"GPU", gpu_text},
      {"started", text(b, "started")},
      {"cuSPARSE", text(b, "cusparse_version")},
      {"stream bandwidth", "copy " + fmt_gbps(number(stream, "copy_gbps")) + " GB/s, read " +
                               fmt_gbps(number(stream, "read_gbps")) + " GB/s"},
      {"timing", timing_text(b)}};
  if (const std::string g = graph_timing_text(b); !g.empty()) items.push_back({"CUDA graph timing", g});
  if (b.contains("empty_kernel")) items.push_back({"launch floor", launch_floor_text(b)});
  return "<h1>jitsparse benchmark</h1>\n" + facts(items);
}

std::string method_cell(const BenchMatrix& m, const std::string& method) {
  auto it = m.cells.find(method);
  if (it == m.cells.end()) return td(kNa);
  const bool best = method == m.best_cusparse_method;
  return td(bench_cell(it->second) + (best ? "<br><span class=\"sub\">&#9733; best cuSPARSE</span>" : ""),
            best ? "best" : nullptr);
}

std::string speedup_cell(const BenchMatrix& m) {
  std::string speedups;
  auto jit = m.cells.find(kJit);
  if (jit != m.cells.end())
    for (const json* r : jit->second)
      speedups += (speedups.empty() ? "" : "<br>") + fmt_speedup(bench_speedup(*r, m));
  return td_num(speedups.empty() ? kNa : speedups);
}

std::string bench_table(const BenchPrecision& g) {
  std::vector<std::string> headers{"matrix", "entry"};
  for (const auto& m : g.methods) headers.push_back(html_escape(m));
  headers.push_back("jitsparse speedup over the best cuSPARSE");
  std::string out = "<h2>" + or_na(g.precision) + "</h2>\n<table>\n" + header_row(headers);
  for (const BenchMatrix& m : g.matrices) {
    out += "<tr>" + td(or_na(m.matrix)) + td(or_na(m.entry));
    for (const auto& method : g.methods) out += method_cell(m, method);
    out += speedup_cell(m) + "</tr>\n";
  }
  return out + "</table>\n";
}

// ---- `bench --graph`: a second table per precision, the time per call inside a CUDA graph

bool has_graph_times(const BenchPrecision& g) {
  for (const auto& m : g.matrices)
    for (const auto& [method, rows] : m.cells)
      for (const json* r : rows)
        if (!raw_text(*r, "graph_status").empty()) return true;
  return false;
}

// Graph time per call in bold, the single-launch median below it; a row without one says why.
std::string graph_measurement(const json& r) {
  const std::string status = raw_text(r, "graph_status");
  if (status.empty()) return kNa;
  if (status != "ok") return "<span class=\"sub\">" + html_escape(truncated(status, 60)) + "</span>";
  return "<b>" + fmt_time(number(r, "graph_us")) + "</b> &micro;s<br><span class=\"sub\">single launches " +
         fmt_time(number(r, "median_us")) + " &micro;s</span>";
}

std::string graph_table(const BenchPrecision& g) {
  std::vector<std::string> headers{"matrix", "entry"};
  for (const auto& m : g.methods) headers.push_back(html_escape(m));
  std::string out = "<h3>" + or_na(g.precision) +
                    ": time per call in a CUDA graph (launch cost separated from the kernel)</h3>\n<table>\n" +
                    header_row(headers);
  for (const BenchMatrix& m : g.matrices) {
    out += "<tr>" + td(or_na(m.matrix)) + td(or_na(m.entry));
    for (const auto& method : g.methods) {
      auto it = m.cells.find(method);
      std::string cell;
      if (it != m.cells.end())
        for (const json* r : it->second) cell += (cell.empty() ? "" : "<br>") + graph_measurement(*r);
      out += td(cell.empty() ? kNa : cell);
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// One bar per jitsparse measurement; a matrix with several is told apart by the method name.
std::vector<Bar> speedup_bars(const std::vector<BenchPrecision>& groups) {
  std::vector<Bar> bars;
  for (const auto& g : groups)
    for (const auto& m : g.matrices) {
      auto jit = m.cells.find(kJit);
      if (jit == m.cells.end()) continue;
      for (const json* r : jit->second) {
        auto s = bench_speedup(*r, m);
        std::string label = m.matrix + " " + g.precision;
        if (jit->second.size() > 1) label += " (" + raw_text(*r, "method") + ")";
        bars.push_back({label, s, s ? fixed(*s, 2) + "&times;" : "", s && *s < 1});
      }
    }
  return bars;
}

std::string bench_chart(const std::vector<BenchPrecision>& groups) {
  const std::vector<Bar> bars = speedup_bars(groups);
  std::string out = "<h2>Speedup over the best cuSPARSE method</h2>\n";
  if (bars.empty()) return out + "<p class=\"na\">no jitsparse measurements</p>\n";
  return out + "<figure>" +
         svg_bar_chart(bars, {1.0, "1.0 = best cuSPARSE", "speedup over the best cuSPARSE"}) +
         "<figcaption>Per matrix and precision; orange bars are slower than the best cuSPARSE "
         "method.</figcaption>"
         "</figure>\n";
}

}  // namespace

std::string bench_report_html(const json& bench) {
  const auto groups = group_bench(bench);
  std::string out = page_open("jitsparse benchmark") + bench_header(bench) + bench_chart(groups);
  if (groups.empty()) out += "<p class=\"na\">no benchmark rows</p>\n";
  for (const auto& g : groups) {
    out += bench_table(g);
    if (has_graph_times(g)) out += graph_table(g);
  }
  out +=
      "<p class=\"sub\">Cells: effective GB/s, median time, and the fraction of the measured stream "
      "bandwidth. &#9733; marks the fastest cuSPARSE method per matrix.</p>\n";
  return out + page_close();
}

void write_bench_report_html(const json& bench, const std::string& path) {
  write_file_atomically(path, bench_report_html(bench));
}

}  // namespace jitsparse
