// What every subcommand shares: the catalog (loaded once, after --catalog is parsed) and
// the output streams.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "catalog/catalog.h"
#include "report/calibration_report.h"  // add_calibration_json, calibration_text

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

  // Prints an answer the one way every command does: report/'s to_json under --json, its
  // to_text otherwise (both found by argument-dependent lookup on the answer type).
  template <class Answer>
  void print(const Answer& answer, bool json) {
    if (json)
      print_json(to_json(answer));
    else
      out << to_text(answer);
  }

  std::ostream& out;
  std::ostream& err;
  std::vector<std::string> catalog_paths;
  bool no_embedded = false;
  // Set: catalog() returns it instead of loading one (gpuplan serve's, loaded once).
  const Catalog* shared_catalog = nullptr;

 private:
  bool loaded_ = false;
  Catalog catalog_;
};

}  // namespace gpuplan
