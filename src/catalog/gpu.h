// One accelerator as the catalog knows it, in SI units (FLOP/s, bytes, bytes/s, Hz, W).
// Loaded from data/hardware/gpus/*.toml by gpu_parse.cpp.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/provenance.h"
#include "core/precision.h"

namespace gpuplan {

struct Gpu {
  std::string id;  // "h100-sxm"; what users type (aliases too), case-insensitive
  std::vector<std::string> aliases;
  std::string name;  // "NVIDIA H100 SXM5 80GB"
  std::string vendor;
  std::string device_kind = "gpu";  // gpu | tpu | hpu | npu: non-GPU rows are comparison only
  std::string architecture;
  std::string form_factor;
  int release_year = 0;

  // Compute units: SMs on NVIDIA, CUs on AMD, cores on TPUs.
  int sm_count = 0;
  std::optional<int> cuda_cores_per_sm;    // FP32 lanes per SM
  std::optional<int> tensor_cores_per_sm;
  std::optional<double> base_clock_hz;
  std::optional<double> boost_clock_hz;
  std::optional<double> tensor_clock_hz;   // clock the tensor peaks are quoted at
  // Special-function-unit exponentials (MUFU.EX2) per clock per SM, where this GPU differs from
  // its family's reference SM (efficiency.h attention_exp_per_clk_per_sm); unset = the same.
  std::optional<double> sfu_exp_per_clk_per_sm;

  // Peak throughput, FP32 accumulate unless said otherwise. 0 = not supported/published.
  PerPrecision dense_flops_per_s{};
  PerPrecision sparse_flops_per_s{};  // 2:4 structured sparsity, kept apart from dense
  // GeForce parts run FP16/BF16/FP8 tensor math at half rate with FP32 accumulate; their
  // headline figures are FP16-accumulate. Those go here; dense_flops_per_s holds FP32-acc.
  bool fp32_acc_half_rate = false;
  // Maximum achievable matmul FLOP/s measured on a reference unit of this GPU (Bekman's MAMF:
  // the best large-shape GEMM found by a shape search). Not a peak to plan with: it is the
  // ceiling that a user's calibration profile is compared with, so that a measured GPU that is
  // slower or faster than the reference scales the fitted efficiencies (calibration/scale.h).
  // 0 = no reference measurement.
  PerPrecision achievable_flops_per_s{};
  PerPrecision fp16_acc_dense_flops_per_s{};
  // HBM bandwidth a STREAM-like kernel reached on a reference unit ([achievable_memory_bw]), and
  // the op it was measured with: "read" (bytes read) or "copy" (bytes read + bytes written,
  // STREAM's convention). Like achievable_flops_per_s it is not planned with: a calibration
  // profile's best point of the same op is compared with it. 0 = no reference measurement.
  double achievable_memory_bw_bytes_per_s = 0;
  std::string achievable_memory_bw_op;

  double memory_bytes = 0;         // vendor capacity (as labelled)
  double usable_memory_bytes = 0;  // what software sees (B200: 180 of 192 GB)
  std::string memory_type;
  double memory_bw_bytes_per_s = 0;
  std::optional<double> l2_bytes;
  std::optional<double> l1_smem_per_sm_bytes;    // combined L1 / shared-memory array per SM
  std::optional<double> smem_per_sm_bytes;       // max shared-memory carve-out per SM
  std::optional<double> registers_per_sm_bytes;  // register file per SM

  double tdp_w = 0;  // 0 = not published
  std::string scaleup_link;  // link id in the catalog ("nvlink4"), empty when none
  double scaleup_bw_uni_bytes_per_s = 0;  // one direction, per GPU, all links
  int pcie_gen = 0;
  // PCI device ids of the part ("0x2330", lower case; [pci] of its file, from the PCI ID
  // repository or a real dump); empty = not in the catalog. import-topology checks a dump's GPUs
  // against them.
  std::vector<std::string> pci_device_ids;
  // The GPU's own link to its host CPU where it is not PCIe (a link id: "nvlink-c2c" on the
  // Grace superchips GH200, GB200, GB300); empty = the PCIe generation's x16 link.
  std::string host_link;
  std::optional<bool> ecc;
  int mig_max_instances = 0;
  std::optional<double> price_usd;
  std::string price_date;
  std::string confidence;  // A, B or C (see data/README.md)
  std::string notes;
  Provenance provenance;
  // Sections whose figures come from a source other than the file's (e.g. "price").
  std::vector<std::pair<std::string, Provenance>> section_provenance;

  double dense(Precision p) const { return dense_flops_per_s[index_of(p)]; }
  double sparse(Precision p) const { return sparse_flops_per_s[index_of(p)]; }
  bool is_gpu() const { return device_kind == "gpu"; }
};

}  // namespace gpuplan
