// Activation offloading to host memory (Megatron-Core --cpu-offloading with
// --cpu-offloading-num-layers N, activations only; Transformer Engine's double-buffered CPU
// offload handler): the saved activations of N of a rank's layers go to host memory during the
// forward and come back during the backward, on a copy stream beside the compute. A layer's
// copy down runs while the next layer's forward computes, its copy back while the layer after
// it in the backward computes (one layer of prefetch), so each copy is hidden behind one
// layer's compute and only its excess is exposed. Formula and sources: docs/model/training.md
// ("Activation offloading").
#pragma once

namespace gpuplan {

struct ActivationOffloadCost {
  double transfer_s = 0;  // both directions, all offloaded layers, one micro-batch
  double exposed_s = 0;   // what the compute beside the copies does not hide
  double resident_fraction = 1;  // share of the rank's stored activations left on the GPU
};

// One micro-batch on one rank of `layers` decoder layers, `offloaded` of them offloaded, each
// storing `stored_bytes_per_layer` for its backward, over a host path of `bw_bytes_per_s` one
// way; the copies hide behind `fwd_s_per_layer` (down) and `bwd_s_per_layer` (back up).
ActivationOffloadCost activation_offload_cost(double layers, double offloaded, double stored_bytes_per_layer,
                                              double bw_bytes_per_s, double fwd_s_per_layer, double bwd_s_per_layer);

}  // namespace gpuplan
