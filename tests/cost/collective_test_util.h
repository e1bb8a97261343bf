// Systems and fabrics built in code for the collective tests, so the golden figures do not
// depend on the catalog's data files (which change as sources are re-read).
#pragma once

#include "catalog/catalog.h"
#include "cost/collective.h"

namespace gpuplan::testing {

// An 8-GPU NVSwitch node: 450 GB/s per GPU one way (NVLink 4), NVLS, 8 x 400 Gb/s NICs.
inline System test_node(double scaleup_bw = 450e9, int gpus = 8) {
  System s;
  s.id = "test-node";
  s.kind = "node";
  s.gpu = "h100-sxm";
  s.gpus = gpus;
  s.scaleup_link = "nvlink4";
  s.scaleup_topology = "switched";
  s.scaleup_bw_uni_bytes_per_s = scaleup_bw;
  s.in_network_reduction = true;
  s.nic = "connectx7";
  s.nics = gpus;
  s.nic_bw_uni_bytes_per_s = 50e9;
  return s;
}

// Seed 004's idealised H100 SuperPOD (lines 264-280): SU = 32 nodes under 8 leaf switches with
// W = 12.8 TB/s; 4 SUs under 16 spine switches with W = 16 x 1.6 TB/s = 25.6 TB/s; SHARP.
inline Fabric seed_superpod() {
  Fabric f;
  f.id = "seed-superpod";
  f.system = "test-node";
  f.rail_optimized = true;
  f.in_network_reduction = true;
  FabricLevel leaf;
  leaf.name = "leaf";
  leaf.gpus = 256;
  leaf.switches = 8;
  leaf.bw_uni_bytes_per_s = 12.8e12;
  FabricLevel spine;
  spine.name = "spine";
  spine.gpus = 1024;
  spine.switches = 16;
  spine.bw_uni_bytes_per_s = 25.6e12;
  f.levels = {leaf, spine};
  return f;
}

inline CollectiveRequest request(CollectiveOp op, double bytes, int gpus_per_domain, int domains = 1,
                                 CollectiveAlgorithm algorithm = CollectiveAlgorithm::auto_) {
  CollectiveRequest r;
  r.op = op;
  r.bytes = bytes;
  r.gpus_per_domain = gpus_per_domain;
  r.domains = domains;
  r.algorithm = algorithm;
  return r;
}

}  // namespace gpuplan::testing
