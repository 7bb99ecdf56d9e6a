#include "tuner/svg_chart.hpp"

#include <algorithm>
#include <cmath>

#include "tuner/html_util.hpp"

namespace jitsparse::report_detail {

namespace {

// One decimal is finer than a pixel and keeps the output stable across platforms.
std::string svg_num(double v) { return fixed(v, 1); }

std::string svg_open(double width, double height) {
  return "<svg width=\"" + svg_num(width) + "\" height=\"" + svg_num(height) + "\" viewBox=\"0 0 " +
         svg_num(width) + " " + svg_num(height) + "\" role=\"img\">\n";
}

std::string svg_line(const char* cls, double x1, double y1, double x2, double y2) {
  return "<line class=\"" + std::string(cls) + "\" x1=\"" + svg_num(x1) + "\" y1=\"" + svg_num(y1) +
         "\" x2=\"" + svg_num(x2) + "\" y2=\"" + svg_num(y2) + "\"/>";
}

std::string svg_text(double x, double y, const std::string& escaped, const char* anchor_pos = "start",
                     const char* cls = nullptr) {
  std::string out =
      "<text x=\"" + svg_num(x) + "\" y=\"" + svg_num(y) + "\" text-anchor=\"" + anchor_pos + "\"";
  if (cls) out += " class=\"" + std::string(cls) + "\"";
  return out + ">" + escaped + "</text>";
}

// ---- bar chart

constexpr double kBarWidth = 760, kBarRowH = 20, kBarTop = 18, kBarBottom = 36;
constexpr size_t kBarLabelChars = 52;  // longer labels are cut; the full text is in a <title>

// A step of 1, 2 or 5 times a power of ten giving about `target` ticks up to `max`.
double nice_step(double max, int target) {
  const double raw = max / target;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

// Where things go: the value axis runs from x0 (after the labels) to x1 (room for value text).
struct BarFrame {
  double x0, x1, plot_bottom, step, scale_max;
  double x_of(double v) const { return x0 + (x1 - x0) * std::clamp(v, 0.0, scale_max) / scale_max; }
};

BarFrame bar_frame(const std::vector<Bar>& bars, const BarChartOptions& opt) {
  size_t longest = 0;
  for (const auto& b : bars) longest = std::max(longest, b.label.size());
  // About 6.3 px per character of the 11 px font; bounded so neither labels nor bars get squeezed out.
  const double label_w =
      std::clamp(6.3 * static_cast<double>(std::min(longest, kBarLabelChars)) + 12, 80.0, 340.0);
  double max_v = opt.reference.value_or(0);  // the reference line must stay on the chart
  for (const auto& b : bars)
    if (b.value) max_v = std::max(max_v, *b.value);
  if (!(max_v > 0)) max_v = 1;
  const double step = nice_step(max_v * 1.05, 5);  // 5% headroom past the longest bar
  const double scale_max = std::ceil(max_v * 1.05 / step) * step;
  return {label_w, kBarWidth - 70, kBarTop + kBarRowH * static_cast<double>(bars.size()), step, scale_max};
}

std::string bar_grid(const BarFrame& f) {
  std::string out;
  // The epsilon keeps the last tick despite the rounding error accumulated by repeated addition.
  for (double t = 0; t <= f.scale_max + f.step * 1e-9; t += f.step) {
    const double x = f.x_of(t);
    out += svg_line("grid", x, kBarTop, x, f.plot_bottom);
    out +=
        svg_text(x, f.plot_bottom + 14, html_escape(f.step < 1 ? fixed(t, 1) : grouped(t)), "middle") + "\n";
  }
  return out;
}

std::string bar_reference(const BarFrame& f, const BarChartOptions& opt) {
  if (!opt.reference || *opt.reference <= 0) return "";
  const double x = f.x_of(*opt.reference);
  std::string out = svg_line("ref", x, kBarTop - 4, x, f.plot_bottom + 2) + "\n";
  if (!opt.reference_label.empty())
    out += svg_text(x + 4, kBarTop - 6, html_escape(opt.reference_label)) + "\n";
  return out;
}

std::string bar_row(const Bar& b, double y, const BarFrame& f) {
  std::string out = "<text x=\"" + svg_num(f.x0 - 6) + "\" y=\"" + svg_num(y + 14) +
                    "\" text-anchor=\"end\"><title>" + html_escape(b.label) + "</title>" +
                    html_escape(truncated(b.label, kBarLabelChars)) + "</text>";
  if (!b.value) return out + svg_text(f.x0 + 4, y + 14, "n/a") + "\n";
  const double xe = f.x_of(*b.value);
  // At least a pixel wide, so that a tiny value still shows as a bar rather than as nothing.
  out += "<rect class=\"bar" + std::string(b.warn ? " warn" : "") + "\" x=\"" + svg_num(f.x0) + "\" y=\"" +
         svg_num(y + 3) + "\" width=\"" + svg_num(std::max(xe - f.x0, 1.0)) + "\" height=\"14\"/>";
  return out + svg_text(xe + 4, y + 14, b.value_text, "start", "val") + "\n";
}

// ---- heat map

constexpr double kCellW = 56, kCellH = 22, kHeatLeft = 74, kHeatTop = 22;

// Light green (the best) to light red (twice the best or slower), on a log scale of time / best.
std::string heat_colour(double ratio) {
  const double t = std::clamp(std::log2(std::max(ratio, 1.0)), 0.0, 1.0);
  return "hsl(" + fixed(120 * (1 - t), 0) + ",60%,78%)";
}

std::string hatch_pattern(const std::string& hatch) {
  return "<defs><pattern id=\"" + hatch +
         "\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
         "<rect width=\"6\" height=\"6\" fill=\"#f6f6f6\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
         "stroke=\"#c8c8c8\" stroke-width=\"2\"/></pattern></defs>\n";
}

std::string heat_cell(const Heatmap& m, size_t i, size_t j, std::optional<double> best,
                      const std::string& hatch) {
  const double x = kHeatLeft + kCellW * static_cast<double>(j),
               y = kHeatTop + kCellH * static_cast<double>(i);
  const auto& v = m.us[i][j];
  const bool is_best = v && best && *v == *best;
  const std::string fill = v && best ? heat_colour(*v / *best) : "url(#" + hatch + ")";
  std::string out = "<rect class=\"cell" + std::string(is_best ? " best" : "") + "\" x=\"" + svg_num(x) +
                    "\" y=\"" + svg_num(y) + "\" width=\"" + svg_num(kCellW) + "\" height=\"" +
                    svg_num(kCellH) + "\" fill=\"" + fill + "\"><title>n_t=" + html_escape(m.row_labels[i]) +
                    ", n_b=" + html_escape(m.col_labels[j]) + ": " +
                    (v ? fixed(*v, 2) + " us" : "no measurement") + "</title></rect>";
  if (v) out += svg_text(x + kCellW / 2, y + 15, fmt_time(v), "middle");
  return out;
}

std::string heat_row(const Heatmap& m, size_t i, std::optional<double> best, const std::string& hatch) {
  const double y = kHeatTop + kCellH * static_cast<double>(i);
  std::string out =
      svg_text(kHeatLeft - 6, y + 15, m.row_labels[i].empty() ? "n/a" : html_escape(m.row_labels[i]), "end");
  for (size_t j = 0; j < m.col_labels.size(); ++j) out += heat_cell(m, i, j, best, hatch);
  return out + "\n";
}

std::string heat_axes(const Heatmap& m, double grid_w, double grid_h) {
  std::string out;
  for (size_t j = 0; j < m.col_labels.size(); ++j)
    out += svg_text(kHeatLeft + kCellW * (static_cast<double>(j) + 0.5), kHeatTop + grid_h + 14,
                    m.col_labels[j].empty() ? "n/a" : html_escape(m.col_labels[j]), "middle");
  out += "\n" +
         svg_text(kHeatLeft + grid_w / 2, kHeatTop + grid_h + 32, "n_b (blocks per SM)", "middle", "title");
  return out + svg_text(4, 13, "n_t (threads per block) &darr;", "start", "title") + "\n";
}

}  // namespace

std::string svg_bar_chart(const std::vector<Bar>& bars, const BarChartOptions& opt) {
  if (bars.empty()) return "<p class=\"na\">no data to plot</p>\n";
  const BarFrame f = bar_frame(bars, opt);
  std::string out = svg_open(kBarWidth, f.plot_bottom + kBarBottom) + bar_grid(f);
  // The reference line goes under the bars so that their value labels stay readable.
  out += bar_reference(f, opt);
  for (size_t i = 0; i < bars.size(); ++i)
    out += bar_row(bars[i], kBarTop + kBarRowH * static_cast<double>(i), f);
  out += svg_line("axis", f.x0, kBarTop, f.x0, f.plot_bottom) + "\n";
  out +=
      svg_text((f.x0 + f.x1) / 2, f.plot_bottom + 30, html_escape(opt.axis_label), "middle", "title") + "\n";
  return out + "</svg>\n";
}

Heatmap read_heatmap(const nlohmann::json& h) {
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

std::optional<double> heatmap_best(const Heatmap& m) {
  std::optional<double> best;
  for (const auto& row : m.us)
    for (const auto& v : row)
      if (v && *v > 0 && (!best || *v < *best)) best = v;
  return best;
}

std::string svg_heatmap(const Heatmap& m, int id) {
  if (m.row_labels.empty() || m.col_labels.empty()) return "<p class=\"na\">empty heat map</p>\n";
  const std::optional<double> best = heatmap_best(m);
  const double grid_w = kCellW * static_cast<double>(m.col_labels.size());
  const double grid_h = kCellH * static_cast<double>(m.row_labels.size());
  // A minimum width so that the axis titles fit under a narrow grid.
  const double width = std::max(kHeatLeft + grid_w + 10, 260.0), height = kHeatTop + grid_h + 40;
  const std::string hatch = "hatch-" + std::to_string(id);
  std::string out = svg_open(width, height) + hatch_pattern(hatch);
  for (size_t i = 0; i < m.row_labels.size(); ++i) out += heat_row(m, i, best, hatch);
  return out + heat_axes(m, grid_w, grid_h) + "</svg>\n";
}

}  // namespace jitsparse::report_detail
