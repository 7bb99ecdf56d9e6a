#pragma once
// Inline SVG charts for the HTML reports: horizontal bar charts and the n_t x n_b schedule heat map.
// They carry no styles of their own (the page's CSS styles them) and no xmlns (not needed inside HTML).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace jitsparse::report_detail {

struct Bar {
  std::string label;  // raw text, escaped when drawn
  std::optional<double> value;
  std::string value_text;  // already HTML (may hold entities)
  bool warn = false;       // drawn in the warning colour
};

struct BarChartOptions {
  std::optional<double> reference;  // a dashed vertical line (1.0 for speedups)
  std::string reference_label;      // raw text
  std::string axis_label;           // raw text
};

// Horizontal bars, one per row; a bar without a value shows "n/a" and no bar.
std::string svg_bar_chart(const std::vector<Bar>& bars, const BarChartOptions& opt);

struct Heatmap {
  std::vector<std::string> row_labels, col_labels;     // raw text: n_t and n_b values
  std::vector<std::vector<std::optional<double>>> us;  // rows x columns, nullopt = no measurement
};

// From a tune document's heat map object ("threads", "blocks_per_sm", "median_us"); ragged or
// malformed time rows leave cells empty rather than failing.
Heatmap read_heatmap(const nlohmann::json& h);

// The fastest positive time in the map, if any.
std::optional<double> heatmap_best(const Heatmap& m);

// The grid, each cell coloured by its time relative to the best and labelled with the time; cells
// without a measurement are hatched. `id` keeps the hatch pattern's id unique within the page.
std::string svg_heatmap(const Heatmap& m, int id);

}  // namespace jitsparse::report_detail
