// gpuplan gpus | gpu NAME | compare A B [C...]
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "calibration/calibrate.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/strings.h"
#include "report/gpu_report.h"

namespace gpuplan {

void setup_gpus(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    std::string vendor;
    bool gpus_only = false;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd.add_option("--vendor", opts->vendor, "Only this vendor (NVIDIA, AMD, Intel, Google, AWS)");
  cmd.add_flag("--gpus-only", opts->gpus_only, "Leave out the non-GPU comparison rows (TPU, Gaudi, Trainium)");
  cmd.add_flag("--json", opts->json, "Print one JSON object");
  cmd.callback([opts, &ctx] {
    const Catalog& catalog = ctx.catalog();
    std::vector<const Gpu*> selected;
    std::vector<std::string> vendors;
    for (const Gpu& g : catalog.gpus) {
      if (std::find(vendors.begin(), vendors.end(), g.vendor) == vendors.end()) vendors.push_back(g.vendor);
      if (!opts->vendor.empty() && to_lower(g.vendor) != to_lower(opts->vendor)) continue;
      if (opts->gpus_only && !g.is_gpu()) continue;
      selected.push_back(&g);
    }
    if (selected.empty() && !opts->vendor.empty()) {
      throw Error(unknown_name_message("vendor", opts->vendor, vendors));
    }
    if (opts->json) {
      nlohmann::ordered_json j;
      j["count"] = selected.size();
      j["gpus"] = nlohmann::ordered_json::array();
      for (const Gpu* g : selected) j["gpus"].push_back(gpu_json(*g));
      ctx.print_json(j);
    } else {
      ctx.out << gpus_table_text(selected);
    }
  });
}

void setup_gpu(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    std::string name;
    std::string calibration;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd.add_option("name", opts->name, "GPU id or alias (see 'gpuplan gpus')")->required();
  cmd.add_flag("--json", opts->json, "Print one JSON object");
  cmd.add_option("--calibration", opts->calibration, "Profile from gpuplan-bench: show datasheet vs measured");
  cmd.callback([opts, &ctx] {
    const Gpu& gpu = ctx.catalog().gpu(opts->name);
    if (!opts->calibration.empty()) {
      const CalibrationProfile profile = load_calibration(opts->calibration);
      const Gpu calibrated = apply_calibration(gpu, profile);
      if (opts->json) {
        auto j = gpu_json(calibrated);
        j["calibration"] = calibration_compare_json(gpu, calibrated, profile);
        ctx.print_json(j);
      } else {
        ctx.out << gpu_detail_text(gpu) << "\n" << calibration_compare_text(gpu, calibrated, profile);
      }
      return;
    }
    if (opts->json) ctx.print_json(gpu_json(gpu));
    else ctx.out << gpu_detail_text(gpu);
  });
}

void setup_compare(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    std::vector<std::string> names;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd.add_option("names", opts->names, "Two or more GPU ids; ratios are to the first")->required();
  cmd.add_flag("--json", opts->json, "Print one JSON object");
  cmd.callback([opts, &ctx] {
    if (opts->names.size() < 2) throw Error("compare needs at least two GPUs, e.g. 'gpuplan compare h100-sxm b200'");
    std::vector<const Gpu*> gpus;
    for (const auto& n : opts->names) gpus.push_back(&ctx.catalog().gpu(n));
    if (opts->json) ctx.print_json(gpu_compare_json(gpus));
    else ctx.out << gpu_compare_text(gpus);
  });
}

}  // namespace gpuplan
