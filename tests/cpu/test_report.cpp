#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/file_util.hpp"
#include "tuner/report.hpp"

using namespace jitsparse;
using nlohmann::json;

namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + needle.size())) ++n;
  return n;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

// A self-contained page: no scripts and nothing loaded from outside the file.
void check_self_contained(const std::string& html) {
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(html, "</html>"));
  CHECK_FALSE(contains(html, "http"));
  CHECK_FALSE(contains(html, "<script"));
  CHECK_FALSE(contains(html, "<link"));
  CHECK_FALSE(contains(html, "<img"));
  CHECK_FALSE(contains(html, "src="));
  CHECK_FALSE(contains(html, "@import"));
  CHECK(count(html, "<svg") == count(html, "</svg>"));
}

json full_tune() {
  return json::parse(R"({
    "tool": "jitsparse 0.1.0", "started": "2026-11-21T20:00:00Z", "wall_seconds": 95.2, "mode": "joint",
    "gpu": {"name": "NVIDIA H100 80GB HBM3", "arch": "sm_90", "sm_count": 132, "key": "h100-sm90-132"},
    "compile": {"variants": 2500, "compiled": 2400, "from_cache": 100, "seconds": 30.1},
    "matrices": [{
      "name": "dirac_sphere_large", "entry": "quaternion", "precision": "f64", "rows": 655362, "cols": 655362,
      "nnz": 4587522, "features": {"mean_row": 7.0, "max_row": 7, "std_row": 0.1, "empty_rows": 0},
      "compulsory_bytes": 180000000,
      "winner": {"variant": "quaternion.f64/sell32-soa-aos/static-256x8", "layout": "sell32-soa-aos",
                 "schedule": "static-256x8", "median_us": 70.1, "gbps": 2560.0},
      "schedule_only": {"variant": "quaternion.f64/csr-aos-aos/dynamic-128x16-tpr2", "median_us": 90.0, "gbps": 2000.0},
      "speedup_over_schedule_only": 1.28,
      "layouts": [
        {"layout": "csr-aos-aos", "best_variant": "quaternion.f64/csr-aos-aos/dynamic-128x16-tpr2", "median_us": 90.0,
         "gbps": 2000.0, "speedup_over_schedule_only": 1.0, "bytes": 123456789, "status": "ok"},
        {"layout": "sell32-soa-aos", "best_variant": "quaternion.f64/sell32-soa-aos/static-256x8", "median_us": 70.1,
         "gbps": 2560.0, "speedup_over_schedule_only": 1.28, "bytes": 130000000, "status": "ok"},
        {"layout": "csr-soa-soa", "best_variant": "quaternion.f64/csr-soa-soa/static-128x4", "median_us": 112.5,
         "gbps": 1600.0, "speedup_over_schedule_only": 0.8, "bytes": 123456789, "status": "ok"},
        {"layout": "ell-aos-aos", "best_variant": null, "median_us": null, "gbps": null,
         "speedup_over_schedule_only": null, "bytes": 999999999, "status": "skipped: over the memory cap"}],
      "heatmaps": [{"layout": "sell32-soa-aos", "kind": "static", "threads_per_row": 1,
                    "threads": [32, 64], "blocks_per_sm": [1, 2, 3, 4],
                    "median_us": [[100.0, 90.0, null, 80.0], [160.0, 85.0, 81.0, 95.0]]}],
      "measured": 350, "failures": [{"variant": "quaternion.f64/ell-aos-aos/static-64x2", "status": "wrong: row 5"}]
    }],
    "domains": [{"entry": "quaternion", "precision": "f64", "winner": "quaternion.f64/sell32-soa-aos/static-256x8",
                 "geomean_speedup_over_schedule_only": 1.25, "matrices": ["dirac_sphere_small", "dirac_sphere_large"]}]
  })");
}

// Nulls where objects are expected, missing fields, empty and ragged arrays, wrong types, NaN, and
// strings that must be escaped.
json hostile_tune() {
  json t = json::parse(R"({
    "tool": "<b>&", "gpu": null, "compile": {"variants": null},
    "matrices": [
      {"name": "<b>&", "entry": "quaternion", "precision": null, "rows": 0, "cols": 0, "nnz": 0,
       "winner": null, "schedule_only": null, "layouts": [], "heatmaps": [], "failures": []},
      {"name": "m\"2'", "layouts": [{"layout": "<i>odd</i>", "status": "failed: <script>alert(1)</script>"},
                                    {"layout": null, "bytes": "many"}],
       "heatmaps": [{"layout": "csr-aos-aos", "threads": [32, 64, 96], "blocks_per_sm": [1, 2],
                     "median_us": [[null, null], [1.5], "junk"]},
                    {"layout": "ell-aos-aos", "threads": [], "blocks_per_sm": [], "median_us": []},
                    {"threads": [32], "blocks_per_sm": [1], "median_us": [[null]]}],
       "failures": [{"variant": "<b>&", "status": "wrong: x < y & z"}], "measured": "lots"},
      null, 5],
    "domains": [{"entry": "<b>&", "winner": null, "matrices": [null, "<b>&"]}, null]
  })");
  t["matrices"][1]["layouts"].push_back({{"layout", "weird-aos-aos"}, {"median_us", NAN}, {"speedup_over_schedule_only", INFINITY}});
  return t;
}

json full_bench() {
  return json::parse(R"({
    "tool": "jitsparse 0.1.0", "started": "2026-11-21T21:00:00Z",
    "gpu": {"name": "NVIDIA H100 80GB HBM3", "arch": "sm_90", "sm_count": 132},
    "cusparse_version": "12.6.3", "stream": {"copy_gbps": 3031.0, "read_gbps": 3077.0},
    "rows": [
      {"matrix": "elasticity_large", "entry": "block3", "precision": "f64",
       "method": "jitsparse block3.f64/sell32-soa-aos/static-256x8", "is_jitsparse": true, "status": "ok",
       "median_us": 80.0, "gbps": 2500.0, "fraction_of_stream": 0.82},
      {"matrix": "elasticity_large", "entry": "block3", "precision": "f64", "method": "cusparse-csr",
       "is_jitsparse": false, "status": "ok", "median_us": 120.0, "gbps": 1600.0, "fraction_of_stream": 0.52,
       "speedup_vs_best_cusparse": null},
      {"matrix": "elasticity_large", "entry": "block3", "precision": "f64", "method": "cusparse-bsr-col",
       "is_jitsparse": false, "status": "ok", "median_us": 92.0, "gbps": 2129.0, "fraction_of_stream": 0.70,
       "speedup_vs_best_cusparse": null},
      {"matrix": "wave_complex", "entry": "complex", "precision": "f32",
       "method": "jitsparse complex.f32/csr-aos-aos/static-128x4", "is_jitsparse": true, "status": "ok",
       "median_us": 50.0, "gbps": 1900.0, "fraction_of_stream": 0.62, "speedup_vs_best_cusparse": 0.8},
      {"matrix": "wave_complex", "entry": "complex", "precision": "f32", "method": "cusparse-csr",
       "is_jitsparse": false, "status": "ok", "median_us": 40.0, "gbps": 2375.0, "fraction_of_stream": 0.77,
       "speedup_vs_best_cusparse": null}]
  })");
}

json hostile_bench() {
  return json::parse(R"({
    "tool": null, "gpu": "not an object", "stream": {"copy_gbps": null},
    "rows": [
      {"matrix": "<b>&", "entry": "real", "precision": "f64", "method": "jitsparse real.f64/csr-aos-aos/static-256x2",
       "is_jitsparse": true, "status": "wrong: <b>&", "median_us": null, "gbps": null, "fraction_of_stream": null,
       "speedup_vs_best_cusparse": null},
      {"matrix": "<b>&", "entry": "real", "precision": "f64", "method": "<b>&cusparse",
       "is_jitsparse": false, "status": "ok", "median_us": null, "gbps": null},
      {"matrix": null, "precision": null},
      {}, null, 7]
  })");
}

std::filesystem::path fresh_temp_dir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("report: html_escape") {
  CHECK(html_escape("<b>&\"'x") == "&lt;b&gt;&amp;&quot;&#39;x");
  CHECK(html_escape("plain") == "plain");
  CHECK(html_escape("") == "");
}

TEST_CASE("report: tune report of a full document") {
  const std::string html = tune_report_html(full_tune());
  check_self_contained(html);
  // header and summary
  CHECK(contains(html, "NVIDIA H100 80GB HBM3"));
  CHECK(contains(html, "sm_90"));
  CHECK(contains(html, "joint"));
  CHECK(contains(html, "2,500 variants"));
  CHECK(contains(html, "655,362"));
  CHECK(contains(html, "static-256x8"));
  CHECK(contains(html, "1.28&times;"));
  CHECK(contains(html, "70.1"));
  CHECK(contains(html, "2560"));
  // domain table
  CHECK(contains(html, "1.25&times;"));
  CHECK(contains(html, "dirac_sphere_small, dirac_sphere_large"));
  // the layout study: split into outer / inner / vector, MB, the skipped layout shown with n/a
  CHECK(contains(html, "<td>sell32</td><td>soa</td><td>aos</td>"));
  CHECK(contains(html, "123.5"));
  CHECK(contains(html, "1000.0"));  // 999999999 bytes in MB
  CHECK(contains(html, "skipped: over the memory cap"));
  CHECK(contains(html, "n/a"));
  CHECK(count(html, "<tr class=\"win\">") == 1);
  // charts: speedups (one below 1 in the warning colour, a reference line), memory, one heat map
  CHECK(count(html, "<svg") == 3);
  CHECK(count(html, "class=\"bar warn\"") == 1);
  CHECK(count(html, "class=\"ref\"") == 2);
  CHECK(contains(html, "n_t (threads per block)"));
  CHECK(contains(html, "n_b (blocks per SM)"));
  // heat map: best cell (80) outlined once, 160 = 2x best is full red, the null cell hatched
  CHECK(count(html, "class=\"cell best\"") == 1);
  CHECK(contains(html, "fill=\"hsl(0,60%,78%)\""));
  CHECK(contains(html, "fill=\"hsl(120,60%,78%)\""));
  CHECK(count(html, "fill=\"url(#hatch-0)\"") == 1);
  CHECK(contains(html, ">160.0</text>"));
  // failures
  CHECK(contains(html, "wrong: row 5"));
}

TEST_CASE("report: tune report survives nulls, empty arrays and strings to escape") {
  std::string html;
  REQUIRE_NOTHROW(html = tune_report_html(hostile_tune()));
  check_self_contained(html);
  CHECK(contains(html, "&lt;b&gt;&amp;"));
  CHECK_FALSE(contains(html, "<b>&"));
  CHECK_FALSE(contains(html, "<i>odd"));
  CHECK(contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  CHECK(contains(html, "wrong: x &lt; y &amp; z"));
  CHECK(contains(html, "m&quot;2&#39;"));
  CHECK(contains(html, "n/a"));
  CHECK_FALSE(contains(html, "nan"));  // NaN and infinity render as n/a, not as numbers
  CHECK_FALSE(contains(html, "inf&times;"));
  // the ragged heat map: 3 x 2 cells, one measured (the best), five hatched
  CHECK(count(html, "fill=\"url(#hatch-0)\"") == 5);
  CHECK(count(html, "class=\"cell best\"") == 1);
  CHECK(contains(html, "empty heat map"));
  // documents that are not objects at all still give a page
  for (const json& doc : {json(), json::object(), json::array(), json("text"), json{{"matrices", 5}}}) {
    std::string page;
    REQUIRE_NOTHROW(page = tune_report_html(doc));
    check_self_contained(page);
    CHECK(contains(page, "no matrices were tuned"));
  }
}

TEST_CASE("report: bench page of a full document") {
  const std::string html = bench_report_html(full_bench());
  check_self_contained(html);
  CHECK(contains(html, "12.6.3"));
  CHECK(contains(html, "3031"));
  CHECK(contains(html, "3077"));
  CHECK(contains(html, "<h2>f64</h2>"));
  CHECK(contains(html, "<h2>f32</h2>"));
  // the best cuSPARSE method per matrix is marked: bsr (92 us) for elasticity, csr for the wave matrix
  CHECK(count(html, "best cuSPARSE</span>") == 2);
  CHECK(contains(html, "<td class=\"best\"><b>2129</b> GB/s"));
  CHECK(contains(html, "<td class=\"best\"><b>2375</b> GB/s"));
  CHECK_FALSE(contains(html, "<td class=\"best\"><b>1600</b>"));
  // speedup computed from the times when the document leaves it out (92 / 80), taken as given otherwise
  CHECK(contains(html, "1.15&times;"));
  CHECK(contains(html, "0.80&times;"));
  CHECK(contains(html, "82% of stream"));
  // one chart: two bars, the one below 1 in the warning colour, a line at 1.0
  CHECK(count(html, "<svg") == 1);
  CHECK(count(html, "<rect class=\"bar\"") == 1);
  CHECK(count(html, "<rect class=\"bar warn\"") == 1);
  CHECK(count(html, "class=\"ref\"") == 1);
  CHECK(contains(html, "block3.f64/sell32-soa-aos/static-256x8"));
}

// `bench --graph`: graph times per row, the empty kernel's floor, and rows without a graph time.
json graph_bench() {
  json b = full_bench();
  b["timing"] = {{"l2", "warm"}, {"samples", 9},
                 {"graph", {{"calls_per_graph", 100}, {"below_bytes", 52428800}}}};
  b["empty_kernel"] = {{"status", "ok"}, {"calls_per_graph", 100}, {"single_us", 2.31}, {"single_q1_us", 2.25},
                       {"single_q3_us", 2.4}, {"graph_status", "ok"}, {"graph_us", 0.87}, {"graph_q1_us", 0.85},
                       {"graph_q3_us", 0.9}};
  auto& rows = b["rows"];
  rows[0]["graph_status"] = "ok";
  rows[0]["graph_us"] = 61.4;
  rows[1]["graph_status"] = "ok";
  rows[1]["graph_us"] = 117.5;
  rows[2]["graph_status"] = "unavailable: not capturable in a CUDA graph: <b>&";
  rows[2]["graph_us"] = nullptr;
  rows[3]["graph_status"] = "skipped: compulsory bytes above the L2 size";
  rows[3]["graph_us"] = nullptr;
  // rows[4] has no graph fields (an older file or a row the bench did not reach)
  return b;
}

TEST_CASE("report: bench page with CUDA graph times (bench --graph)") {
  const std::string html = bench_report_html(graph_bench());
  check_self_contained(html);
  // the floor and how graph times were taken, in the header
  CHECK(contains(html, "launch floor"));
  CHECK(contains(html, "single launches 2.31 &micro;s"));
  CHECK(contains(html, "in a CUDA graph 0.87 &micro;s per launch"));
  CHECK(contains(html, "100 back-to-back calls captured in one CUDA graph"));
  CHECK(contains(html, "52.4 MB"));
  // one graph table per precision, with a time or the reason per cell
  CHECK(count(html, "time per call in a CUDA graph") == 2);
  CHECK(contains(html, "<b>61.4</b> &micro;s<br><span class=\"sub\">single launches 80.0 &micro;s"));
  CHECK(contains(html, "<b>117.5</b> &micro;s"));
  CHECK(contains(html, "unavailable: not capturable in a CUDA graph: &lt;b&gt;&amp;"));
  CHECK_FALSE(contains(html, "graph: <b>&"));
  CHECK(contains(html, "skipped: compulsory bytes above the L2 size"));
  // the ordinary tables and the best-cuSPARSE marks are as without --graph
  CHECK(count(html, "best cuSPARSE</span>") == 2);
  CHECK(contains(html, "<td class=\"best\"><b>2129</b> GB/s"));

  // without --graph nothing of it appears
  const std::string plain = bench_report_html(full_bench());
  CHECK_FALSE(contains(plain, "CUDA graph"));
  CHECK_FALSE(contains(plain, "launch floor"));
  // a failed floor measurement is shown, escaped
  json failed = graph_bench();
  failed["empty_kernel"] = {{"status", "error: <no GPU>"}};
  const std::string f = bench_report_html(failed);
  CHECK(contains(f, "error: &lt;no GPU&gt;"));
  json no_graph_floor = graph_bench();
  no_graph_floor["empty_kernel"]["graph_status"] = "unavailable: <x>";
  CHECK(contains(bench_report_html(no_graph_floor), "in a CUDA graph: unavailable: &lt;x&gt;"));
}

TEST_CASE("report: bench page survives nulls, empty arrays and strings to escape") {
  std::string html;
  REQUIRE_NOTHROW(html = bench_report_html(hostile_bench()));
  check_self_contained(html);
  CHECK(contains(html, "&lt;b&gt;&amp;"));
  CHECK_FALSE(contains(html, "<b>&"));
  CHECK(contains(html, "wrong: &lt;b&gt;&amp;"));
  CHECK(contains(html, "n/a"));
  CHECK_FALSE(contains(html, "best cuSPARSE</span>"));  // the only cuSPARSE row has no time
  for (const json& doc : {json(), json::object(), json{{"rows", json::array()}}, json{{"rows", "x"}}}) {
    std::string page;
    REQUIRE_NOTHROW(page = bench_report_html(doc));
    check_self_contained(page);
    CHECK(contains(page, "no benchmark rows"));
  }
}

TEST_CASE("report: write_* write the pages and report unwritable paths") {
  const auto dir = fresh_temp_dir("jitsparse-report-test");
  const std::string tune_path = (dir / "tune.html").string(), bench_path = (dir / "bench.html").string();
  write_tune_report_html(full_tune(), tune_path);
  write_bench_report_html(full_bench(), bench_path);
  CHECK(read_file(tune_path) == tune_report_html(full_tune()));
  CHECK(read_file(bench_path) == bench_report_html(full_bench()));
  // overwriting keeps one file and no temporaries beside it
  write_tune_report_html(hostile_tune(), tune_path);
  CHECK(read_file(tune_path) == tune_report_html(hostile_tune()));
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 2);
  CHECK_THROWS_AS(write_tune_report_html(full_tune(), (dir / "missing" / "tune.html").string()), Error);
  CHECK_THROWS_AS(write_bench_report_html(full_bench(), (dir / "missing" / "bench.html").string()), Error);
  std::filesystem::remove_all(dir);
}
