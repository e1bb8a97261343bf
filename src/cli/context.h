// What every subcommand shares: the catalog (loaded once, after --catalog is parsed) and
// the output streams.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "catalog/catalog.h"

namespace gpuplan {

class CliContext {
 public:
  CliContext(std::ostream& out_stream, std::ostream& err_stream) : out(out_stream), err(err_stream) {}

  // Loaded on first use, so `--catalog` (a global option) is seen first.
  const Catalog& catalog();

  // A zoo model by id or alias, or a Hugging Face config.json (a file, or a folder holding
  // one); `owned` keeps a model read from a file alive. Throws Error on bad input.
  const ModelSpec& resolve_model(const std::string& name_or_path, std::shared_ptr<ModelSpec>& owned);

  // Prints one JSON object (pretty, with a trailing newline).
  void print_json(const nlohmann::ordered_json& value);

  std::ostream& out;
  std::ostream& err;
  std::vector<std::string> catalog_paths;
  bool no_embedded = false;

 private:
  bool loaded_ = false;
  Catalog catalog_;
};

// What --calibration changed (cost/calibration_scale.h), for the commands that take it: a
// "calibration" object in their JSON (nothing without a profile) and a line per note in text.
void add_calibration_json(nlohmann::ordered_json& j, const std::string& profile, const std::vector<std::string>& notes);
std::string calibration_text(const std::vector<std::string>& notes);

}  // namespace gpuplan
