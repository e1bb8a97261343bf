#include "report/web_assets.h"

namespace gpuplan {

std::string web_assets_missing_message() {
  return "this gpuplan was built without the HTML report and web UI assets (Node.js and npm were missing at "
         "build time): install them (scripts/install-deps.sh, or apt-get install nodejs npm), then rebuild "
         "(cmake --preset release && cmake --build --preset release)";
}

}  // namespace gpuplan
