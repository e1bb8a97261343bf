#include "report/report_json.h"

#include <nlohmann/json.hpp>

namespace gpuplan {

nlohmann::ordered_json provenance_json(const Provenance& p) {
  return nlohmann::ordered_json{{"source", p.source}, {"retrieved", p.retrieved}, {"file", p.file}};
}

nlohmann::ordered_json positive_or_null(double v) {
  return v > 0 ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

}  // namespace gpuplan
