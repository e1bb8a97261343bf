// Strict reading of one TOML table: every key a parser does not ask for is an error naming
// the file, the line and the known keys. Only catalog parsers include this header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "core/provenance.h"

namespace gpuplan {

class Fields {
 public:
  Fields(const toml::table& table, std::string file, std::string section);

  // Required values throw Error("file:line: missing key ...") when absent.
  std::string str(std::string_view key);
  std::optional<std::string> opt_str(std::string_view key);
  double num(std::string_view key);  // any finite number
  std::optional<double> opt_num(std::string_view key);
  double pos(std::string_view key);  // finite and > 0
  std::optional<double> opt_pos(std::string_view key);
  std::optional<double> opt_nonneg(std::string_view key);
  std::int64_t integer(std::string_view key);  // integer >= 0
  std::optional<std::int64_t> opt_integer(std::string_view key);
  bool boolean(std::string_view key);
  std::optional<bool> opt_boolean(std::string_view key);
  std::vector<std::string> str_list(std::string_view key);  // optional; empty when absent
  std::vector<double> num_list(std::string_view key);       // optional; empty when absent

  Fields sub(std::string_view key);
  std::optional<Fields> opt_sub(std::string_view key);
  std::vector<Fields> table_array(std::string_view key);  // optional; empty when absent

  // A fraction in (0, 1] (an efficiency, a share of a peak or of memory).
  double fraction(std::string_view key);

  // The required top-level `source` and `retrieved` of a data file, with the file's name.
  Provenance file_provenance();

  // `source` and `retrieved` of this table, falling back to `parent` when absent.
  Provenance provenance(const Provenance& parent);

  bool has(std::string_view key) const;
  // The keys present, in the file's order (for tables keyed by name, e.g. one per GPU family).
  std::vector<std::string> keys() const;
  // Throws for keys nobody read: a typo in a data file must never be silently ignored.
  void finish() const;

  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  // A required key is absent: names it, and a present unknown key that looks like a typo of it.
  [[noreturn]] void missing(std::string_view key, std::string_view what) const;
  std::string where(std::string_view key) const;  // "file:line"
  const std::string& file() const { return file_; }
  const std::string& section() const { return section_; }
  const toml::table& table() const { return *table_; }

 private:
  const toml::node* get(std::string_view key);
  std::optional<double> number(std::string_view key);

  const toml::table* table_;
  std::string file_;
  std::string section_;
  // What finish() and the error messages need, kept in vectors: a set's node per key asked was
  // a tenth of the start-up's catalog parse (docs/performance.md, "Start-up").
  std::vector<const toml::node*> used_;  // the values read (of keys present)
  std::vector<std::string> asked_;       // every key a parser asked for, repeats included
};

// Records a sub-table's own source/retrieved under `name` when they differ from the file's:
// `entry` is a catalog entry with `provenance` and `section_provenance` (Gpu, System).
template <class Entry>
void note_provenance(Entry& entry, Fields& section, const std::string& name) {
  Provenance p = section.provenance(entry.provenance);
  if (p.source != entry.provenance.source || p.retrieved != entry.provenance.retrieved) {
    entry.section_provenance.emplace_back(name, std::move(p));
  }
}

// Parses TOML text; a syntax error becomes Error("file:line:col: ...").
toml::table parse_toml(std::string_view text, const std::string& file);

}  // namespace gpuplan
