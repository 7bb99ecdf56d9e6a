#pragma once
// Building blocks shared by the HTML reports (tuner/report.hpp): tolerant JSON access, number
// formatting, table cells and the page skeleton. Internal to the reports; not a public API.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/report.hpp"

namespace jitsparse::report_detail {

using nlohmann::json;

// What a missing, null or non-finite value renders as.
inline const std::string kNa = "<span class=\"na\">n/a</span>";

// ---- JSON access: every field is optional and may have the wrong type; none of these throw.

const json* field(const json& j, const char* key);  // null if absent or j is not an object
std::optional<double> number_value(const json& v);  // finite numbers only
std::optional<double> number(const json& j, const char* key);
// Raw (unescaped) text of a scalar: strings as they are, numbers formatted, anything else empty.
std::string scalar_text(const json& v);
std::string raw_text(const json& j, const char* key);
std::string text(const json& j, const char* key);       // escaped, or kNa when empty
const json& array_of(const json& j, const char* key);   // an empty array unless it is one
const json& object_of(const json& j, const char* key);  // an empty object unless it is one
bool flag(const json& j, const char* key);              // true only for a boolean true

// ---- numbers

std::string fixed(double v, int decimals);
std::string grouped(double v);  // an integer with thousands separators
std::optional<double> ratio(std::optional<double> num, std::optional<double> den);
std::string truncated(const std::string& s, size_t max_chars);

// Formatted for a table cell; kNa for a missing value.
std::string fmt_time(std::optional<double> us);
std::string fmt_gbps(std::optional<double> g);
std::string fmt_speedup(std::optional<double> s);
std::string fmt_mb(std::optional<double> bytes);
std::string fmt_percent(std::optional<double> f);
std::string fmt_count(std::optional<double> n);

// ---- HTML pieces (arguments are HTML already unless a comment says raw)

std::string or_na(const std::string& raw);  // escaped raw text, or kNa when empty
std::string mono(const std::string& html);  // in the monospace font (variant names)

std::string header_row(const std::vector<std::string>& headers);
std::string td(const std::string& content, const char* cls = nullptr);
std::string td_num(const std::string& content);
std::string td_status(const json& j);  // the "status" field, failures highlighted
// A fragment identifier from a raw name: letters, digits and '-' only, made unique by the index.
std::string anchor(const std::string& prefix, size_t index, const std::string& name);
std::string facts(const std::vector<std::pair<std::string, std::string>>& items);

// The page up to the open <body> (title raw), with all the CSS; and its end.
std::string page_open(const std::string& title);
std::string page_close();

}  // namespace jitsparse::report_detail
