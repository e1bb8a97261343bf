// When each source of a published-runs file was published (data/validation/*-sources.toml,
// `kind = "source_dates"`): what `validate training --time-split DATE` splits the rows on (fit
// on what was published before DATE, predict the rest). Dates only: nothing here changes how
// a row is read or predicted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

struct SourceDate {
  std::string match;      // a part of the rows' `source` cell (the first entry that matches wins)
  std::string published;  // "YYYY-MM-DD" (ISO dates compare as strings)
  std::string evidence;   // where the date comes from
};

struct SourceDates {
  std::string id;                    // "training-runs"
  std::vector<std::string> aliases;  // unused; the catalog's insert expects the field
  std::vector<SourceDate> sources;
  Provenance provenance;
};

// The publication date of a row whose `source` cell is `source`: the first entry, over the
// catalog's files in load order, whose `match` occurs in it; "" when none does.
std::string published_date(const std::vector<SourceDates>& tables, std::string_view source);

// True for "YYYY-MM-DD" with a plausible month and day.
bool is_iso_date(std::string_view text);

}  // namespace gpuplan
