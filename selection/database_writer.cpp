#include "selection/database_writer.hpp"

#include <charconv>
#include <cmath>
#include <string_view>

namespace jitsparse {
namespace {

using json = nlohmann::json;

// A JSON string: printable ASCII without quotes or backslashes as it is (variant names, "ok"), anything
// else (error messages with quotes, newlines, UTF-8) through nlohmann's escaping.
void append_string(std::string& out, std::string_view s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') {
      out += json(std::string(s)).dump();
      return;
    }
  }
  out += '"';
  out += s;
  out += '"';
}

// The shortest text that reads back as the same double, with a fraction or exponent so that it stays a
// float to JSON readers (as nlohmann writes 4.0); null where it is not finite (as nlohmann does).
void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  const std::string_view text(buf, static_cast<size_t>(end - buf));
  out += text;
  if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

void append_integer(std::string& out, long long v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void append_key(std::string& out, std::string_view key) {
  append_string(out, key);
  out += ": ";
}

// The fields to_json(MeasurementRecord) writes, the same names and the same conditions.
void append_measurement(std::string& out, const MeasurementRecord& m) {
  out += '{';
  append_key(out, "variant");
  append_string(out, m.variant);
  out += ", ";
  append_key(out, "status");
  append_string(out, m.status);
  out += ", ";
  append_key(out, "bytes");
  append_integer(out, m.bytes);
  out += ", ";
  append_key(out, "deterministic");
  out += m.deterministic() ? "true" : "false";
  out += ", ";
  append_key(out, "seconds");
  append_double(out, m.seconds);
  if (m.ok()) {
    out += ", ";
    append_key(out, "median_us");
    append_double(out, m.median_us);
    out += ", ";
    append_key(out, "samples_us");
    out += '[';
    for (size_t i = 0; i < m.samples_us.size(); ++i) {
      if (i > 0) out += ", ";
      append_double(out, m.samples_us[i]);
    }
    out += "], ";
    append_key(out, "reps_per_sample");
    append_integer(out, m.reps_per_sample);
    out += ", ";
    append_key(out, "gbps");
    append_double(out, m.gbps);
    if (m.cold_us > 0) {
      out += ", ";
      append_key(out, "cold_us");
      append_double(out, m.cold_us);
    }
  }
  if (!m.origin.empty()) {
    out += ", ";
    append_key(out, "origin");
    append_string(out, m.origin);
  }
  out += '}';
}

// An array of the head a line an element (the domains), anything else as dump writes it.
void append_value(std::string& out, const json& v) {
  if (!v.is_array() || v.empty()) {
    out += v.dump();
    return;
  }
  out += "[\n";
  for (size_t i = 0; i < v.size(); ++i) {
    out += "  ";
    out += v[i].dump();
    out += i + 1 < v.size() ? ",\n" : "\n";
  }
  out += " ]";
}

void append_record(std::string& out, const MatrixRecord& r) {
  const json fields = record_fields(r);
  out += "  {";
  bool first = true;
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (!first) out += ", ";
    first = false;
    append_key(out, it.key());
    out += it->dump();
  }
  if (!first) out += ", ";
  append_key(out, "measurements");
  out += "[\n";
  for (size_t i = 0; i < r.measurements.size(); ++i) {
    out += "   ";
    append_measurement(out, r.measurements[i]);
    out += i + 1 < r.measurements.size() ? ",\n" : "\n";
  }
  out += "  ]}";
}

}  // namespace

std::string database_text(const json& head, const std::vector<MatrixRecord>& records) {
  size_t measurements = 0;
  for (const auto& r : records) measurements += r.measurements.size();
  std::string out;
  out.reserve(4096 + 320 * measurements);  // a measurement line is about 250-300 characters
  out += "{\n";
  bool first = true;
  auto key = [&](std::string_view k) {
    if (!first) out += ",\n";
    first = false;
    out += ' ';
    append_key(out, k);
  };
  for (auto it = head.begin(); it != head.end(); ++it) {
    if (it.key() == "matrices") continue;
    key(it.key());
    append_value(out, *it);
  }
  key("matrices");
  out += "[\n";
  for (size_t i = 0; i < records.size(); ++i) {
    append_record(out, records[i]);
    out += i + 1 < records.size() ? ",\n" : "\n";
  }
  out += " ]\n}\n";
  return out;
}

}  // namespace jitsparse
