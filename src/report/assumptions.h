// The inputs and assumptions of an answer as a table people read: every scalar of the answer's
// JSON (the object `--json` prints) under a human label with its unit ("Data-parallel sharding
// group", "47 GiB"), grouped (the answer, its plan, its system), never a raw field name, never
// scientific notation for a count, "none" for an unset target. The HTML report and the web UI
// show report_data's "assumptions" as they are.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpuplan {

struct AssumptionRow {
  std::string group;  // "answer", "plan", "system", ...
  std::string label;  // "tensor parallel"
  std::string value;  // "8", "47 GiB", "none"
};

// The rows of `answer` (a to_json object). The big parts the charts draw (breakdown, memory,
// the search's top plans, the serving steps, ...) are left to the charts.
std::vector<AssumptionRow> assumption_rows(const nlohmann::ordered_json& answer);

// The label of a field: the table's where it has one, else the key in words ("kv per seq"
// for kv_per_seq_bytes, the unit going to the value). Exposed for the tests.
std::string field_label(const std::string& key);
bool field_has_label(const std::string& key);

nlohmann::ordered_json to_json(const std::vector<AssumptionRow>& rows);

}  // namespace gpuplan
