// The front-end assets built from web/ by scripts/build-web.sh and embedded at build time
// (cmake/embed_web.cmake): the HTML report's script, the web UI's script and page, and the one
// style sheet both use. The binary never needs Node; a build without Node has none (`built`
// false), and the commands that need them exit 2 with web_assets_missing_message().
#pragma once

#include <string>
#include <string_view>

namespace gpuplan {

struct WebAssets {
  bool built = false;
  std::string_view report_js;   // draws the charts of one embedded answer (the --html report)
  std::string_view app_js;      // the `gpuplan serve` page: forms, API calls, the same charts
  std::string_view style_css;   // light, dark (prefers-color-scheme) and print (@media print)
  std::string_view index_html;  // the `gpuplan serve` page's markup
};

const WebAssets& web_assets();

// "the HTML report and web UI assets were not built (Node.js and npm were missing ...)".
std::string web_assets_missing_message();

}  // namespace gpuplan
