// The output options of the commands whose answers have charts (train, search, recommend, infer,
// infer-search, cost):
// --json, --html FILE (the offline report, report/html_report.h) and --report-data (the object
// that report draws, as JSON: what `gpuplan serve` answers on /api/report/COMMAND).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/context.h"
#include "report/html_report.h"

namespace gpuplan {

struct OutputFlags {
  bool json = false;  // the command's own --json, copied in before present()
  std::string html;  // "" = no report
  bool report_data = false;
};

// Adds --html and --report-data (each command keeps its own --json).
void add_output_flags(CliCommand& cmd, OutputFlags& flags);

// Prints the answer as --json or text would; with --report-data prints the report's data
// instead; with --html also writes the report to the file (and with neither --json nor
// --report-data prints one line naming it instead of the text).
// The report is written before anything is printed, so a report that cannot be written (a
// missing folder) is the one error object under --json, never a second object after the answer.
template <class Answer>
void present(CliContext& ctx, const Answer& answer, const OutputFlags& flags) {
  if (!flags.html.empty()) {
    const nlohmann::ordered_json data = report_data(answer);
    // An answer that titles itself (report/cost_report.h), else the title from the data's kind.
    if constexpr (requires { report_title(answer); }) {
      write_html_report(flags.html, data, report_title(answer));
    } else {
      write_html_report(flags.html, data, report_title(data));
    }
  }
  if (flags.report_data) {
    ctx.print_json(report_data(answer));
  } else if (flags.html.empty() || flags.json) {
    ctx.print(answer, flags.json);
  }
  if (!flags.html.empty() && !flags.json && !flags.report_data) {
    ctx.out << "gpuplan: wrote the HTML report " << flags.html << " (opens offline in any browser)\n";
  }
}

}  // namespace gpuplan
