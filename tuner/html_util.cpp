#include "tuner/html_util.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace jitsparse {

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace report_detail {

// ---- JSON access

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

std::string text(const json& j, const char* key) { return or_na(raw_text(j, key)); }

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

// ---- numbers

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Row and entry counts run to millions; separators keep them legible.
std::string grouped(double v) {
  std::string digits = fixed(std::fabs(v), 0);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::optional<double> ratio(std::optional<double> num, std::optional<double> den) {
  if (!num || !den || *den <= 0) return std::nullopt;
  return *num / *den;
}

std::string truncated(const std::string& s, size_t max_chars) {
  return s.size() <= max_chars ? s : s.substr(0, max_chars - 3) + "...";
}

// Fewer decimals as times grow, so a column of times stays about equally wide.
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

// ---- HTML pieces

std::string or_na(const std::string& raw) { return raw.empty() ? kNa : html_escape(raw); }
std::string mono(const std::string& html) { return "<span class=\"mono\">" + html + "</span>"; }

std::string header_row(const std::vector<std::string>& headers) {
  std::string out = "<tr>";
  for (const auto& h : headers) out += "<th>" + h + "</th>";
  return out + "</tr>\n";
}

std::string td(const std::string& content, const char* cls) {
  return cls ? "<td class=\"" + std::string(cls) + "\">" + content + "</td>" : "<td>" + content + "</td>";
}
std::string td_num(const std::string& content) { return td(content, "num"); }

// "ok" stays plain; anything else (failures, skips) is what the reader looks for, so it stands out.
std::string td_status(const json& j) {
  const std::string s = raw_text(j, "status");
  if (s.empty()) return td(kNa);
  return td(html_escape(s), s == "ok" ? "ok" : "bad");
}

std::string anchor(const std::string& prefix, size_t index, const std::string& name) {
  std::string out = prefix + std::to_string(index) + "-";
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

std::string facts(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "<dl class=\"facts\">\n";
  for (const auto& [k, v] : items) out += "<dt>" + k + "</dt><dd>" + v + "</dd>\n";
  return out + "</dl>\n";
}

// ---- page skeleton

namespace {

// The whole style sheet is inline so the file stands alone; the SVG charts are styled by it too.
const char* const kCss =
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
    "svg text.val{paint-order:stroke;stroke:#fff;stroke-width:3px}svg .cell{stroke:#fff}"
    "svg .cell.best{stroke:#000;stroke-width:2}\n";

}  // namespace

std::string page_open(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title) + "</title>\n<style>\n" + kCss + "</style>\n</head>\n<body>\n";
}

std::string page_close() { return "</body>\n</html>\n"; }

}  // namespace report_detail
}  // namespace jitsparse
