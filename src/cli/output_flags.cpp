#include "cli/output_flags.h"

namespace gpuplan {

void add_output_flags(CliCommand& cmd, OutputFlags& f) {
  cmd.add_option("--html", f.html,
                 "Also write a self-contained HTML report with charts to this file (no network needed to view it)");
  cmd.add_flag("--report-data", f.report_data,
               "Print the JSON object the HTML report draws (the --json answer and the op roofline)");
}

}  // namespace gpuplan
