#include "cli/train_flags.h"

#include "cli/field_flags.h"
#include "plan/train_fields.h"

namespace gpuplan {

void add_train_flags(CliCommand& cmd, TrainFlags& f) {
  add_field_flags(cmd, f.request, train_fields());
  cmd.add_flag("--json", f.json, "Print one JSON object");
}

}  // namespace gpuplan
