#include "core/entry_type.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/embedded_file.hpp"
#include "core/error.hpp"

namespace jitsparse {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw ParseError(source + ": entry type: " + what);
}

std::vector<std::string> string_list(const nlohmann::json& j, const char* key, const std::string& source) {
  if (!j.contains(key) || !j[key].is_array() || j[key].empty())
    fail(source, std::string("'") + key + "' must be a non-empty array of names");
  std::vector<std::string> names;
  for (const auto& v : j[key]) {
    // Not v.dump(): it recurses, and a deeply nested value would overflow the stack.
    if (!v.is_string())
      fail(source, std::string("'") + key + "' holds " + (v.is_array() ? "an " : "a ") + v.type_name() +
                       ", not a name");
    if (!is_identifier(v.get<std::string>()))
      fail(source, std::string("'") + key + "' holds \"" + v.get<std::string>().substr(0, 40) +
                       "\", which is not a C++ identifier");
    names.push_back(v.get<std::string>());
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    fail(source, std::string("'") + key + "' names a component twice");
  return names;
}

// One cell of "multiply": a sum of terms like "w", "-x", "0.5*a01", "0". Appends bilinear terms.
void parse_cell(const std::string& cell, int out, int x, const std::vector<std::string>& comps,
                std::vector<BilinearTerm>& terms, const std::string& source) {
  std::string s;
  for (char c : cell)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.empty()) fail(source, "an empty cell in 'multiply'");
  size_t i = 0;
  while (i < s.size()) {
    double sign = 1;
    if (s[i] == '+' || s[i] == '-') {
      sign = s[i] == '-' ? -1 : 1;
      ++i;
    }
    size_t end = s.find_first_of("+-", i);
    // a '-' right after an exponent 'e' belongs to the number
    while (end != std::string::npos && end > i && (s[end - 1] == 'e' || s[end - 1] == 'E') && end >= 2 &&
           std::isdigit(static_cast<unsigned char>(s[end - 2])))
      end = s.find_first_of("+-", end + 1);
    std::string term = s.substr(i, end == std::string::npos ? std::string::npos : end - i);
    i = end == std::string::npos ? s.size() : end;
    double coeff = sign;
    std::string name = term;
    if (size_t star = term.find('*'); star != std::string::npos) {
      char* stop = nullptr;
      std::string number = term.substr(0, star);
      double c = std::strtod(number.c_str(), &stop);
      if (number.empty() || *stop != '\0') fail(source, "cannot read the coefficient in '" + cell + "'");
      // strtod takes "inf" and "nan": such a coefficient would turn every product into Inf or NaN
      if (!std::isfinite(c)) fail(source, "the coefficient in '" + cell + "' is not a finite number");
      coeff *= c;
      name = term.substr(star + 1);
    }
    if (name.empty()) fail(source, "cannot read the cell '" + cell + "'");
    if (std::isdigit(static_cast<unsigned char>(name[0])) || name[0] == '.') {
      char* stop = nullptr;
      double c = std::strtod(name.c_str(), &stop);
      if (*stop != '\0' || c != 0.0)
        fail(source, "a constant term '" + term + "' in '" + cell + "': cells must be linear in the entry");
      continue;  // "0"
    }
    auto it = std::find(comps.begin(), comps.end(), name);
    if (it == comps.end()) fail(source, "'" + name + "' in 'multiply' is not one of the entry's components");
    terms.push_back({out, static_cast<int>(it - comps.begin()), x, coeff});
  }
}

// acc += M(a)^T x from the bilinear terms: the term y[out] += c a[i] x[j] of M(a) becomes
// acc[j] += c a[i] x[out]. One statement per output component, in component order.
std::string derived_adjoint_mac(const EntryType& e) {
  std::ostringstream o;
  for (int out = 0; out < e.num_vector_components(); ++out) {
    bool first = true;
    for (const auto& t : e.terms) {
      if (t.x != out) continue;
      if (first) o << "acc." << e.vector_components[out] << " +=";
      const double c = first ? t.coeff : std::fabs(t.coeff);
      o << (first ? (t.coeff < 0 ? " -" : " ") : (t.coeff < 0 ? " - " : " + "));
      if (std::fabs(c) != 1.0) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "T(%.17g) * ", std::fabs(c));
        o << buf;
      }
      o << "a." << e.components[t.a] << " * x." << e.vector_components[t.out];
      first = false;
    }
    if (!first) o << "; ";
  }
  return o.str();
}

}  // namespace

void EntryType::multiply_add(const double* a, const double* x, double* y) const {
  for (const auto& t : terms) y[t.out] += t.coeff * a[t.a] * x[t.x];
}

void EntryType::adjoint_multiply_add(const double* a, const double* x, double* y) const {
  // M(a)^T: the term at (out, x) of M(a) lands at (x, out).
  for (const auto& t : terms) y[t.x] += t.coeff * a[t.a] * x[t.out];
}

std::vector<double> EntryType::expansion(const double* a) const {
  const int v = num_vector_components();
  std::vector<double> m(static_cast<size_t>(v) * v, 0.0);
  for (const auto& t : terms) m[static_cast<size_t>(t.out) * v + t.x] += t.coeff * a[t.a];
  return m;
}

bool EntryType::supports(const std::string& precision) const {
  return std::find(precisions.begin(), precisions.end(), precision) != precisions.end();
}

EntryType parse_entry_type(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) fail(source, "the definition must be a JSON object");
  EntryType e;
  e.source = source;
  if (!j.contains("name") || !j["name"].is_string() || !is_identifier(j["name"].get<std::string>()))
    fail(source, "'name' must be a C++ identifier such as \"block2\"");
  e.name = j["name"].get<std::string>();
  if (j.contains("description") && !j["description"].is_string())
    fail(source, "'description' must be a string");
  e.description = j.value("description", "");
  e.components = string_list(j, "components", source);
  e.vector_components = string_list(j, "vector_components", source);
  const int v = e.num_vector_components();
  if (!j.contains("multiply") || !j["multiply"].is_array() || static_cast<int>(j["multiply"].size()) != v)
    fail(source, "'multiply' must be a " + std::to_string(v) + " x " + std::to_string(v) +
                     " array (rows of the matrix of left multiplication)");
  for (int r = 0; r < v; ++r) {
    const auto& row = j["multiply"][r];
    if (!row.is_array() || static_cast<int>(row.size()) != v)
      fail(source, "row " + std::to_string(r) + " of 'multiply' must have " + std::to_string(v) + " cells");
    for (int c = 0; c < v; ++c) {
      if (!row[c].is_string()) fail(source, "cells of 'multiply' are strings such as \"-x\"");
      parse_cell(row[c].get<std::string>(), r, c, e.components, e.terms, source);
    }
  }
  if (e.terms.empty()) fail(source, "'multiply' is all zeros");
  if (!j.contains("mac") || !j["mac"].is_string() || j["mac"].get<std::string>().empty())
    fail(source, "'mac' must hold the device code of acc += a * x");
  e.mac_snippet = j["mac"].get<std::string>();
  if (j.contains("zero")) {
    if (!j["zero"].is_string()) fail(source, "'zero' must be a string of device code");
    e.zero_snippet = j["zero"].get<std::string>();
  } else {
    for (const auto& n : e.vector_components) e.zero_snippet += "acc." + n + " = T(0); ";
  }
  if (j.contains("adjoint")) {
    if (!j["adjoint"].is_boolean()) fail(source, "'adjoint' must be true or false");
    e.has_adjoint = j["adjoint"].get<bool>();
  }
  if (j.contains("adjoint_mac")) {
    if (!j["adjoint_mac"].is_string() || j["adjoint_mac"].get<std::string>().empty())
      fail(source, "'adjoint_mac' must hold the device code of acc += adjoint(a) * x");
    if (!e.has_adjoint) fail(source, "'adjoint_mac' is given but 'adjoint' is false");
    e.adjoint_mac_snippet = j["adjoint_mac"].get<std::string>();
  } else if (e.has_adjoint) {
    e.adjoint_mac_snippet = derived_adjoint_mac(e);
  }
  e.precisions = {"f32", "f64"};
  if (j.contains("precisions")) {
    e.precisions.clear();
    if (!j["precisions"].is_array()) fail(source, "'precisions' must be an array such as [\"f32\", \"f64\"]");
    for (const auto& p : j["precisions"]) {
      if (!p.is_string() || (p != "f32" && p != "f64")) fail(source, "'precisions' may hold only \"f32\" and \"f64\"");
      e.precisions.push_back(p.get<std::string>());
    }
  }
  return e;
}

EntryType load_entry_type_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path + ": cannot open the entry-type file");
  std::ostringstream text;
  text << in.rdbuf();
  return load_entry_type_string(text.str(), path);
}

EntryType load_entry_type_string(const std::string& text, const std::string& source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // parse_error, and out_of_range for a number beyond double ("1e999")
    throw ParseError(source + ": not valid JSON: " + e.what());
  }
  return parse_entry_type(j, source);
}

EntryRegistry::EntryRegistry() {
  for (const auto& f : embedded_configs_list()) {
    std::string path = f.path;
    if (path.rfind("entries/", 0) != 0) continue;
    types_.push_back(parse_entry_type(nlohmann::json::parse(f.content), "built-in:configs/" + path));
  }
  if (const char* env = std::getenv("JITSPARSE_ENTRY_PATH")) {
    std::stringstream dirs(env);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty() || !std::filesystem::is_directory(dir)) continue;
      std::vector<std::filesystem::path> files;
      for (const auto& f : std::filesystem::directory_iterator(dir))
        if (f.path().extension() == ".json") files.push_back(f.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) add(load_entry_type_file(f.string()));
    }
  }
}

const EntryRegistry& EntryRegistry::instance() { return mutable_instance(); }

EntryRegistry& EntryRegistry::mutable_instance() {
  static EntryRegistry registry;
  return registry;
}

void EntryRegistry::add(EntryType type) {
  for (auto& t : types_)
    if (t.name == type.name) {
      t = std::move(type);
      return;
    }
  types_.push_back(std::move(type));
}

bool EntryRegistry::contains(const std::string& name) const {
  return std::any_of(types_.begin(), types_.end(), [&](const EntryType& t) { return t.name == name; });
}

const EntryType& EntryRegistry::get(const std::string& name) const {
  for (const auto& t : types_)
    if (t.name == name) return t;
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw InvalidArgument("unknown entry type '" + name + "' (known: " + known +
                        "; add one with a JSON file, see configs/entries)");
}

std::vector<std::string> EntryRegistry::names() const {
  std::vector<std::string> n;
  for (const auto& t : types_) n.push_back(t.name);
  return n;
}

}  // namespace jitsparse
