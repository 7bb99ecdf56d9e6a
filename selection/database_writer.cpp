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

// The keys of one object on one line, a comma before each but the first.
class ObjectLine {
 public:
  explicit ObjectLine(std::string& out) : out_(out) { out_ += '{'; }
  std::string& key(std::string_view k) {
    if (!first_) out_ += ", ";
    first_ = false;
    append_key(out_, k);
    return out_;
  }

 private:
  std::string& out_;
  bool first_ = true;
};

// The fields to_json(MeasurementRecord) writes, the same names and the same conditions.
void append_measurement(std::string& out, const MeasurementRecord& m) {
  ObjectLine line(out);
  append_string(line.key("variant"), m.variant);
  append_string(line.key("status"), m.status);
  append_integer(line.key("bytes"), m.bytes);
  line.key("deterministic") += m.deterministic() ? "true" : "false";
  append_double(line.key("seconds"), m.seconds);
  if (m.ok()) {
    append_double(line.key("median_us"), m.median_us);
    line.key("samples_us") += '[';
    for (size_t i = 0; i < m.samples_us.size(); ++i) {
      if (i > 0) out += ", ";
      append_double(out, m.samples_us[i]);
    }
    out += ']';
    append_integer(line.key("reps_per_sample"), m.reps_per_sample);
    append_double(line.key("gbps"), m.gbps);
    if (m.cold_us > 0) append_double(line.key("cold_us"), m.cold_us);
  }
  if (!m.origin.empty()) append_string(line.key("origin"), m.origin);
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
  out += "  ";
  ObjectLine line(out);
  for (auto it = fields.begin(); it != fields.end(); ++it) line.key(it.key()) += it->dump();
  line.key("measurements") += "[\n";
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
