// Parser for `kind = "gpu"` files (data/hardware/gpus/). Schema: docs/data-format.md.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "catalog/parsers.h"
#include "core/error.h"
#include "core/units.h"

namespace gpuplan {
namespace {

// Reads a [dense_tflops]-style table: one key per precision, in TFLOP/s (TOPS for int).
PerPrecision read_peaks(Fields& table) {
  PerPrecision peaks{};
  for (Precision p : kAllPrecisions) {
    if (auto v = table.opt_nonneg(precision_name(p))) peaks[index_of(p)] = *v * kTera;
  }
  return peaks;
}

}  // namespace

Gpu parse_gpu(Fields& top) {
  Gpu gpu;
  gpu.id = top.str("id");
  gpu.aliases = top.str_list("aliases");
  gpu.name = top.str("name");
  gpu.vendor = top.str("vendor");
  gpu.device_kind = top.opt_str("device_kind").value_or("gpu");
  if (gpu.device_kind != "gpu" && gpu.device_kind != "tpu" && gpu.device_kind != "hpu" &&
      gpu.device_kind != "npu") {
    top.fail("device_kind", "use gpu, tpu, hpu or npu");
  }
  gpu.architecture = top.str("architecture");
  gpu.form_factor = top.opt_str("form_factor").value_or("");
  gpu.release_year = static_cast<int>(top.integer("release_year"));
  gpu.confidence = top.opt_str("confidence").value_or("");
  gpu.notes = top.opt_str("notes").value_or("");
  gpu.provenance = top.file_provenance();

  Fields compute = top.sub("compute");
  gpu.sm_count = static_cast<int>(compute.integer("sm_count"));
  if (auto v = compute.opt_integer("cuda_cores_per_sm")) gpu.cuda_cores_per_sm = static_cast<int>(*v);
  if (auto v = compute.opt_integer("tensor_cores_per_sm")) gpu.tensor_cores_per_sm = static_cast<int>(*v);
  if (auto v = compute.opt_pos("base_clock_mhz")) gpu.base_clock_hz = *v * kMega;
  if (auto v = compute.opt_pos("boost_clock_mhz")) gpu.boost_clock_hz = *v * kMega;
  if (auto v = compute.opt_pos("tensor_clock_mhz")) gpu.tensor_clock_hz = *v * kMega;
  gpu.fp32_acc_half_rate = compute.opt_boolean("fp32_acc_half_rate").value_or(false);
  if (auto v = compute.opt_pos("sfu_exp_per_clk_per_sm")) gpu.sfu_exp_per_clk_per_sm = *v;
  note_provenance(gpu, compute, "compute");
  compute.finish();

  Fields dense = top.sub("dense_tflops");
  gpu.dense_flops_per_s = read_peaks(dense);
  note_provenance(gpu, dense, "dense_tflops");
  dense.finish();
  if (auto sparse = top.opt_sub("sparse_tflops")) {
    gpu.sparse_flops_per_s = read_peaks(*sparse);
    note_provenance(gpu, *sparse, "sparse_tflops");
    sparse->finish();
  }
  if (auto acc = top.opt_sub("fp16_acc_dense_tflops")) {
    gpu.fp16_acc_dense_flops_per_s = read_peaks(*acc);
    note_provenance(gpu, *acc, "fp16_acc_dense_tflops");
    acc->finish();
  }
  if (auto mamf = top.opt_sub("achievable_tflops")) {
    gpu.achievable_flops_per_s = read_peaks(*mamf);
    note_provenance(gpu, *mamf, "achievable_tflops");
    mamf->finish();
    for (Precision p : kAllPrecisions) {
      const double a = gpu.achievable_flops_per_s[index_of(p)];
      if (a > 0 && a > gpu.dense(p) * (1 + 1e-9)) {
        top.fail("achievable_tflops", fmt::format("{} achievable matmul rate is above the dense peak; a sparse "
                                                  "figure, or the wrong unit?", precision_name(p)));
      }
    }
  }
  if (gpu.fp32_acc_half_rate && !top.has("fp16_acc_dense_tflops")) {
    top.fail("fp16_acc_dense_tflops", "required when compute.fp32_acc_half_rate = true (the FP16-accumulate "
                                      "rates the GeForce datasheet headlines)");
  }
  // Sparse peaks are 2:4 structured sparsity: never below the dense figure.
  for (Precision p : kAllPrecisions) {
    const double d = gpu.dense_flops_per_s[index_of(p)];
    const double s = gpu.sparse_flops_per_s[index_of(p)];
    if (s > 0 && d > 0 && s < d) {
      top.fail("sparse_tflops", fmt::format("{} sparse peak is below the dense peak; dense and sparse "
                                            "columns swapped?", precision_name(p)));
    }
  }

  Fields memory = top.sub("memory");
  gpu.memory_bytes = memory.pos("capacity_gb") * kGiga;
  if (auto v = memory.opt_pos("usable_gib")) gpu.usable_memory_bytes = *v * kGiB;
  else if (auto u = memory.opt_pos("usable_gb")) gpu.usable_memory_bytes = *u * kGiga;
  else gpu.usable_memory_bytes = gpu.memory_bytes;
  // Software can never see more memory than the chip has (B200: 179.1 GiB usable of "192 GB").
  // Memory is built in binary sizes, so a datasheet's "80 GB" is at most 80 GiB: the ceiling
  // for what nvidia-smi / rocm-smi reports. More is a typo or a GB/GiB mix-up, and would make
  // plans fit that cannot.
  if (gpu.usable_memory_bytes > gpu.memory_bytes / kGiga * kGiB * (1 + 1e-9)) {
    const bool gib = memory.has("usable_gib");
    const double capacity_gb = gpu.memory_bytes / kGiga;
    memory.fail(gib ? "usable_gib" : "usable_gb",
                fmt::format("{} is more than the capacity (capacity_gb = {}, at most {} GiB = {:.2f} GB); give what "
                            "nvidia-smi or rocm-smi reports, at most the capacity",
                            gib ? gpu.usable_memory_bytes / kGiB : gpu.usable_memory_bytes / kGiga, capacity_gb,
                            capacity_gb, capacity_gb * kGiB / kGiga));
  }
  gpu.memory_type = memory.str("type");
  gpu.memory_bw_bytes_per_s = memory.pos("bandwidth_tb_per_s") * kTera;
  if (auto v = memory.opt_pos("l2_mb")) gpu.l2_bytes = *v * kMega;
  if (auto v = memory.opt_pos("l1_smem_per_sm_kb")) gpu.l1_smem_per_sm_bytes = *v * kKilo;
  if (auto v = memory.opt_pos("smem_per_sm_kb")) gpu.smem_per_sm_bytes = *v * kKilo;
  if (auto v = memory.opt_pos("registers_per_sm_kb")) gpu.registers_per_sm_bytes = *v * kKilo;
  note_provenance(gpu, memory, "memory");
  memory.finish();

  // A measured reference, so never the datasheet's source: the section names its own.
  if (auto ref = top.opt_sub("achievable_memory_bw")) {
    gpu.achievable_memory_bw_bytes_per_s = ref->pos("tb_per_s") * kTera;
    gpu.achievable_memory_bw_op = ref->str("op");
    if (gpu.achievable_memory_bw_op != "read" && gpu.achievable_memory_bw_op != "copy") {
      ref->fail("op", fmt::format("'{}' is not a reference op; use read or copy (the ops of a calibration "
                                  "profile's HBM bandwidth)", gpu.achievable_memory_bw_op));
    }
    if (!ref->has("source")) ref->missing("source", "the measurement's own source (URL and what was measured)");
    if (!ref->has("retrieved")) ref->missing("retrieved", "the date the source was read");
    if (gpu.achievable_memory_bw_bytes_per_s > gpu.memory_bw_bytes_per_s * (1 + 1e-9)) {
      ref->fail("tb_per_s", fmt::format("{} achievable bandwidth is above the datasheet's {} TB/s; the wrong unit?",
                                        gpu.achievable_memory_bw_op,
                                        gpu.memory_bw_bytes_per_s / kTera));
    }
    note_provenance(gpu, *ref, "achievable_memory_bw");
    ref->finish();
  }

  // [power] may be absent where the vendor publishes no chip power (Google TPUs): tdp_w = 0
  // then means unknown, and energy figures say so instead of guessing.
  if (auto power = top.opt_sub("power")) {
    gpu.tdp_w = power->pos("tdp_w");
    note_provenance(gpu, *power, "power");
    power->finish();
  }

  Fields io = top.sub("interconnect");
  gpu.scaleup_link = io.opt_str("scaleup_link").value_or("");
  gpu.scaleup_bw_uni_bytes_per_s = io.opt_nonneg("scaleup_bw_uni_gb_per_s").value_or(0) * kGiga;
  gpu.pcie_gen = static_cast<int>(io.opt_integer("pcie_gen").value_or(0));
  gpu.host_link = io.opt_str("host_link").value_or("");
  gpu.ecc = io.opt_boolean("ecc");
  gpu.mig_max_instances = static_cast<int>(io.opt_integer("mig_max_instances").value_or(0));
  note_provenance(gpu, io, "interconnect");
  io.finish();

  if (auto pci = top.opt_sub("pci")) {
    for (std::string id : pci->str_list("device_ids")) {
      for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const bool hex4 = id.size() == 6 && id.starts_with("0x") &&
                        std::all_of(id.begin() + 2, id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
      if (!hex4) {
        throw Error(fmt::format("gpu '{}': [pci] device_ids entry '{}': expected 0x and four hex digits, like \"0x2330\"",
                                gpu.id, id));
      }
      gpu.pci_device_ids.push_back(id);
    }
    note_provenance(gpu, *pci, "pci");
    pci->finish();
  }

  if (auto price = top.opt_sub("price")) {
    gpu.price_usd = price->pos("usd");
    gpu.price_date = price->str("date");
    note_provenance(gpu, *price, "price");
    price->finish();
  }
  return gpu;
}

}  // namespace gpuplan
