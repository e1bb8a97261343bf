// What every subcommand shares: the catalog (loaded once, after --catalog is parsed) and
// the output streams.
#pragma once

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

}  // namespace gpuplan
