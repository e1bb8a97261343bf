// A request's field table (core/field_spec.h) as CLI flags: one option per field, named
// --FIELD with '-' for '_' (--no-FIELD for a negated switch), bound to the request's member;
// a list takes its items comma-separated.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cli/args.h"
#include "core/field_spec.h"

namespace gpuplan {

template <class Request>
void add_field_flags(CliCommand& cmd, Request& request, const std::vector<FieldSpec<Request>>& fields) {
  for (const FieldSpec<Request>& f : fields) {
    std::string flag = "--" + field_flag(f);
    if (!f.alias.empty()) flag += ",--" + std::string(f.alias);
    const std::string help(f.help);
    CliOption* option = std::visit(
        [&](auto get) -> CliOption* {
          auto& target = get(request);
          if constexpr (std::is_same_v<std::decay_t<decltype(target)>, bool>) {
            // CLI11's "!--no-x": the flag stores false.
            return cmd.add_flag((f.traits & kNegated) ? "!" + flag : flag, target, help);
          } else if constexpr (std::is_same_v<std::decay_t<decltype(target)>, std::vector<int>> ||
                               std::is_same_v<std::decay_t<decltype(target)>, std::vector<std::string>>) {
            return cmd.add_option(flag, target, help)->delimiter(',');  // "--gpus-list 8,16,64"
          } else {
            return cmd.add_option(flag, target, help);
          }
        },
        f.ref);
    if (f.traits & kRequired) option->required();
    if (f.traits & kShowDefault) option->capture_default_str();
  }
}

// The same, with the field named `positional` taken as the command's positional argument
// (`gpuplan system NAME`) instead of a flag; Python and the tables still call it by its name.
template <class Request>
void add_field_flags(CliCommand& cmd, Request& request, const std::vector<FieldSpec<Request>>& fields,
                     std::string_view positional) {
  std::vector<FieldSpec<Request>> flags;
  for (const FieldSpec<Request>& f : fields) {
    if (f.name != positional) {
      flags.push_back(f);
      continue;
    }
    // Only a string field is ever positional here (an id or alias).
    CliOption* option = cmd.add_option(std::string(f.name), std::get<std::string& (*)(Request&)>(f.ref)(request),
                                       std::string(f.help));
    if (f.traits & kRequired) option->required();
  }
  add_field_flags(cmd, request, flags);
}

}  // namespace gpuplan
