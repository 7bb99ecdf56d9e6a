#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "selection/database.hpp"

namespace jitsparse {

// The tuning database's JSON written without a document node per measurement (the twin of
// database_reader.hpp): `head` holds every root key but "matrices" (header, save time, domains) and is
// dumped as nlohmann dumps it; the records' own fields too (record_fields), while their measurements are
// written straight from the MeasurementRecords, one object a line. Building and dumping those as a
// document was most of a save, and the tuner saves after every matrix and at its checkpoints: 0.28 of
// 0.6 s for a 25 MB database on the 2-core machine, the rest re-reading the file to merge (TuningDatabase
// ::save reads it only where another process changed it). json::parse of the text gives the document
// that `head` plus "matrices": records builds (to_json): the same keys, strings and numbers (shortest
// round-trip doubles; non-finite ones null, as nlohmann writes them). Throws nlohmann's type_error for a
// string that is not UTF-8, as dump does.
std::string database_text(const nlohmann::json& head, const std::vector<MatrixRecord>& records);

}  // namespace jitsparse
