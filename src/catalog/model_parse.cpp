// Parser for `kind = "model"` files (data/models/). Schema: docs/data-format.md. The [config]
// table holds Hugging Face config.json keys verbatim; it is turned into JSON and read by the
// same code as a config.json file (workload/hf_config.cpp), so the zoo and user configs agree.
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog/parsers.h"
#include "core/error.h"
#include "workload/hf_config.h"

namespace gpuplan {
namespace {

// TOML values map one to one onto JSON, except that TOML has no null (leave the key out, as
// transformers treats an absent key like a null one) and dates, which become strings.
nlohmann::json toml_to_json(const toml::node& node) {
  if (const auto* t = node.as_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : *t) out[std::string(key.str())] = toml_to_json(value);
    return out;
  }
  if (const auto* a = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : *a) out.push_back(toml_to_json(item));
    return out;
  }
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return i->get();
  if (const auto* f = node.as_floating_point()) return f->get();
  if (const auto* b = node.as_boolean()) return b->get();
  std::ostringstream text;  // a date or time
  node.visit([&text](const auto& value) { text << value; });
  return text.str();
}

}  // namespace

ModelSpec parse_model(Fields& top) {
  const std::string id = top.str("id");
  const auto aliases = top.str_list("aliases");
  const std::string name = top.str("name");
  const auto family = top.opt_str("family");
  const auto published = top.opt_pos("published_params");
  const auto published_active = top.opt_pos("published_active_params");
  const bool active_excludes_embedding = top.opt_boolean("published_active_excludes_input_embedding").value_or(false);
  const std::string notes = top.opt_str("notes").value_or("");
  Provenance provenance;
  provenance = top.file_provenance();

  Fields config = top.sub("config");
  ModelSpec m = model_from_hf_config(toml_to_json(config.table()), top.where("config") + " [config]", true);
  m.id = id;
  m.aliases = aliases;
  m.name = name;
  if (family) m.family = *family;
  m.published_params = published.value_or(0);
  m.published_active_params = published_active.value_or(0);
  m.published_active_excludes_input_embedding = active_excludes_embedding;
  m.notes = notes;
  m.provenance = provenance;
  if (m.published_active_params > 0 && !m.is_moe()) {
    top.fail("published_active_params", "only for mixture-of-experts models (the config has no experts)");
  }
  return m;
}

}  // namespace gpuplan
