// One parser per kind of data file; load.cpp dispatches on the file's top-level `kind`.
// Each reads the whole top-level table (after `kind`) and appends to the catalog.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "catalog/toml_fields.h"

namespace gpuplan {

Gpu parse_gpu(Fields& top);
Link parse_link(Fields& top);
Switch parse_switch(Fields& top);
Nic parse_nic(Fields& top);
System parse_system(Fields& top);
Fabric parse_fabric(Fields& top);
std::vector<CloudOffer> parse_offers(Fields& top);
ModelSpec parse_model(Fields& top);
CollectiveParams parse_collective_params(Fields& top);
Efficiency parse_efficiency(Fields& top);
Framework parse_framework(Fields& top);
TcoInputs parse_tco_inputs(Fields& top);
Engine parse_engine(Fields& top);
SourceDates parse_source_dates(Fields& top);

}  // namespace gpuplan
