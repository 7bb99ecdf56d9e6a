#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "selection/database.hpp"

namespace jitsparse {

// The tuning database's JSON read without a document node per measurement: nlohmann's SAX interface
// builds the document for everything but the objects of "matrices"[i]."measurements", which go straight
// into MeasurementRecords (measured[i], in file order; the document keeps their arrays empty). Those
// objects are nearly all of the file: building and freeing them as a document was most of the 0.4-0.9 s a
// 18 MB training database took to read on the 2-core machine, paid at every application start
// (Context::load_tuned) and at every checkpoint of the tuner (save merges with the file).
// Throws nlohmann's parse_error for malformed JSON and ParseError for a measurement field of the wrong
// type, a measurement without variant or status, or an unknown origin (what from_json refuses).
nlohmann::json parse_database_document(const std::string& text, std::vector<std::vector<MeasurementRecord>>& measured);

}  // namespace jitsparse
