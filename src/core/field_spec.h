// A request's fields as data: one FieldSpec per field of a request struct (plan/train_fields.h,
// search/search_fields.h, infer/infer_fields.h), from which the CLI adds its flags, the Python
// module reads its keywords and the web API builds its allowlist, and against which docs/cli.md
// and the .pyi stubs are checked (tests/core/field_tables_test.cpp). Adding a field to a
// question is one entry in its table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/field_error.h"

namespace gpuplan {

// Where the value lives in the request: a function returning a reference to the member, so that
// nested members (InferRequest::features.spec_draft) are fields like any other. The types are
// the ones the interfaces know how to read.
template <class Request>
using FieldRef = std::variant<std::string& (*)(Request&), int& (*)(Request&), std::int64_t& (*)(Request&),
                              double& (*)(Request&), bool& (*)(Request&), std::optional<int>& (*)(Request&),
                              std::optional<double>& (*)(Request&), std::vector<int>& (*)(Request&),
                              std::vector<std::string>& (*)(Request&)>;

// A FieldRef to `member` of R (a path such as features.spec_draft works too).
#define GP_FIELD(R, member) (+[](R& r) -> decltype((r.member)) { return r.member; })

// What a field is, beyond its type: bits of FieldSpec::traits.
enum FieldTrait : unsigned {
  kRequired = 1U << 0,         // the question cannot be asked without it
  kTakesPath = 1U << 1,        // names a file that is read: never settable over HTTP
  kLocalOnly = 1U << 2,        // a resource of the machine (threads): not settable over HTTP
  kSearchDimension = 1U << 3,  // `gpuplan search` chooses it (search/enumerate.h); here it fixes it
  kShowDefault = 1U << 4,      // --help prints the default
  kNegated = 1U << 5,          // a switch that is on by default: the CLI flag is --no-NAME
  kModelId = 1U << 6,          // a model id; the CLI and Python also take a config.json path
};

template <class Request>
struct FieldSpec {
  std::string_view name;  // "seq_len": the Python keyword; the CLI flag and HTTP key derive from it
  FieldRef<Request> ref;
  std::string_view unit;     // "tokens", "GiB", "requests/s"; "" for a name or a count of things
  std::string_view allowed;  // "none, selective, full"; "" = any value of the type
  std::string_view help;     // the --help line (docs/cli.md says more)
  unsigned traits = 0;
  std::string_view cli_name = "";  // the flag without "--" when it is not `name` with '-' for '_'
  std::string_view alias = "";     // a second flag without "--" the CLI and the web API also take
};

// The flag's name without "--" ("seq-len", "no-tp-overlap", "time-limit").
template <class Request>
std::string field_flag(const FieldSpec<Request>& f) {
  std::string flag = f.traits & kNegated ? "no-" : "";
  if (!f.cli_name.empty()) return flag + std::string(f.cli_name);
  for (char c : f.name) flag += c == '_' ? '-' : c;
  return flag;
}

// The web API's key: the CLI flag with '_' for '-' (the API runs the CLI on these words).
template <class Request>
std::string field_http_key(const FieldSpec<Request>& f) {
  std::string key;
  for (char c : field_flag(f)) key += c == '-' ? '_' : c;
  return key;
}

// The web API's key for the field's alias ("deadline_days" for --deadline-days); "" for none.
template <class Request>
std::string field_http_alias(const FieldSpec<Request>& f) {
  std::string key;
  for (char c : f.alias) key += c == '-' ? '_' : c;
  return key;
}

template <class Request>
bool field_over_http(const FieldSpec<Request>& f) {
  return (f.traits & (kTakesPath | kLocalOnly)) == 0;
}

std::string field_value_text(const std::string& v);  // the string itself
std::string field_value_text(int v);
std::string field_value_text(std::int64_t v);
std::string field_value_text(double v);  // shortest round trip: 1, 0.5, -1
std::string field_value_text(bool v);    // true, false
std::string field_value_text(const std::optional<int>& v);     // "" when unset
std::string field_value_text(const std::optional<double>& v);  // "" when unset
std::string field_value_text(const std::vector<int>& v);          // "8,16,64"; "" when empty
std::string field_value_text(const std::vector<std::string>& v);  // "aws,lambda"; "" when empty

// The field's value in a default-constructed request, as text: the default every interface
// shows (the request struct's initialiser is the one place it is written).
// GCC 12 at -O3 can report the value-initialised request's strings as maybe-uninitialized
// once inlined through the visit (a false positive: `Request request{}` initialises every member).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <class Request>
std::string field_default_text(const FieldSpec<Request>& f) {
  Request request{};
  return std::visit([&request](auto get) { return field_value_text(get(request)); }, f.ref);
}

// Whether the field holds its default (the default-constructed request's value) in `request`.
template <class Request>
bool field_is_default(const FieldSpec<Request>& f, const Request& request) {
  Request copy = request;  // FieldRef reads through a mutable reference
  return std::visit([&copy](auto get) { return field_value_text(get(copy)); }, f.ref) == field_default_text(f);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The number rules every table shares (issue 34), checked by each question's answer_*() so that
// the CLI, the web API and Python refuse the same values, naming the flag, the value and the fix:
// - kFiniteNumbers, first of all: a number field holds a finite value of at most 10^12 (CLI11
//   reads "nan", "inf" and "1e999"; nothing else may see them);
// - kNoNegativeNumbers, after the request's own range checks (which name the better fix, "--tp
//   1"): none is negative (no field has a meaning below 0; an unset field is std::optional,
//   never a negative sentinel), the net under the fields no range check covers.
inline constexpr double kMaxFieldNumber = 1e12;
enum class FieldNumberRule { kFiniteNumbers, kNoNegativeNumbers };
void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit, int value);
void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit, std::int64_t value);
void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit, double value);
void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit,
                        const std::optional<int>& value);
void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit,
                        const std::optional<double>& value);
void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit,
                        const std::vector<int>& values);  // each value
inline void check_field_number(FieldNumberRule, std::string_view, std::string_view, const std::string&) {}
inline void check_field_number(FieldNumberRule, std::string_view, std::string_view, const std::vector<std::string>&) {}
inline void check_field_number(FieldNumberRule, std::string_view, std::string_view, bool) {}

template <class Request>
void check_field_numbers(const Request& request, const std::vector<FieldSpec<Request>>& fields,
                         FieldNumberRule rule) {
  Request copy = request;  // FieldRef reads through a mutable reference
  for (const FieldSpec<Request>& f : fields) {
    try {
      std::visit([&](auto get) { check_field_number(rule, "--" + field_flag(f), f.unit, get(copy)); }, f.ref);
    } catch (const Error& e) {
      throw FieldError(std::string(f.name), e.what());  // the field's name, for each interface's words
    }
  }
}

}  // namespace gpuplan
