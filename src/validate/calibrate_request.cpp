// answer_calibrate_training: read, fit, write (validate/calibrate_request.h).
#include "validate/calibrate_request.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibration/training_calibration_file.h"
#include "core/csv.h"
#include "core/error.h"

namespace gpuplan {

CalibrateTrainingAnswer answer_calibrate_training(const Catalog& catalog, const CalibrateTrainingRequest& request) {
  CalibrateTrainingAnswer answer;
  answer.fit = calibrate_training(catalog, CsvTable::read(request.runs));
  if (request.out.empty()) return answer;
  std::ofstream file(request.out);
  if (!file) {
    throw Error(fmt::format("--out {}: cannot write the file; give a path in a folder that exists", request.out));
  }
  file << training_calibration_json(answer.fit.calibration).dump(2) << "\n";
  if (!file.flush()) throw Error(fmt::format("--out {}: writing the file failed (disk full?)", request.out));
  answer.out = request.out;
  return answer;
}

}  // namespace gpuplan
