// Parser for `kind = "source_dates"` files (data/validation/). Schema: docs/data-format.md.
#include <fmt/format.h>

#include "catalog/parsers.h"
#include "catalog/source_date.h"

namespace gpuplan {

bool is_iso_date(std::string_view t) {
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  const int month = (t[5] - '0') * 10 + (t[6] - '0');
  const int day = (t[8] - '0') * 10 + (t[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

SourceDates parse_source_dates(Fields& top) {
  SourceDates d;
  d.id = top.str("id");
  d.provenance = top.file_provenance();
  for (Fields& entry : top.table_array("publication")) {
    SourceDate s;
    s.match = entry.str("match");
    s.published = entry.str("published");
    s.evidence = entry.str("evidence");
    s.moe_overlap = entry.opt_str("moe_overlap").value_or("");
    s.moe_dispatcher = entry.opt_str("moe_dispatcher").value_or("");
    s.fp8_params = entry.opt_boolean("fp8_params");
    s.nvfp4_tp_comm_overlap = entry.opt_boolean("nvfp4_tp_comm_overlap");
    s.unknowns_evidence = entry.opt_str("unknowns_evidence").value_or("");
    if (!s.moe_overlap.empty() && s.moe_overlap != "none" && s.moe_overlap != "1f1b") {
      entry.fail("moe_overlap", fmt::format("'{}': use none or 1f1b", s.moe_overlap));
    }
    if (!s.moe_dispatcher.empty() && s.moe_dispatcher != "alltoall" && s.moe_dispatcher != "flex") {
      entry.fail("moe_dispatcher", fmt::format("'{}': use alltoall or flex", s.moe_dispatcher));
    }
    const bool has_rule = !s.moe_overlap.empty() || !s.moe_dispatcher.empty() || s.fp8_params.has_value() ||
                          s.nvfp4_tp_comm_overlap.has_value();
    if (has_rule && s.unknowns_evidence.empty()) {
      entry.fail("unknowns_evidence", "empty: say where the rule for the source's blank cells comes from");
    }
    if (s.match.empty()) entry.fail("match", "empty: give a part of the rows' source cell");
    if (!is_iso_date(s.published)) entry.fail("published", fmt::format("'{}': use YYYY-MM-DD", s.published));
    entry.finish();
    d.sources.push_back(std::move(s));
  }
  return d;
}

const SourceDate* source_entry(const std::vector<SourceDates>& tables, std::string_view source) {
  for (const SourceDates& t : tables) {
    for (const SourceDate& s : t.sources) {
      if (source.find(s.match) != std::string_view::npos) return &s;
    }
  }
  return nullptr;
}

std::string published_date(const std::vector<SourceDates>& tables, std::string_view source) {
  const SourceDate* s = source_entry(tables, source);
  return s ? s->published : "";
}

}  // namespace gpuplan
