// gpuplan systems | system NAME | clouds
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/strings.h"
#include "report/system_report.h"

namespace gpuplan {

void setup_systems(CliCommand& cmd, CliContext& ctx) {
  auto json_out = std::make_shared<bool>(false);
  cmd.add_flag("--json", *json_out, "Print one JSON object");
  cmd.callback([json_out, &ctx] {
    const Catalog& catalog = ctx.catalog();
    if (*json_out)
      ctx.print_json(systems_json(catalog));
    else
      ctx.out << systems_table_text(catalog);
  });
}

void setup_system(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    std::string name;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd.add_option("name", opts->name, "System or fabric id or alias (see 'gpuplan systems')")->required();
  cmd.add_flag("--json", opts->json, "Print one JSON object");
  cmd.callback([opts, &ctx] {
    const Catalog& catalog = ctx.catalog();
    if (const System* s = catalog.find_system(opts->name)) {
      if (opts->json)
        ctx.print_json(system_json(*s, catalog));
      else
        ctx.out << system_detail_text(*s, catalog);
      return;
    }
    if (const Fabric* f = catalog.find_fabric(opts->name)) {
      if (opts->json)
        ctx.print_json(fabric_json(*f, catalog));
      else
        ctx.out << fabric_detail_text(*f, catalog);
      return;
    }
    // Neither: suggest from both lists, each entry once by its id.
    std::vector<std::string> names;
    for (const System& s : catalog.systems) {
      names.push_back(s.id);
      names.insert(names.end(), s.aliases.begin(), s.aliases.end());
    }
    for (const Fabric& f : catalog.fabrics) {
      names.push_back(f.id);
      names.insert(names.end(), f.aliases.begin(), f.aliases.end());
    }
    std::vector<std::string> ids;
    for (const auto& near : nearest_names(opts->name, names, names.size())) {
      const System* s = catalog.find_system(near);
      const std::string id = s ? s->id : catalog.find_fabric(near)->id;
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
      if (ids.size() == 3) break;
    }
    std::string msg = fmt::format("unknown system or fabric '{}'", opts->name);
    if (!ids.empty()) msg += fmt::format("; did you mean {}?", join(ids, ", "));
    throw Error(msg);
  });
}

void setup_clouds(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    std::string gpu;
    std::string provider;
    bool all = false;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd.add_option("--gpu", opts->gpu, "Only offers for this GPU (id or alias)");
  cmd.add_option("--provider", opts->provider, "Only this provider (aws, gcp, azure, lambda, coreweave, ...)");
  cmd.add_flag("--all", opts->all, "Include historical (superseded) prices");
  cmd.add_flag("--json", opts->json, "Print one JSON object");
  cmd.callback([opts, &ctx] {
    const Catalog& catalog = ctx.catalog();
    const Gpu* gpu = opts->gpu.empty() ? nullptr : &catalog.gpu(opts->gpu);
    std::vector<std::string> providers;
    for (const CloudOffer& o : catalog.offers) {
      if (std::find(providers.begin(), providers.end(), o.provider) == providers.end()) providers.push_back(o.provider);
    }
    if (!opts->provider.empty() && std::none_of(providers.begin(), providers.end(), [&](const std::string& p) {
          return normalize_name(p) == normalize_name(opts->provider);
        })) {
      std::vector<std::string> known = providers;
      std::sort(known.begin(), known.end());
      throw Error(fmt::format("unknown provider '{}'; known providers: {}", opts->provider, join(known, ", ")));
    }
    std::vector<const CloudOffer*> selected;
    for (const CloudOffer& o : catalog.offers) {
      if (o.historical && !opts->all) continue;
      if (gpu && catalog.find_gpu(o.gpu) != gpu) continue;
      if (!opts->provider.empty() && normalize_name(o.provider) != normalize_name(opts->provider)) continue;
      selected.push_back(&o);
    }
    // Cheapest first within each GPU, so the first row answers "where is it cheapest".
    std::stable_sort(selected.begin(), selected.end(), [&](const CloudOffer* a, const CloudOffer* b) {
      const std::string ga = catalog.gpu(a->gpu).id;
      const std::string gb = catalog.gpu(b->gpu).id;
      if (ga != gb) return ga < gb;
      return a->usd_per_gpu_hour < b->usd_per_gpu_hour;
    });
    if (opts->json)
      ctx.print_json(offers_json(selected));
    else
      ctx.out << offers_table_text(selected);
  });
}

}  // namespace gpuplan
