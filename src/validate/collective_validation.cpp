#include <nlohmann/json.hpp>
#include "validate/collective_validation.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/units.h"
#include "core/table.h"

namespace gpuplan {
namespace {

struct CollectiveColumns {
  std::optional<std::size_t> id, gpu, nodes, gpus_per_node, num_gpus, algorithm, time_us, busbw;
  std::size_t system = 0, op = 0, bytes = 0;
};

CollectiveColumns collective_columns(const CsvTable& csv) {
  CollectiveColumns c;
  c.system = csv.column("system");
  c.op = csv.column("op");
  c.bytes = csv.column("bytes");
  c.id = csv.find_column("id");
  c.gpu = csv.find_column("gpu");
  c.nodes = csv.find_column("nodes");
  c.gpus_per_node = csv.find_column("gpus_per_node");
  c.num_gpus = csv.find_column("num_gpus");
  c.algorithm = csv.find_column("algorithm");
  c.time_us = csv.find_column("measured_time_us");
  c.busbw = csv.find_column("measured_busbw_GBps");
  if (!c.num_gpus && !(c.nodes && c.gpus_per_node)) csv.column("num_gpus");  // throws, naming the header
  if (!c.time_us && !c.busbw) csv.column("measured_time_us");
  return c;
}

int count_cell(const CsvTable& csv, const CsvTable::Row& row, std::size_t col) {
  const long long v = csv.integer(row, col);
  if (v < 1 || v > 1'000'000) throw Error(fmt::format("{}: must be between 1 and 1,000,000", csv.where(row, col)));
  return static_cast<int>(v);
}

}  // namespace

CollectiveValidation validate_collectives(const CsvTable& csv, const Catalog& catalog, const CollectiveParams& params) {
  CollectiveValidation v;
  v.file = csv.file();
  v.params_id = params.id;
  const CollectiveColumns c = collective_columns(csv);
  std::map<std::string, CollectiveTopology> topologies;
  for (const auto& row : csv.rows()) {
    CollectiveValidationRow r;
    r.line = row.line;
    r.id = c.id ? std::string(csv.cell(row, *c.id)) : fmt::format("line {}", row.line);
    const std::string system_name = csv.text(row, c.system);
    const System* system = nullptr;
    try {
      system = &catalog.system(system_name);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", csv.where(row, c.system), e.what()));
    }
    r.system = system->id;
    r.gpu = c.gpu && !csv.cell(row, *c.gpu).empty() ? std::string(csv.cell(row, *c.gpu)) : system->gpu;

    const std::string op_text = csv.text(row, c.op);
    const auto op = parse_op(op_text);
    if (!op) {
      throw Error(
          fmt::format("{}: unknown operation '{}'; use allreduce, allgather, reducescatter, alltoall, "
                      "broadcast or sendrecv",
                      csv.where(row, c.op), op_text));
    }
    r.request.op = *op;
    r.request.bytes = csv.number(row, c.bytes);
    if (r.request.bytes <= 0) throw Error(fmt::format("{}: must be positive", csv.where(row, c.bytes)));
    if (c.algorithm && !csv.cell(row, *c.algorithm).empty()) {
      const auto algorithm = parse_algorithm(csv.cell(row, *c.algorithm));
      if (!algorithm) {
        throw Error(fmt::format("{}: unknown algorithm '{}'; use auto, ring, tree or nvls",
                                csv.where(row, *c.algorithm), csv.cell(row, *c.algorithm)));
      }
      r.request.algorithm = *algorithm;
    }

    // Group shape: nodes of a rack-scale system that share its NVLink domain (GB200 NVL72
    // trays) are one domain; otherwise each node is a domain.
    const int nodes = c.nodes && !csv.cell(row, *c.nodes).empty() ? count_cell(csv, row, *c.nodes) : 1;
    int gpus = 0;
    if (c.num_gpus && !csv.cell(row, *c.num_gpus).empty()) {
      gpus = count_cell(csv, row, *c.num_gpus);
    } else {
      gpus = nodes * count_cell(csv, row, *c.gpus_per_node);
    }
    if (gpus % nodes != 0) {
      throw Error(fmt::format("{}:{}: {} GPUs do not split evenly over {} nodes", csv.file(), row.line, gpus, nodes));
    }
    r.nodes = nodes;
    r.gpus = gpus;
    if (nodes == 1 || gpus <= system->gpus) {
      r.request.domains = 1;
      r.request.gpus_per_domain = gpus;
    } else {
      r.request.domains = nodes;
      r.request.gpus_per_domain = gpus / nodes;
    }

    auto it = topologies.find(system->id);
    if (it == topologies.end()) {
      it = topologies.emplace(system->id, make_collective_topology(catalog, *system, nullptr, params)).first;
    }
    try {
      check_collective_request(r.request, it->second);
    } catch (const Error& e) {
      throw Error(fmt::format("{}:{}: {}", csv.file(), row.line, e.what()));
    }
    r.predicted = estimate_collective(r.request, it->second);

    const double factor = busbw_factor(r.request.op, gpus);
    const double time_us = c.time_us ? csv.opt_number(row, *c.time_us).value_or(0) : 0;
    const double busbw = c.busbw ? csv.opt_number(row, *c.busbw).value_or(0) : 0;
    if (time_us > 0) {
      r.measured_time_s = time_us * 1e-6;
      r.measured_busbw_bytes_per_s = r.request.bytes / r.measured_time_s * factor;
    } else if (busbw > 0 && factor > 0) {
      r.measured_busbw_bytes_per_s = busbw * kGiga;
      r.measured_time_s = r.request.bytes * factor / r.measured_busbw_bytes_per_s;
    } else {
      throw Error(fmt::format("{}:{}: needs a positive measured_time_us or measured_busbw_GBps", csv.file(), row.line));
    }
    r.error = (r.predicted.time_s - r.measured_time_s) / r.measured_time_s;

    v.overall.add("all", r.error);
    v.by_band.add(r.request.bytes >= kMiB ? ">= 1 MiB" : "< 1 MiB", r.error);
    v.by_gpu.add(r.gpu, r.error);
    v.by_op.add(std::string(op_name(r.request.op)), r.error);
    v.by_gpu_op.add(fmt::format("{} {}", r.gpu, op_name(r.request.op)), r.error);
    v.rows.push_back(std::move(r));
  }
  if (v.rows.empty()) throw Error(fmt::format("{}: no rows after the header", csv.file()));
  return v;
}

}  // namespace gpuplan
