#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace jitsparse {

// Self-contained HTML reports: no scripts, fonts, images or links to anything outside the file; the
// plots are inline SVG. Every field is optional: a missing or null value (a failed measurement) is
// shown as "n/a", and every string from the document is HTML-escaped.

// The tuning report for a tune-result document (what `jitsparse tune` writes as JSON beside it).
std::string tune_report_html(const nlohmann::json& tune);
// Writes it atomically; throws Error if the file cannot be written.
void write_tune_report_html(const nlohmann::json& tune, const std::string& path);

// The benchmark page (tables per precision, speedup chart over the best cuSPARSE method).
std::string bench_report_html(const nlohmann::json& bench);
// Writes it atomically; throws Error if the file cannot be written.
void write_bench_report_html(const nlohmann::json& bench, const std::string& path);

// The evaluation page of `jitsparse evaluate` (its JSON document: gpu, database, holdouts[] of
// evaluation_document plus the cuSPARSE times).
std::string evaluate_report_html(const nlohmann::json& evaluate);
void write_evaluate_report_html(const nlohmann::json& evaluate, const std::string& path);

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string html_escape(const std::string& text);

}  // namespace jitsparse
