#include "selection/database_reader.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "core/error.hpp"

namespace jitsparse {
namespace {

using json = nlohmann::json;

// One measurement object's fields as from_json(MeasurementRecord) reads them.
class MeasurementFields {
 public:
  void key(const std::string& k) { key_ = k; }

  void number(double v, bool integral) {
    if (in_samples_) {
      m_.samples_us.push_back(v);
    } else if (key_ == "bytes" || key_ == "reps_per_sample") {
      if (!integral) wrong("an integer");
      (key_ == "bytes" ? m_.bytes : reps_) = static_cast<int64_t>(v);
    } else if (key_ == "median_us") {
      m_.median_us = v;
    } else if (key_ == "gbps") {
      m_.gbps = v;
    } else if (key_ == "seconds") {
      m_.seconds = v;
    } else if (key_ == "cold_us") {
      m_.cold_us = v;
    } else if (key_ == "variant" || key_ == "status" || key_ == "origin" || key_ == "samples_us") {
      wrong(key_ == "samples_us" ? "an array of numbers" : "a string");
    }
  }
  void string(std::string& s) {
    if (in_samples_) wrong("an array of numbers");
    if (key_ == "variant") {
      variant_ = std::move(s);
    } else if (key_ == "status") {
      status_ = std::move(s);
    } else if (key_ == "origin") {
      m_.origin = std::move(s);
    } else if (is_number_field()) {
      wrong("a number");
    }
  }
  void other_scalar() {  // null or a boolean (deterministic is written, not read: it follows from the name)
    if (in_samples_ || key_ == "variant" || key_ == "status" || key_ == "origin" || is_number_field())
      wrong(in_samples_ ? "an array of numbers" : "another type");
  }
  // Arrays and objects: samples_us is the only container a measurement holds; any other is skipped.
  bool start_samples() {
    if (key_ != "samples_us" || in_samples_) return false;
    in_samples_ = true;
    return true;
  }
  void end_samples() { in_samples_ = false; }
  // A key of ours (or a sample): a container there is malformed, not an extension to skip.
  bool is_container_field() const {
    return in_samples_ || key_ == "samples_us" || is_number_field() || key_ == "variant" || key_ == "status" ||
           key_ == "origin";
  }

  MeasurementRecord finish() {
    if (!variant_) throw ParseError("a measurement without \"variant\"");
    if (!status_) throw ParseError("measurement " + *variant_ + " has no \"status\"");
    m_.variant = std::move(*variant_);
    m_.status = std::move(*status_);
    m_.reps_per_sample = static_cast<int>(reps_);
    MeasurementRecord::check_origin(m_.origin);
    return std::move(m_);
  }

 private:
  bool is_number_field() const {
    return key_ == "bytes" || key_ == "reps_per_sample" || key_ == "median_us" || key_ == "gbps" ||
           key_ == "seconds" || key_ == "cold_us";
  }
  [[noreturn]] void wrong(const char* expected) const {
    throw ParseError("measurement field \"" + key_ + "\" is not " + expected);
  }
  MeasurementRecord m_;
  std::optional<std::string> variant_, status_;
  int64_t reps_ = 0;
  std::string key_;
  bool in_samples_ = false;
};

// nlohmann's SAX events -> the document (as json::parse builds it) with the measurement objects captured.
class DatabaseSax {
 public:
  explicit DatabaseSax(std::vector<std::vector<MeasurementRecord>>& measured) : measured_(measured) {}
  json& document() { return root_; }
  const std::string& error() const { return error_; }

  bool null() {
    return scalar([] { return json(nullptr); }, [](MeasurementFields& f) { f.other_scalar(); });
  }
  bool boolean(bool b) {
    return scalar([b] { return json(b); }, [](MeasurementFields& f) { f.other_scalar(); });
  }
  bool number_integer(json::number_integer_t v) {
    return scalar([v] { return json(v); }, [v](MeasurementFields& f) { f.number(static_cast<double>(v), true); });
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return scalar([v] { return json(v); }, [v](MeasurementFields& f) { f.number(static_cast<double>(v), true); });
  }
  bool number_float(json::number_float_t v, const std::string&) {
    return scalar([v] { return json(v); }, [v](MeasurementFields& f) { f.number(v, std::floor(v) == v); });
  }
  bool string(std::string& s) {
    return scalar([&s] { return json(std::move(s)); }, [&s](MeasurementFields& f) { f.string(s); });
  }
  bool binary(json::binary_t&) { return false; }  // not produced by the JSON lexer

  bool key(std::string& k) {
    if (measurement_) {
      if (skip_ == 0) measurement_->key(k);
    } else {
      key_ = k;
    }
    return true;
  }

  bool start_object(std::size_t) {
    if (measurement_) {
      if (skip_ == 0 && measurement_->is_container_field())
        throw ParseError("a measurement field holds an object where a value of its own belongs");
      ++skip_;  // an object under a key that is none of ours: skipped whole
      return true;
    }
    if (at_measurement()) {
      measurement_.emplace();
      return true;
    }
    if (at_matrix()) {
      matrix_ = static_cast<long>(stack_.back()->size());
      if (measured_.size() <= static_cast<size_t>(matrix_)) measured_.resize(matrix_ + 1);
    }
    open(json::object());
    return true;
  }
  bool end_object() {
    if (measurement_) {
      if (skip_ > 0) {
        --skip_;
        return true;
      }
      measured_[matrix_].push_back(measurement_->finish());
      measurement_.reset();
      return true;
    }
    close();
    return true;
  }
  bool start_array(std::size_t) {
    if (measurement_) {
      if (skip_ > 0 || !measurement_->start_samples()) {
        if (skip_ == 0 && measurement_->is_container_field())
          throw ParseError("a measurement field holds an array where a scalar belongs");
        ++skip_;
      }
      return true;
    }
    open(json::array());
    return true;
  }
  bool end_array() {
    if (measurement_) {
      if (skip_ > 0)
        --skip_;
      else
        measurement_->end_samples();
      return true;
    }
    close();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const json::exception& e) {
    error_ = e.what();
    return false;
  }

 private:
  template <class V, class F>
  bool scalar(V&& value, F&& to_measurement) {
    if (measurement_) {
      if (skip_ == 0) to_measurement(*measurement_);
      return true;
    }
    put(value());
    return true;
  }
  // Where the next value goes: the root, the end of the open array, or the open object's last key.
  json* put(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();  // stays put: the array grows again only after this child closes
    }
    json& slot = top[key_];
    slot = std::move(v);
    return &slot;
  }
  void open(json&& container) {
    const std::string under = stack_.empty() || stack_.back()->is_array() ? std::string() : key_;
    stack_.push_back(put(std::move(container)));
    keys_.push_back(under);
  }
  void close() {
    stack_.pop_back();
    keys_.pop_back();
  }
  // root{ "matrices": [ {matrix} ] }: stack root object, the matrices array
  bool at_matrix() const {
    return stack_.size() == 2 && keys_[1] == "matrices" && stack_[0]->is_object() && stack_[1]->is_array();
  }
  // ... { "measurements": [ {measurement} ] }: stack root, matrices, a matrix, its measurements array
  bool at_measurement() const {
    return stack_.size() == 4 && keys_[1] == "matrices" && keys_[3] == "measurements" && stack_[1]->is_array() &&
           stack_[2]->is_object() && stack_[3]->is_array();
  }

  std::vector<std::vector<MeasurementRecord>>& measured_;
  json root_;
  std::vector<json*> stack_;        // the open containers, outermost first
  std::vector<std::string> keys_;   // the key each open container sits under ("" in an array, at the root)
  std::string key_;                 // the last key read in the innermost open object
  long matrix_ = -1;                // index of the open matrix object in "matrices"
  std::optional<MeasurementFields> measurement_;
  int skip_ = 0;                    // depth inside a container of a measurement that is not samples_us
  std::string error_;
};

}  // namespace

nlohmann::json parse_database_document(const std::string& text, std::vector<std::vector<MeasurementRecord>>& measured) {
  measured.clear();
  DatabaseSax sax(measured);
  if (!json::sax_parse(text, &sax)) throw ParseError(sax.error().empty() ? "malformed JSON" : sax.error());
  return std::move(sax.document());
}

}  // namespace jitsparse
