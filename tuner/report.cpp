#include "tuner/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/file_util.hpp"

namespace jitsparse {

using nlohmann::json;

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

const std::string kNa = "<span class=\"na\">n/a</span>";

// ---- JSON access: every field is optional and may have the wrong type; none of these throw.

const json* field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::optional<double> number_value(const json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<double> number(const json& j, const char* key) {
  const json* v = field(j, key);
  return v ? number_value(*v) : std::nullopt;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Integers with thousands separators, so row and entry counts stay legible.
std::string grouped(double v) {
  std::string digits = fixed(std::fabs(v), 0);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

// Raw (unescaped) text of a scalar: strings as they are, numbers formatted, anything else empty.
std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return fixed(v.get<double>(), 0);
  if (auto d = number_value(v)) return fixed(*d, std::fabs(*d) >= 100 ? 1 : 3);
  return "";
}

std::string raw_text(const json& j, const char* key) {
  const json* v = field(j, key);
  return v ? scalar_text(*v) : "";
}

// Escaped text of a field, or "n/a".
std::string text(const json& j, const char* key) {
  const std::string s = raw_text(j, key);
  return s.empty() ? kNa : html_escape(s);
}

const json& array_of(const json& j, const char* key) {
  static const json empty = json::array();
  const json* v = field(j, key);
  return v && v->is_array() ? *v : empty;
}

const json& object_of(const json& j, const char* key) {
  static const json empty = json::object();
  const json* v = field(j, key);
  return v && v->is_object() ? *v : empty;
}

bool flag(const json& j, const char* key) {
  const json* v = field(j, key);
  return v && v->is_boolean() && v->get<bool>();
}

// ---- number formatting (n/a for a missing value)

std::string fmt_time(std::optional<double> us) {
  if (!us) return kNa;
  const double a = std::fabs(*us);
  return fixed(*us, a >= 1000 ? 0 : a >= 10 ? 1 : 2);
}
std::string fmt_gbps(std::optional<double> g) { return g ? fixed(*g, 0) : kNa; }
std::string fmt_speedup(std::optional<double> s) { return s ? fixed(*s, 2) + "&times;" : kNa; }
std::string fmt_mb(std::optional<double> bytes) { return bytes ? fixed(*bytes / 1e6, 1) : kNa; }
std::string fmt_percent(std::optional<double> f) { return f ? fixed(*f * 100, 0) + "%" : kNa; }
std::string fmt_count(std::optional<double> n) { return n ? grouped(*n) : kNa; }

// ---- small HTML pieces

std::string header_row(const std::vector<std::string>& headers) {
  std::string out = "<tr>";
  for (const auto& h : headers) out += "<th>" + h + "</th>";
  return out + "</tr>\n";
}

std::string td(const std::string& content, const char* cls = nullptr) {
  return cls ? "<td class=\"" + std::string(cls) + "\">" + content + "</td>" : "<td>" + content + "</td>";
}
std::string td_num(const std::string& content) { return td(content, "num"); }

// A status cell: "ok" plain, anything else (failures, skips) highlighted.
std::string td_status(const json& j) {
  const std::string s = raw_text(j, "status");
  if (s.empty()) return td(kNa);
  return td(html_escape(s), s == "ok" ? "ok" : "bad");
}

// A fragment identifier: letters, digits and '-' only, made unique by the index.
std::string anchor(const std::string& prefix, size_t index, const std::string& name) {
  std::string out = prefix + std::to_string(index) + "-";
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

std::string page_open(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title) +
         "</title>\n<style>\n"
         "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#222;"
         "max-width:1200px;font-size:14px}\n"
         "h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}"
         "h3{font-size:15px;margin:18px 0 6px}\n"
         "table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #ddd;padding:3px 8px;"
         "vertical-align:top}th{background:#f3f5f8;text-align:left}\n"
         "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
         ".bad{color:#a33}td.ok{color:#2a7a2a}tr.win td{background:#eef7ee}td.best{background:#fff6d6}\n"
         ".na{color:#999}.sub{color:#666;font-size:12px}.mono{font-family:ui-monospace,Menlo,monospace;"
         "font-size:12px}\n"
         "dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:8px 0}"
         "dl.facts dt{color:#666}dl.facts dd{margin:0}\n"
         "figure{margin:8px 0 14px;display:inline-block;vertical-align:top;margin-right:18px}"
         "figcaption{font-size:12px;color:#555;max-width:760px}\n"
         "svg text{font-family:system-ui,sans-serif;font-size:11px;fill:#333}\n"
         "svg .bar{fill:#4a7fb5}svg .bar.warn{fill:#d9822b}svg .ref{stroke:#c33;stroke-width:1.5;"
         "stroke-dasharray:4 3}svg .grid{stroke:#e4e4e4}svg .axis{stroke:#888}svg text.title{font-weight:600}\n"
         "svg text.val{paint-order:stroke;stroke:#fff;stroke-width:3px}svg .cell{stroke:#fff}svg .cell.best{stroke:#000;stroke-width:2}\n"
         "</style>\n</head>\n<body>\n";
}

std::string page_close() { return "</body>\n</html>\n"; }

std::string facts(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "<dl class=\"facts\">\n";
  for (const auto& [k, v] : items) out += "<dt>" + k + "</dt><dd>" + v + "</dd>\n";
  return out + "</dl>\n";
}

// ---- SVG (inline, styled by the page's CSS; no xmlns needed inside HTML)

std::string svg_num(double v) { return fixed(v, 1); }

std::string svg_text(double x, double y, const std::string& escaped, const char* anchor_pos = "start",
                     const char* cls = nullptr) {
  std::string out = "<text x=\"" + svg_num(x) + "\" y=\"" + svg_num(y) + "\" text-anchor=\"" + anchor_pos + "\"";
  if (cls) out += " class=\"" + std::string(cls) + "\"";
  return out + ">" + escaped + "</text>";
}

// A step of 1, 2 or 5 times a power of ten giving about `target` ticks up to `max`.
double nice_step(double max, int target) {
  const double raw = max / target;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

struct Bar {
  std::string label;  // raw text, escaped when drawn
  std::optional<double> value;
  std::string value_text;  // already HTML (may hold entities)
  bool warn = false;
};

struct BarChartOptions {
  std::optional<double> reference;  // a dashed vertical line (1.0 for speedups)
  std::string reference_label;      // raw text
  std::string axis_label;           // raw text
};

std::string truncated(const std::string& s, size_t max_chars) {
  return s.size() <= max_chars ? s : s.substr(0, max_chars - 3) + "...";
}

// Horizontal bars, one per row; a bar without a value shows "n/a" and no bar.
std::string svg_bar_chart(const std::vector<Bar>& bars, const BarChartOptions& opt) {
  if (bars.empty()) return "<p class=\"na\">no data to plot</p>\n";
  const double width = 760, row_h = 20, top = 18, bottom = 36;
  size_t longest = 0;
  for (const auto& b : bars) longest = std::max(longest, b.label.size());
  const size_t max_chars = 52;
  const double label_w = std::clamp(6.3 * static_cast<double>(std::min(longest, max_chars)) + 12, 80.0, 340.0);
  const double x0 = label_w, x1 = width - 70;
  double max_v = opt.reference.value_or(0);
  for (const auto& b : bars)
    if (b.value) max_v = std::max(max_v, *b.value);
  if (!(max_v > 0)) max_v = 1;
  const double step = nice_step(max_v * 1.05, 5);
  const double scale_max = std::ceil(max_v * 1.05 / step) * step;
  auto x_of = [&](double v) { return x0 + (x1 - x0) * std::clamp(v, 0.0, scale_max) / scale_max; };
  const double plot_bottom = top + row_h * static_cast<double>(bars.size());
  const double height = plot_bottom + bottom;

  std::string out = "<svg width=\"" + svg_num(width) + "\" height=\"" + svg_num(height) + "\" viewBox=\"0 0 " +
                    svg_num(width) + " " + svg_num(height) + "\" role=\"img\">\n";
  for (double t = 0; t <= scale_max + step * 1e-9; t += step) {
    const double x = x_of(t);
    out += "<line class=\"grid\" x1=\"" + svg_num(x) + "\" y1=\"" + svg_num(top) + "\" x2=\"" + svg_num(x) +
           "\" y2=\"" + svg_num(plot_bottom) + "\"/>";
    out += svg_text(x, plot_bottom + 14, html_escape(step < 1 ? fixed(t, 1) : grouped(t)), "middle") + "\n";
  }
  // The reference line goes under the bars so that their value labels stay readable.
  if (opt.reference && *opt.reference > 0) {
    const double x = x_of(*opt.reference);
    out += "<line class=\"ref\" x1=\"" + svg_num(x) + "\" y1=\"" + svg_num(top - 4) + "\" x2=\"" + svg_num(x) +
           "\" y2=\"" + svg_num(plot_bottom + 2) + "\"/>\n";
    if (!opt.reference_label.empty()) out += svg_text(x + 4, top - 6, html_escape(opt.reference_label)) + "\n";
  }
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = top + row_h * static_cast<double>(i);
    out += "<text x=\"" + svg_num(x0 - 6) + "\" y=\"" + svg_num(y + 14) + "\" text-anchor=\"end\"><title>" +
           html_escape(b.label) + "</title>" + html_escape(truncated(b.label, max_chars)) + "</text>";
    if (b.value) {
      const double xe = x_of(*b.value);
      out += "<rect class=\"bar" + std::string(b.warn ? " warn" : "") + "\" x=\"" + svg_num(x0) + "\" y=\"" +
             svg_num(y + 3) + "\" width=\"" + svg_num(std::max(xe - x0, 1.0)) + "\" height=\"14\"/>";
      out += svg_text(xe + 4, y + 14, b.value_text, "start", "val");
    } else {
      out += svg_text(x0 + 4, y + 14, "n/a");
    }
    out += "\n";
  }
  out += "<line class=\"axis\" x1=\"" + svg_num(x0) + "\" y1=\"" + svg_num(top) + "\" x2=\"" + svg_num(x0) +
         "\" y2=\"" + svg_num(plot_bottom) + "\"/>\n";
  out += svg_text((x0 + x1) / 2, plot_bottom + 30, html_escape(opt.axis_label), "middle", "title") + "\n";
  return out + "</svg>\n";
}

// Light green (the best) to light red (twice the best or slower), on a log scale of time / best.
std::string heat_colour(double ratio) {
  const double t = std::clamp(std::log2(std::max(ratio, 1.0)), 0.0, 1.0);
  return "hsl(" + fixed(120 * (1 - t), 0) + ",60%,78%)";
}

struct Heatmap {
  std::vector<std::string> row_labels, col_labels;  // raw text: n_t and n_b values
  std::vector<std::vector<std::optional<double>>> us;
};

Heatmap read_heatmap(const json& h) {
  Heatmap m;
  for (const auto& t : array_of(h, "threads")) m.row_labels.push_back(scalar_text(t));
  for (const auto& b : array_of(h, "blocks_per_sm")) m.col_labels.push_back(scalar_text(b));
  const json& rows = array_of(h, "median_us");
  for (size_t i = 0; i < m.row_labels.size(); ++i) {
    std::vector<std::optional<double>> row(m.col_labels.size());
    if (i < rows.size() && rows[i].is_array())
      for (size_t j = 0; j < row.size() && j < rows[i].size(); ++j) row[j] = number_value(rows[i][j]);
    m.us.push_back(row);
  }
  return m;
}

// A grid of n_t (rows) by n_b (columns), each cell coloured by its time relative to the best cell and
// labelled with the time; cells without a measurement are hatched. `id` keeps the pattern id unique.
std::string svg_heatmap(const Heatmap& m, int id) {
  if (m.row_labels.empty() || m.col_labels.empty()) return "<p class=\"na\">empty heat map</p>\n";
  std::optional<double> best;
  for (const auto& row : m.us)
    for (const auto& v : row)
      if (v && *v > 0 && (!best || *v < *best)) best = v;
  const double cw = 56, ch = 22, left = 74, top = 22;
  const double grid_w = cw * static_cast<double>(m.col_labels.size());
  const double grid_h = ch * static_cast<double>(m.row_labels.size());
  const double width = std::max(left + grid_w + 10, 260.0), height = top + grid_h + 40;
  const std::string hatch = "hatch-" + std::to_string(id);

  std::string out = "<svg width=\"" + svg_num(width) + "\" height=\"" + svg_num(height) + "\" viewBox=\"0 0 " +
                    svg_num(width) + " " + svg_num(height) + "\" role=\"img\">\n";
  out += "<defs><pattern id=\"" + hatch +
         "\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
         "<rect width=\"6\" height=\"6\" fill=\"#f6f6f6\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
         "stroke=\"#c8c8c8\" stroke-width=\"2\"/></pattern></defs>\n";
  for (size_t i = 0; i < m.row_labels.size(); ++i) {
    const double y = top + ch * static_cast<double>(i);
    out += svg_text(left - 6, y + 15, m.row_labels[i].empty() ? "n/a" : html_escape(m.row_labels[i]), "end");
    for (size_t j = 0; j < m.col_labels.size(); ++j) {
      const double x = left + cw * static_cast<double>(j);
      const auto& v = m.us[i][j];
      const bool is_best = v && best && *v == *best;
      const std::string fill = v && best ? heat_colour(*v / *best) : "url(#" + hatch + ")";
      out += "<rect class=\"cell" + std::string(is_best ? " best" : "") + "\" x=\"" + svg_num(x) + "\" y=\"" +
             svg_num(y) + "\" width=\"" + svg_num(cw) + "\" height=\"" + svg_num(ch) + "\" fill=\"" + fill +
             "\"><title>n_t=" + html_escape(m.row_labels[i]) + ", n_b=" + html_escape(m.col_labels[j]) + ": " +
             (v ? fixed(*v, 2) + " us" : "no measurement") + "</title></rect>";
      if (v) out += svg_text(x + cw / 2, y + 15, fmt_time(v), "middle");
    }
    out += "\n";
  }
  for (size_t j = 0; j < m.col_labels.size(); ++j)
    out += svg_text(left + cw * (static_cast<double>(j) + 0.5), top + grid_h + 14,
                    m.col_labels[j].empty() ? "n/a" : html_escape(m.col_labels[j]), "middle");
  out += "\n" + svg_text(left + grid_w / 2, top + grid_h + 32, "n_b (blocks per SM)", "middle", "title");
  out += svg_text(4, 13, "n_t (threads per block) &darr;", "start", "title") + "\n";
  return out + "</svg>\n";
}

// ---- tune report

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

std::optional<double> ratio(std::optional<double> num, std::optional<double> den) {
  if (!num || !den || *den <= 0) return std::nullopt;
  return *num / *den;
}

// The winner's speedup over schedule-only tuning: the stored value, else computed from the two times.
std::optional<double> matrix_speedup(const json& m) {
  if (auto s = number(m, "speedup_over_schedule_only")) return s;
  return ratio(number(object_of(m, "schedule_only"), "median_us"), number(object_of(m, "winner"), "median_us"));
}

std::string tune_header(const json& t) {
  const json& gpu = object_of(t, "gpu");
  const json& comp = object_of(t, "compile");
  std::string gpu_text = text(gpu, "name");
  if (!raw_text(gpu, "arch").empty() || number(gpu, "sm_count"))
    gpu_text += " <span class=\"sub\">(" + text(gpu, "arch") + ", " + fmt_count(number(gpu, "sm_count")) + " SMs)</span>";
  std::string compile_text = fmt_count(number(comp, "variants")) + " variants: " +
                             fmt_count(number(comp, "compiled")) + " compiled, " +
                             fmt_count(number(comp, "from_cache")) + " from the cache, " +
                             (number(comp, "seconds") ? fixed(*number(comp, "seconds"), 1) + " s" : kNa);
  auto wall = number(t, "wall_seconds");
  return "<h1>jitsparse tuning report</h1>\n" +
         facts({{"tool", text(t, "tool")},
                {"GPU", gpu_text},
                {"GPU key", "<span class=\"mono\">" + text(gpu, "key") + "</span>"},
                {"started", text(t, "started")},
                {"wall time", wall ? fixed(*wall, 1) + " s" : kNa},
                {"mode", text(t, "mode")},
                {"compile", compile_text},
                {"matrices", fmt_count(static_cast<double>(array_of(t, "matrices").size()))}});
}

std::string tune_summary(const json& t) {
  const json& matrices = array_of(t, "matrices");
  std::string out = "<h2>Summary</h2>\n";
  if (matrices.empty()) return out + "<p class=\"na\">no matrices were tuned</p>\n";
  out += "<table>\n" + header_row({"matrix", "entry", "precision", "rows", "nnz", "winner layout", "schedule",
                                   "median &micro;s", "GB/s", "schedule-only &micro;s", "speedup vs schedule-only"});
  for (size_t i = 0; i < matrices.size(); ++i) {
    const json& m = matrices[i];
    const json& win = object_of(m, "winner");
    std::string schedule = raw_text(win, "schedule");
    if (schedule.empty()) schedule = schedule_of_variant(raw_text(win, "variant"));
    const std::string name = raw_text(m, "name");
    out += "<tr>" + td("<a href=\"#" + anchor("m", i, name) + "\">" + (name.empty() ? kNa : html_escape(name)) + "</a>") +
           td(text(m, "entry")) + td(text(m, "precision")) + td_num(fmt_count(number(m, "rows"))) +
           td_num(fmt_count(number(m, "nnz"))) + td(text(win, "layout")) +
           td(schedule.empty() ? kNa : html_escape(schedule)) + td_num(fmt_time(number(win, "median_us"))) +
           td_num(fmt_gbps(number(win, "gbps"))) +
           td_num(fmt_time(number(object_of(m, "schedule_only"), "median_us"))) +
           td_num(fmt_speedup(matrix_speedup(m))) + "</tr>\n";
  }
  return out + "</table>\n";
}

std::string tune_domains(const json& t) {
  const json& domains = array_of(t, "domains");
  if (domains.empty()) return "";
  std::string out = "<h2>Per domain</h2>\n<table>\n" +
                    header_row({"entry", "precision", "winner", "geometric-mean speedup over schedule-only",
                                "matrices"});
  for (const json& d : domains) {
    std::string names;
    for (const json& n : array_of(d, "matrices")) {
      if (!names.empty()) names += ", ";
      const std::string s = scalar_text(n);
      names += s.empty() ? kNa : html_escape(s);
    }
    out += "<tr>" + td(text(d, "entry")) + td(text(d, "precision")) +
           td("<span class=\"mono\">" + text(d, "winner") + "</span>") +
           td_num(fmt_speedup(number(d, "geomean_speedup_over_schedule_only"))) + td(names.empty() ? kNa : names) +
           "</tr>\n";
  }
  return out + "</table>\n";
}

std::string matrix_facts(const json& m) {
  const json& f = object_of(m, "features");
  auto rows = number(m, "rows"), cols = number(m, "cols");
  auto mean = number(f, "mean_row"), std_row = number(f, "std_row");
  return facts({{"entry / precision", text(m, "entry") + " / " + text(m, "precision")},
                {"size", fmt_count(rows) + " &times; " + fmt_count(cols) + ", " + fmt_count(number(m, "nnz")) +
                             " entries"},
                {"entries per row", "mean " + (mean ? fixed(*mean, 2) : kNa) + ", max " +
                                        fmt_count(number(f, "max_row")) + ", std " +
                                        (std_row ? fixed(*std_row, 2) : kNa) + ", empty rows " +
                                        fmt_count(number(f, "empty_rows"))},
                {"compulsory traffic", fmt_mb(number(m, "compulsory_bytes")) + " MB"},
                {"winner", "<span class=\"mono\">" + text(object_of(m, "winner"), "variant") + "</span>"},
                {"schedule-only best", "<span class=\"mono\">" + text(object_of(m, "schedule_only"), "variant") +
                                           "</span>"},
                {"variants measured", fmt_count(number(m, "measured"))}});
}

std::string layout_table(const json& m) {
  const json& layouts = array_of(m, "layouts");
  if (layouts.empty()) return "<p class=\"na\">no layouts measured</p>\n";
  const std::string winner = raw_text(object_of(m, "winner"), "layout");
  std::string out = "<table>\n" + header_row({"outer", "inner", "vector", "best variant", "best &micro;s", "GB/s",
                                              "speedup over schedule-only", "MB", "status"});
  for (const json& l : layouts) {
    const std::string name = raw_text(l, "layout");
    const LayoutParts p = split_layout(name);
    auto cell = [](const std::string& s) { return td(s.empty() ? kNa : html_escape(s)); };
    out += std::string(!name.empty() && name == winner ? "<tr class=\"win\">" : "<tr>") + cell(p.outer) +
           cell(p.inner) + cell(p.vector) + td("<span class=\"mono\">" + text(l, "best_variant") + "</span>") +
           td_num(fmt_time(number(l, "median_us"))) + td_num(fmt_gbps(number(l, "gbps"))) +
           td_num(fmt_speedup(number(l, "speedup_over_schedule_only"))) + td_num(fmt_mb(number(l, "bytes"))) +
           td_status(l) + "</tr>\n";
  }
  return out + "</table>\n";
}

std::string layout_speedup_chart(const json& m) {
  std::vector<Bar> bars;
  for (const json& l : array_of(m, "layouts")) {
    auto s = number(l, "speedup_over_schedule_only");
    bars.push_back({raw_text(l, "layout"), s, s ? fixed(*s, 2) + "&times;" : "", s && *s < 1});
  }
  if (bars.empty()) return "";
  return "<figure>" +
         svg_bar_chart(bars, {1.0, "1.0 = schedule-only", "speedup over schedule-only tuning"}) +
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
         "<figcaption>Bytes of the matrix and vectors in each layout (padding included); the dashed line is the "
         "compulsory traffic of one product.</figcaption></figure>\n";
}

std::string heatmaps(const json& m, int& next_id) {
  const json& maps = array_of(m, "heatmaps");
  if (maps.empty()) return "";
  std::string out = "<h3>Schedule heat maps</h3>\n";
  for (const json& h : maps) {
    const Heatmap hm = read_heatmap(h);
    std::optional<double> best;
    for (const auto& row : hm.us)
      for (const auto& v : row)
        if (v && *v > 0 && (!best || *v < *best)) best = v;
    out += "<figure>" + svg_heatmap(hm, next_id++) + "<figcaption><b>" + text(h, "layout") + "</b>, " +
           text(h, "kind") + " schedule, " + fmt_count(number(h, "threads_per_row")) +
           " thread(s) per row. Median &micro;s; colour = time &divide; best cell (" + fmt_time(best) +
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
    out += "<tr>" + td("<span class=\"mono\">" + text(list[i], "variant") + "</span>") + td_status(list[i]) +
           "</tr>\n";
  if (shown < list.size())
    out += "<tr><td colspan=\"2\" class=\"na\">" + grouped(static_cast<double>(list.size() - shown)) +
           " more not shown</td></tr>\n";
  return out + "</table></details>\n";
}

std::string matrix_section(const json& m, size_t index, int& next_id) {
  const std::string name = raw_text(m, "name");
  std::string out = "<h2 id=\"" + anchor("m", index, name) + "\">" + (name.empty() ? kNa : html_escape(name)) +
                    " <span class=\"sub\">" + text(m, "entry") + " " + text(m, "precision") + "</span></h2>\n";
  out += matrix_facts(m);
  out += "<h3>Compound-entry layouts (outer-inner-vector)</h3>\n" + layout_table(m) + layout_speedup_chart(m);
  const std::string mem = memory_chart(m);
  if (!mem.empty()) out += "<h3>Memory per layout</h3>\n" + mem;
  out += heatmaps(m, next_id);
  return out + failures(m);
}

// ---- bench report

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

bool measured_ok(const json& r) {
  const std::string s = raw_text(r, "status");
  return (s.empty() || s == "ok") && number(r, "median_us").has_value();
}

// jitsparse rows share one column (their variant differs per matrix); other methods get one each.
std::string method_column(const json& r) {
  if (flag(r, "is_jitsparse")) return "jitsparse";
  const std::string m = raw_text(r, "method");
  return m.empty() ? "(unnamed)" : m;
}

std::vector<BenchPrecision> group_bench(const json& bench) {
  std::vector<BenchPrecision> groups;
  for (const json& r : array_of(bench, "rows")) {
    const std::string prec = raw_text(r, "precision");
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.precision == prec; });
    if (g == groups.end()) g = groups.insert(groups.end(), BenchPrecision{prec, {}, {}});
    const std::string col = method_column(r);
    if (std::find(g->methods.begin(), g->methods.end(), col) == g->methods.end()) {
      if (col == "jitsparse") g->methods.insert(g->methods.begin(), col);
      else g->methods.push_back(col);
    }
    const std::string mat = raw_text(r, "matrix"), entry = raw_text(r, "entry");
    auto m = std::find_if(g->matrices.begin(), g->matrices.end(),
                          [&](const auto& x) { return x.matrix == mat && x.entry == entry; });
    if (m == g->matrices.end()) m = g->matrices.insert(g->matrices.end(), BenchMatrix{mat, entry, {}, {}, ""});
    m->cells[col].push_back(&r);
    auto us = number(r, "median_us");
    if (!flag(r, "is_jitsparse") && measured_ok(r) && (!m->best_cusparse_us || *us < *m->best_cusparse_us)) {
      m->best_cusparse_us = us;
      m->best_cusparse_method = col;
    }
  }
  return groups;
}

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

std::string bench_cell(const std::vector<const json*>& rows) {
  std::string out;
  for (const json* r : rows) {
    if (!out.empty()) out += "<br>";
    const std::string status = raw_text(*r, "status");
    if (!status.empty() && status != "ok") {
      out += "<span class=\"bad\">" + html_escape(truncated(status, 60)) + "</span>";
      continue;
    }
    out += "<b>" + fmt_gbps(number(*r, "gbps")) + "</b> GB/s<br><span class=\"sub\">" +
           fmt_time(number(*r, "median_us")) + " &micro;s &middot; " +
           fmt_percent(number(*r, "fraction_of_stream")) + " of stream</span>";
    if (flag(*r, "is_jitsparse"))
      out += "<br><span class=\"mono sub\">" + html_escape(jitsparse_variant(raw_text(*r, "method"))) + "</span>";
  }
  return out;
}

std::string bench_header(const json& b) {
  const json& gpu = object_of(b, "gpu");
  const json& stream = object_of(b, "stream");
  std::string gpu_text = text(gpu, "name") + " <span class=\"sub\">(" + text(gpu, "arch") + ", " +
                         fmt_count(number(gpu, "sm_count")) + " SMs)</span>";
  return "<h1>jitsparse benchmark</h1>\n" +
         facts({{"tool", text(b, "tool")},
                {"GPU", gpu_text},
                {"started", text(b, "started")},
                {"cuSPARSE", text(b, "cusparse_version")},
                {"stream bandwidth", "copy " + fmt_gbps(number(stream, "copy_gbps")) + " GB/s, read " +
                                         fmt_gbps(number(stream, "read_gbps")) + " GB/s"}});
}

std::string bench_table(const BenchPrecision& g) {
  std::vector<std::string> headers{"matrix", "entry"};
  for (const auto& m : g.methods) headers.push_back(html_escape(m));
  headers.push_back("jitsparse speedup over the best cuSPARSE");
  std::string out = "<h2>" + (g.precision.empty() ? kNa : html_escape(g.precision)) + "</h2>\n<table>\n" +
                    header_row(headers);
  for (const BenchMatrix& m : g.matrices) {
    out += "<tr>" + td(m.matrix.empty() ? kNa : html_escape(m.matrix)) + td(m.entry.empty() ? kNa : html_escape(m.entry));
    for (const auto& method : g.methods) {
      auto it = m.cells.find(method);
      if (it == m.cells.end()) {
        out += td(kNa);
        continue;
      }
      const bool best = method == m.best_cusparse_method;
      out += td(bench_cell(it->second) + (best ? "<br><span class=\"sub\">&#9733; best cuSPARSE</span>" : ""),
                best ? "best" : nullptr);
    }
    std::string speedups;
    auto jit = m.cells.find("jitsparse");
    if (jit != m.cells.end())
      for (const json* r : jit->second) speedups += (speedups.empty() ? "" : "<br>") + fmt_speedup(bench_speedup(*r, m));
    out += td_num(speedups.empty() ? kNa : speedups) + "</tr>\n";
  }
  return out + "</table>\n";
}

std::string bench_chart(const std::vector<BenchPrecision>& groups) {
  std::vector<Bar> bars;
  for (const auto& g : groups)
    for (const auto& m : g.matrices) {
      auto jit = m.cells.find("jitsparse");
      if (jit == m.cells.end()) continue;
      for (const json* r : jit->second) {
        auto s = bench_speedup(*r, m);
        std::string label = m.matrix + " " + g.precision;
        if (jit->second.size() > 1) label += " (" + raw_text(*r, "method") + ")";
        bars.push_back({label, s, s ? fixed(*s, 2) + "&times;" : "", s && *s < 1});
      }
    }
  std::string out = "<h2>Speedup over the best cuSPARSE method</h2>\n";
  if (bars.empty()) return out + "<p class=\"na\">no jitsparse measurements</p>\n";
  return out + "<figure>" + svg_bar_chart(bars, {1.0, "1.0 = best cuSPARSE", "speedup over the best cuSPARSE"}) +
         "<figcaption>Per matrix and precision; orange bars are slower than the best cuSPARSE method.</figcaption>"
         "</figure>\n";
}

}  // namespace

std::string tune_report_html(const json& tune) {
  std::string out = page_open("jitsparse tuning report") + tune_header(tune) + tune_summary(tune) + tune_domains(tune);
  int next_id = 0;
  const json& matrices = array_of(tune, "matrices");
  for (size_t i = 0; i < matrices.size(); ++i) out += matrix_section(matrices[i], i, next_id);
  return out + page_close();
}

std::string bench_report_html(const json& bench) {
  const auto groups = group_bench(bench);
  std::string out = page_open("jitsparse benchmark") + bench_header(bench) + bench_chart(groups);
  if (groups.empty()) out += "<p class=\"na\">no benchmark rows</p>\n";
  for (const auto& g : groups) out += bench_table(g);
  out += "<p class=\"sub\">Cells: effective GB/s, median time, and the fraction of the measured stream "
         "bandwidth. &#9733; marks the fastest cuSPARSE method per matrix.</p>\n";
  return out + page_close();
}

void write_tune_report_html(const json& tune, const std::string& path) {
  write_file_atomically(path, tune_report_html(tune));
}

void write_bench_report_html(const json& bench, const std::string& path) {
  write_file_atomically(path, bench_report_html(bench));
}

}  // namespace jitsparse
