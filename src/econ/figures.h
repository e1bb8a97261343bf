// What the economics requests share: each figure with the words saying where it came from, the catalog's default inputs
// (data/econ/), and the checks that turn a bad number into an Error naming its flag.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"

namespace gpuplan {

// A figure and where it came from ("catalog [pue], dated 2025: https://..." or "--pue").
struct SourcedFigure {
  double value = 0;
  std::string from;
};

// The catalog's tco_inputs entry "default"; throws Error naming the file and the fix.
const TcoInputs& econ_inputs(const Catalog& catalog);

// "catalog [TABLE], dated DATE: SOURCE" (the first source only).
std::string from_catalog(const DatedFigure& figure, std::string_view table);

// `override_value` from `flag` when given, else the catalog figure.
SourcedFigure pick_figure(const std::optional<double>& override_value, const char* flag, const DatedFigure& figure,
                          std::string_view table);

// The node a GPU's on-prem price is known for (a [[server]] entry), else any node with power.
const System* tco_system_for(const Catalog& catalog, const TcoInputs& inputs, const Gpu& gpu);

// Checks of numbers when given; each throws Error "FLAG VALUE: must be ...".
void require_positive(const std::optional<double>& v, const char* flag);
void require_nonneg(const std::optional<double>& v, const char* flag);
void require_fraction(const std::optional<double>& v, const char* flag, bool zero_ok);  // (0, 1] or [0, 1]
void require_pue(const std::optional<double>& v, const char* flag);                     // at least 1
void require_count(const std::optional<int>& v, const char* flag);                      // at least 1

}  // namespace gpuplan
