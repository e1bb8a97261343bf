#include "report/gpu_report.h"

#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "core/table.h"
#include "report/report_json.h"

namespace gpuplan {
namespace {

using json = nlohmann::ordered_json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string tflops(double flops) { return flops > 0 ? fmt_number(flops / kTera, flops < 100 * kTera ? 1 : 0) : "-"; }

std::string ratio_text(double measured, double datasheet) {
  return datasheet > 0 ? fmt::format("{:.1f}%", 100 * measured / datasheet) : "-";
}

// `gpu NAME --calibration FILE`: the profile's provenance and each figure it measured.
std::string calibration_compare_text(const GpuAnswer& a) {
  const Gpu& datasheet = *a.gpu;
  const CalibrationProfile& profile = *a.profile;
  std::string out = fmt::format("{} — datasheet vs measured\n", datasheet.name);
  out += fmt::format("profile: {}\nmeasured {} on {} ({} SMs), driver {}, CUDA {}, with {}\ncommand: {}\n\n",
                     profile.file, profile.date, profile.gpu_name, profile.sm_count, profile.driver, profile.cuda,
                     profile.tool, profile.command);
  TextTable table({"figure", "datasheet", "measured", "measured / datasheet"},
                  {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right});
  for (const CalibrationOverride& o : a.overrides) {
    if (o.precision) {
      table.add_row({fmt::format("{} dense TFLOP/s", precision_name(*o.precision)), fmt_number(o.datasheet / kTera, 1),
                     fmt_number(o.measured / kTera, 1), ratio_text(o.measured, o.datasheet)});
    } else {
      table.add_row({"HBM TB/s", fmt_number(o.datasheet / kTera, 2), fmt_number(o.measured / kTera, 2),
                     ratio_text(o.measured, o.datasheet)});
    }
  }
  if (table.rows() == 0) return out + "the profile holds no GEMM or bandwidth measurement; nothing overridden\n";
  return out + table.render();
}

json calibration_compare_json(const GpuAnswer& a) {
  const CalibrationProfile& profile = *a.profile;
  json j;
  j["gpu"] = a.gpu->id;
  j["profile"] = profile.file;
  j["measured"] = {{"date", profile.date}, {"tool", profile.tool}, {"driver", profile.driver},
                   {"cuda", profile.cuda}, {"gpu_name", profile.gpu_name}, {"command", profile.command}};
  j["overrides"] = json::array();
  for (const CalibrationOverride& o : a.overrides) {
    j["overrides"].push_back(
        {{"figure", o.precision ? fmt::format("{}_dense_flops_per_s", precision_name(*o.precision)) : "hbm_bw_bytes_per_s"},
         {"datasheet", o.datasheet},
         {"measured", o.measured}});
  }
  return j;
}

}  // namespace

json gpu_json(const Gpu& g, const GpuDerived& d) {
  json j;
  j["id"] = g.id;
  j["name"] = g.name;
  j["aliases"] = g.aliases;
  j["vendor"] = g.vendor;
  j["device_kind"] = g.device_kind;
  j["is_gpu"] = g.is_gpu();
  j["architecture"] = g.architecture;
  j["form_factor"] = g.form_factor;
  j["release_year"] = g.release_year;
  j["sm_count"] = g.sm_count;
  j["cuda_cores_per_sm"] = g.cuda_cores_per_sm ? json(*g.cuda_cores_per_sm) : json(nullptr);
  j["cuda_cores"] = opt(d.cuda_cores);
  j["tensor_cores_per_sm"] = g.tensor_cores_per_sm ? json(*g.tensor_cores_per_sm) : json(nullptr);
  j["base_clock_hz"] = opt(g.base_clock_hz);
  j["boost_clock_hz"] = opt(g.boost_clock_hz);
  j["tensor_clock_hz"] = opt(g.tensor_clock_hz);
  for (Precision p : kAllPrecisions) {
    j[fmt::format("{}_dense_flops_per_s", precision_name(p))] = positive_or_null(g.dense(p));
  }
  for (Precision p : kAllPrecisions) {
    if (g.sparse(p) > 0) j[fmt::format("{}_sparse_flops_per_s", precision_name(p))] = g.sparse(p);
  }
  j["fp32_acc_half_rate"] = g.fp32_acc_half_rate;
  if (g.fp32_acc_half_rate) {
    for (Precision p : kAllPrecisions) {
      const double v = g.fp16_acc_dense_flops_per_s[index_of(p)];
      if (v > 0) j[fmt::format("{}_fp16_acc_dense_flops_per_s", precision_name(p))] = v;
    }
  }
  j["hbm_bytes"] = g.memory_bytes;
  j["hbm_usable_bytes"] = g.usable_memory_bytes;
  j["memory_type"] = g.memory_type;
  j["hbm_bw_bytes_per_s"] = g.memory_bw_bytes_per_s;
  j["l2_bytes"] = opt(g.l2_bytes);
  j["l1_smem_per_sm_bytes"] = opt(g.l1_smem_per_sm_bytes);
  j["smem_per_sm_bytes"] = opt(g.smem_per_sm_bytes);
  j["registers_per_sm_bytes"] = opt(g.registers_per_sm_bytes);
  j["tdp_w"] = positive_or_null(g.tdp_w);
  j["scaleup_link"] = g.scaleup_link;
  j["scaleup_bw_uni_bytes_per_s"] = g.scaleup_bw_uni_bytes_per_s;
  j["pcie_gen"] = g.pcie_gen;
  j["ecc"] = g.ecc ? json(*g.ecc) : json(nullptr);
  j["mig_max_instances"] = g.mig_max_instances;
  j["price_usd"] = opt(g.price_usd);
  j["price_date"] = g.price_date;
  j["confidence"] = g.confidence;
  j["notes"] = g.notes;

  json derived;
  if (g.base_clock_hz) {
    derived["vector_fp32_flops_per_s_base_no_fma"] = opt(d.vector_fp32_base_no_fma);
    derived["vector_fp32_flops_per_s_base_fma"] = opt(d.vector_fp32_base_fma);
  }
  if (g.boost_clock_hz) {
    derived["vector_fp32_flops_per_s_boost_no_fma"] = opt(d.vector_fp32_boost_no_fma);
    derived["vector_fp32_flops_per_s_boost_fma"] = opt(d.vector_fp32_boost_fma);
  }
  json per_cycle = json::object();
  json ridge = json::object();
  for (Precision p : kAllPrecisions) {
    if (auto v = d.tensor_flops_per_sm_per_cycle[index_of(p)]) per_cycle[precision_name(p)] = *v;
    if (auto v = d.ridge_point_flops_per_byte[index_of(p)]) ridge[precision_name(p)] = *v;
  }
  derived["tensor_flops_per_sm_per_cycle"] = per_cycle;
  derived["ridge_point_flops_per_byte"] = ridge;
  derived["total_smem_bytes"] = opt(d.total_smem_bytes);
  derived["total_max_shared_bytes"] = opt(d.total_max_shared_bytes);
  derived["total_register_bytes"] = opt(d.total_register_bytes);
  j["derived"] = derived;

  j["provenance"] = provenance_json(g.provenance);
  json sections = json::object();
  for (const auto& [section, p] : g.section_provenance) sections[section] = provenance_json(p);
  j["section_provenance"] = sections;
  return j;
}

std::string gpus_table_text(const std::vector<const Gpu*>& gpus, const std::vector<GpuDerived>& derived) {
  using A = TextTable::Align;
  TextTable table({"id", "vendor", "kind", "SMs", "FP32", "TF32", "FP16", "BF16", "FP8", "FP4", "memory", "HBM TB/s",
                   "ridge bf16", "scale-up GB/s", "TDP W"},
                  {A::left, A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right,
                   A::right, A::right, A::right, A::right, A::right});
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const Gpu* g = gpus[i];
    const auto ridge = derived[i].ridge_point_flops_per_byte[index_of(Precision::bf16)];
    // 0 SMs means "not published" (B100): a dash, not a count.
    table.add_row({g->id, g->vendor, g->device_kind, g->sm_count > 0 ? fmt_number(g->sm_count) : "-",
                   tflops(g->dense(Precision::fp32)), tflops(g->dense(Precision::tf32)),
                   tflops(g->dense(Precision::fp16)), tflops(g->dense(Precision::bf16)),
                   tflops(g->dense(Precision::fp8)), tflops(g->dense(Precision::fp4)),
                   fmt::format("{} GB {}", fmt_number(g->memory_bytes / kGiga), g->memory_type),
                   fmt_number(g->memory_bw_bytes_per_s / kTera, 2), ridge ? fmt_number(*ridge) : "-",
                   g->scaleup_bw_uni_bytes_per_s > 0 ? fmt_number(g->scaleup_bw_uni_bytes_per_s / kGiga) : "-",
                   g->tdp_w > 0 ? fmt_number(g->tdp_w) : "-"});
  }
  return table.render() +
         "Peaks are dense TFLOP/s (FP32 accumulate); sparse figures are kept apart (gpuplan gpu ID).\n"
         "FP16 is the tensor-core figure where the GPU has one (V100, T4 and RTX 20-series have no BF16).\n"
         "SMs '-': not published.\n"
         "Scale-up bandwidth is one direction per GPU. Rows with kind other than gpu are comparison only.\n";
}

std::string gpu_detail_text(const Gpu& g, const GpuDerived& d) {
  std::string out = fmt::format("{} ({})\n", g.name, g.id);
  out += fmt::format("  {} {}, {}, {}; confidence {}\n", g.vendor, g.architecture, g.form_factor, g.release_year,
                     g.confidence.empty() ? "-" : g.confidence);
  if (!g.aliases.empty()) {
    std::string aliases;
    for (const auto& a : g.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
    out += "  aliases: " + aliases + "\n";
  }
  out += "\nCompute\n";
  const auto cores = d.cuda_cores;
  out += fmt::format("  SMs {}{}{}\n", g.sm_count,
                     cores ? fmt::format(", {} FP32 lanes/SM = {} CUDA cores", *g.cuda_cores_per_sm,
                                         fmt_number(*cores))
                           : "",
                     g.tensor_cores_per_sm ? fmt::format(", {} tensor cores/SM", *g.tensor_cores_per_sm) : "");
  auto mhz = [](const std::optional<double>& hz) { return hz ? fmt_number(*hz / kMega) + " MHz" : "-"; };
  out += fmt::format("  clocks: base {}, boost {}, tensor peaks quoted at {}\n", mhz(g.base_clock_hz),
                     mhz(g.boost_clock_hz), mhz(g.tensor_clock_hz ? g.tensor_clock_hz : g.boost_clock_hz));
  for (const auto& [label, clock, no_fma, fma] :
       {std::tuple{"base", g.base_clock_hz, d.vector_fp32_base_no_fma, d.vector_fp32_base_fma},
        std::tuple{"boost", g.boost_clock_hz, d.vector_fp32_boost_no_fma, d.vector_fp32_boost_fma}}) {
    if (!clock) continue;
    if (no_fma && fma) {
      out += fmt::format("  vector FP32 at {} clock: {:.1f} TFLOP/s (1 op/lane/cycle), {:.1f} with FMA\n", label,
                         *no_fma / kTera, *fma / kTera);
    }
  }

  using A = TextTable::Align;
  TextTable peaks({"precision", "dense TFLOP/s", "sparse TFLOP/s", "FLOP/SM/cycle", "ridge FLOP/B"},
                  {A::left, A::right, A::right, A::right, A::right});
  for (Precision p : kAllPrecisions) {
    if (g.dense(p) <= 0 && g.sparse(p) <= 0) continue;
    const auto per_cycle = d.tensor_flops_per_sm_per_cycle[index_of(p)];
    const auto ridge = d.ridge_point_flops_per_byte[index_of(p)];
    peaks.add_row({std::string(precision_name(p)), tflops(g.dense(p)), tflops(g.sparse(p)),
                   per_cycle ? fmt_number(*per_cycle) : "-", ridge ? fmt_number(*ridge) : "-"});
  }
  out += "\nPeak throughput (int8/int4 in TOPS; FP32 accumulate)\n" + peaks.render();
  if (g.fp32_acc_half_rate) {
    out += "  FP16/BF16/FP8 tensor math with FP32 accumulate runs at half the FP16-accumulate rate on this part.\n";
    for (Precision p : kAllPrecisions) {
      const double v = g.fp16_acc_dense_flops_per_s[index_of(p)];
      if (v > 0) out += fmt::format("  {} with FP16 accumulate: {} TFLOP/s dense\n", precision_name(p), tflops(v));
    }
  }

  out += "\nMemory\n";
  // Capacity as the datasheet writes it ("80 GB", built in binary sizes), usable in GiB as
  // nvidia-smi reports it: GiB for memory everywhere else too, so usable never reads above the
  // nominal figure (85.5 GB of "80 GB" did). Bandwidth in decimal TB/s.
  out += fmt::format("  {} GB {} (datasheet), {} usable, {:.2f} TB/s\n", fmt_number(g.memory_bytes / kGiga),
                     g.memory_type, format_bytes(g.usable_memory_bytes, true), g.memory_bw_bytes_per_s / kTera);
  if (g.l2_bytes) out += fmt::format("  L2 {} MB\n", fmt_number(*g.l2_bytes / kMega));
  if (g.l1_smem_per_sm_bytes) {
    out += fmt::format("  L1/SMEM {} KB/SM x {} SMs = {:.1f} MB on chip\n", fmt_number(*g.l1_smem_per_sm_bytes / kKilo),
                       g.sm_count, *d.total_smem_bytes / kMega);
  }
  if (auto smem = d.total_max_shared_bytes) {
    out += fmt::format("  shared memory (max carve-out) {} KB/SM x {} SMs = {:.1f} MB\n",
                       fmt_number(*g.smem_per_sm_bytes / kKilo), g.sm_count, *smem / kMega);
  }
  if (auto regs = d.total_register_bytes) {
    out += fmt::format("  registers {} KB/SM x {} SMs = {:.1f} MB\n", fmt_number(*g.registers_per_sm_bytes / kKilo),
                       g.sm_count, *regs / kMega);
  }
  out += "\nPower and I/O\n";
  out += fmt::format("  TDP {}; PCIe gen {}; ECC {}; MIG {}\n", g.tdp_w > 0 ? fmt_number(g.tdp_w) + " W" : "not published",
                     g.pcie_gen ? std::to_string(g.pcie_gen) : "-", g.ecc ? (*g.ecc ? "yes" : "no") : "-",
                     g.mig_max_instances ? std::to_string(g.mig_max_instances) + " instances" : "none");
  if (g.scaleup_bw_uni_bytes_per_s > 0) {
    out += fmt::format("  scale-up: {} at {} GB/s per direction ({} GB/s bidirectional)\n",
                       g.scaleup_link.empty() ? "-" : g.scaleup_link, fmt_number(g.scaleup_bw_uni_bytes_per_s / kGiga),
                       fmt_number(2 * g.scaleup_bw_uni_bytes_per_s / kGiga));
  } else {
    out += "  scale-up: none (PCIe only)\n";
  }
  if (g.price_usd) out += fmt::format("  price ≈ ${} ({})\n", fmt_number(*g.price_usd), g.price_date);
  if (!g.notes.empty()) out += "\nNotes: " + g.notes + "\n";
  out += fmt::format("\nSource ({}): {}\n", g.provenance.retrieved, g.provenance.source);
  for (const auto& [section, p] : g.section_provenance) {
    out += fmt::format("  [{}] ({}): {}\n", section, p.retrieved, p.source);
  }
  return out;
}

std::string gpu_compare_text(const std::vector<const Gpu*>& gpus, const std::vector<GpuDerived>& derived) {
  std::vector<std::string> header{"figure"};
  std::vector<TextTable::Align> align{TextTable::Align::left};
  for (const Gpu* g : gpus) {
    header.push_back(g->id);
    align.push_back(TextTable::Align::right);
  }
  for (std::size_t i = 1; i < gpus.size(); ++i) {
    header.push_back(gpus[i]->id + "/" + gpus[0]->id);
    align.push_back(TextTable::Align::right);
  }
  TextTable table(header, align);
  auto row = [&](const std::string& label, auto value_of, int decimals) {
    std::vector<std::string> cells{label};
    std::vector<double> values;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const double v = value_of(*gpus[i], derived[i]);
      values.push_back(v);
      cells.push_back(v > 0 ? fmt_number(v, decimals) : "-");
    }
    for (std::size_t i = 1; i < values.size(); ++i) {
      cells.push_back(values[0] > 0 && values[i] > 0 ? fmt::format("{:.2f}x", values[i] / values[0]) : "-");
    }
    table.add_row(cells);
  };
  for (Precision p : {Precision::fp64, Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp8,
                      Precision::fp4, Precision::int8}) {
    row(fmt::format("{} dense TFLOP/s", precision_name(p)), [p](const Gpu& g, const GpuDerived&) { return g.dense(p) / kTera; }, 1);
  }
  row("memory GB", [](const Gpu& g, const GpuDerived&) { return g.memory_bytes / kGiga; }, 0);
  row("HBM TB/s", [](const Gpu& g, const GpuDerived&) { return g.memory_bw_bytes_per_s / kTera; }, 2);
  row("ridge bf16 FLOP/B",
      [](const Gpu&, const GpuDerived& d) { return d.ridge_point_flops_per_byte[index_of(Precision::bf16)].value_or(0); },
      0);
  row("scale-up GB/s (one way)", [](const Gpu& g, const GpuDerived&) { return g.scaleup_bw_uni_bytes_per_s / kGiga; }, 0);
  row("L2 MB", [](const Gpu& g, const GpuDerived&) { return g.l2_bytes.value_or(0) / kMega; }, 0);
  row("TDP W", [](const Gpu& g, const GpuDerived&) { return g.tdp_w; }, 0);
  row("bf16 TFLOP/s per W", [](const Gpu& g, const GpuDerived&) { return g.tdp_w > 0 ? g.dense(Precision::bf16) / kTera / g.tdp_w : 0; }, 2);
  row("price USD", [](const Gpu& g, const GpuDerived&) { return g.price_usd.value_or(0); }, 0);
  return table.render();
}

json gpu_compare_json(const std::vector<const Gpu*>& gpus, const std::vector<GpuDerived>& derived) {
  json j;
  j["baseline"] = gpus.front()->id;
  json list = json::array();
  for (std::size_t i = 0; i < gpus.size(); ++i) list.push_back(gpu_json(*gpus[i], derived[i]));
  j["gpus"] = list;
  json ratios = json::array();
  const Gpu& base = *gpus.front();
  for (const Gpu* g : gpus) {
    json r;
    r["id"] = g->id;
    for (Precision p : {Precision::fp64, Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp8,
                        Precision::fp4, Precision::int8}) {
      const double a = base.dense(p);
      const double b = g->dense(p);
      r[fmt::format("{}_dense_flops_ratio", precision_name(p))] = a > 0 && b > 0 ? json(b / a) : json(nullptr);
    }
    r["hbm_bytes_ratio"] = g->memory_bytes / base.memory_bytes;  // both > 0: the parser requires it
    r["hbm_bw_ratio"] = g->memory_bw_bytes_per_s / base.memory_bw_bytes_per_s;
    r["tdp_ratio"] = base.tdp_w > 0 && g->tdp_w > 0 ? json(g->tdp_w / base.tdp_w) : json(nullptr);
    ratios.push_back(r);
  }
  j["ratios_to_baseline"] = ratios;
  return j;
}

nlohmann::ordered_json to_json(const GpusAnswer& answer) {
  nlohmann::ordered_json j;
  j["count"] = answer.gpus.size();
  j["gpus"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < answer.gpus.size(); ++i) j["gpus"].push_back(gpu_json(*answer.gpus[i], answer.derived[i]));
  return j;
}

std::string to_text(const GpusAnswer& answer) { return gpus_table_text(answer.gpus, answer.derived); }

nlohmann::ordered_json to_json(const GpuAnswer& answer) {
  if (!answer.calibrated) return gpu_json(*answer.gpu, answer.derived);
  nlohmann::ordered_json j = gpu_json(*answer.calibrated, *answer.calibrated_derived);
  j["calibration"] = calibration_compare_json(answer);
  return j;
}

std::string to_text(const GpuAnswer& answer) {
  if (!answer.calibrated) return gpu_detail_text(*answer.gpu, answer.derived);
  return gpu_detail_text(*answer.gpu, answer.derived) + "\n" + calibration_compare_text(answer);
}

nlohmann::ordered_json to_json(const CompareAnswer& answer) { return gpu_compare_json(answer.gpus, answer.derived); }

std::string to_text(const CompareAnswer& answer) { return gpu_compare_text(answer.gpus, answer.derived); }

}  // namespace gpuplan
