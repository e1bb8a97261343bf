// A request's field table (core/field_spec.h) as CLI flags: one option per field, named
// --FIELD with '-' for '_' (--no-FIELD for a negated switch), bound to the request's member;
// a list takes its items comma-separated.
#pragma once

#include <string>
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

}  // namespace gpuplan
