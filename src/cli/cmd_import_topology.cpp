// gpuplan import-topology FILE --gpu G [--format F] [--id ID] [--nic N] [--nic-gbit R] [--out FILE] [--json]:
// flags → TopologyImportRequest → import_topology (catalog/topology_import.h) → the catalog TOML
// (report/topology_import_report.h), on stdout or into --out.
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog/topology_import.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/utc_date.h"
#include "report/topology_import_report.h"

namespace gpuplan {

void setup_import_topology(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    TopologyImportRequest request;
    std::string out;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd.add_option("file", o->request.file,
                 "Output of 'nvidia-smi topo -m' saved to a file, or NCCL's topology dump (NCCL_TOPO_DUMP_FILE)")
      ->required();
  cmd.add_option("--gpu", o->request.gpu,
                 "The GPU model (catalog id or alias; required: neither file names it, an NCCL dump's sm narrows it "
                 "and is checked against it)");
  cmd.add_option("--format", o->request.format,
                 "nccl-xml or nvidia-smi (default: detected, a file starting with '<' is an NCCL dump)");
  cmd.add_option("--id", o->request.id, "Id of the system to write (default imported-<gpu>-<N>)");
  cmd.add_option("--nic", o->request.nic,
                 "Catalog NIC id of the adapters next to the GPUs (default: connectx6/7/8 for 200/400/800 Gb/s)");
  cmd.add_option("--nic-gbit", o->request.nic_gbit,
                 "Line rate of one NIC in Gb/s: needed for nvidia-smi output when NICs sit under the GPUs' PCIe "
                 "switches (it does not report it); overrides the speed an NCCL dump reports");
  cmd.add_option("--out", o->out, "Write the TOML here instead of stdout");
  cmd.add_flag("--json", o->json, "Print one JSON object (the derived fields and the TOML)");
  cmd.callback([o, &ctx] {
    const ImportedTopology imported = import_topology(ctx.catalog(), o->request);
    const std::string date = utc_date_today();
    if (o->json) {
      ctx.print_json(imported_system_json(imported, date));
      return;
    }
    const std::string toml = imported_system_toml(imported, date);
    if (o->out.empty()) {
      ctx.out << toml;
      return;
    }
    std::ofstream f(o->out, std::ios::binary);
    if (!f || !(f << toml)) throw Error(fmt::format("--out '{}': cannot write the file", o->out));
    ctx.out << fmt::format("wrote system '{}' to {}; use it with --catalog {} --system {}\n", imported.system.id,
                           o->out, o->out, imported.system.id);
    for (const std::string& line : imported.derived) ctx.out << "  " << line << "\n";
  });
}

}  // namespace gpuplan
