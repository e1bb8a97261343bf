// Naming a model for any question: a zoo id or alias, or a Hugging Face config.json (a file,
// or a folder holding one). The one place the CLI, the sweep spec and the server resolve a
// model, so they all accept the same names and say the same thing about a bad one.
#pragma once

#include <memory>
#include <string>

#include "catalog/catalog.h"

namespace gpuplan {

// The model `name_or_path` names. A zoo id or alias returns the catalog's entry; a path
// (ends in .json, or is an existing file or folder) is read as a config.json, and `owned`
// keeps that model alive (the reference is into it). Throws Error on an unknown id (with the
// nearest names), a folder without config.json, a folder where a .json file was named, or an
// unreadable or invalid file.
const ModelSpec& resolve_model(const Catalog& catalog, const std::string& name_or_path,
                               std::shared_ptr<ModelSpec>& owned);

}  // namespace gpuplan
