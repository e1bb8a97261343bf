// Inputs of the economics commands that are not instance prices: on-prem server prices,
// network, electricity, PUE, grid carbon intensity, operations and the spot
// checkpoint/restart model. Each figure dated and sourced. Loaded from data/econ/*.toml
// (`kind = "tco_inputs"`) by tco_parse.cpp; used by src/econ/.
#pragma once

#include <string>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

// One figure with the date the source gives it ("2024-08", "2025": as precise as the source)
// and where it came from.
struct DatedFigure {
  double value = 0;
  std::string date;
  std::string notes;
  Provenance provenance;
};

// Purchase price of one node of a catalog system (NICs included, switches not).
struct ServerPrice {
  std::string system;  // system id
  DatedFigure usd;
};

struct TcoInputs {
  std::string id;  // "default" is what the commands use
  std::vector<std::string> aliases;
  std::string name;
  std::string notes;

  DatedFigure usd_per_kwh;            // electricity tariff
  DatedFigure pue;                    // facility power / IT power
  DatedFigure kg_co2_per_kwh;         // grid carbon intensity
  DatedFigure ops_usd_per_node_year;  // operations and support per node and year

  std::string network_switch;  // switch id of the scale-out fabric
  DatedFigure usd_per_switch;

  // Spot checkpoint/restart model (docs/model/economics.md).
  DatedFigure spot_interruptions_per_instance_per_day;
  double spot_restart_h = 0;              // reacquire + reload after an interruption
  double spot_checkpoint_interval_h = 0;  // half of it is lost on average

  std::vector<ServerPrice> servers;
  Provenance provenance;
};

}  // namespace gpuplan
