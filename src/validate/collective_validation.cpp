#include "validate/collective_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "catalog/system_choice.h"
#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"

namespace gpuplan {
namespace {

struct CollectiveColumns {
  std::optional<std::size_t> id, source, gpu, nodes, gpus_per_node, num_gpus, algorithm, time_us, busbw, domains;
  std::size_t system = 0, op = 0, bytes = 0;
};

CollectiveColumns collective_columns(const CsvTable& csv) {
  CollectiveColumns c;
  c.system = csv.column("system");
  c.op = csv.column("op");
  c.bytes = csv.column("bytes");
  c.id = csv.find_column("id");
  c.source = csv.find_column("source");
  c.gpu = csv.find_column("gpu");
  c.nodes = csv.find_column("nodes");
  c.gpus_per_node = csv.find_column("gpus_per_node");
  c.num_gpus = csv.find_column("num_gpus");
  c.algorithm = csv.find_column("algorithm");
  c.time_us = csv.find_column("measured_time_us");
  c.busbw = csv.find_column("measured_busbw_GBps");
  c.domains = csv.find_column("domains");  // optional: scale-up domains the group spans, where nodes do not say
  if (!c.num_gpus && !(c.nodes && c.gpus_per_node)) csv.column("num_gpus");  // throws, naming the header
  if (!c.time_us && !c.busbw) csv.column("measured_time_us");
  return c;
}

int count_cell(const CsvTable& csv, const CsvTable::Row& row, std::size_t col) {
  const long long v = csv.integer(row, col);
  if (v < 1 || v > 1'000'000) throw Error(fmt::format("{}: must be between 1 and 1,000,000", csv.where(row, col)));
  return static_cast<int>(v);
}

// Topologies per system id, built once per parameter set.
class Topologies {
 public:
  Topologies(const Catalog& catalog, const CollectiveParams& params) : catalog_(catalog), params_(params) {}
  CollectiveTopology& get(const std::string& system_id) {
    auto it = map_.find(system_id);
    if (it == map_.end()) {
      it = map_.emplace(system_id, make_collective_topology(catalog_, catalog_.system(system_id), nullptr, params_))
               .first;
    }
    return it->second;
  }

 private:
  const Catalog& catalog_;
  const CollectiveParams& params_;
  std::map<std::string, CollectiveTopology> map_;
};

// The groups of rows by `key` (a source, a GPU type), in the order each first appears.
template <typename Key>
std::vector<std::string> fold_groups(const std::vector<CollectiveMeasurement>& rows, Key key) {
  std::vector<std::string> groups;
  for (const auto& m : rows) {
    if (std::find(groups.begin(), groups.end(), key(m)) == groups.end()) groups.push_back(key(m));
  }
  return groups;
}

std::string source_of(const CollectiveMeasurement& m) { return m.source; }
std::string gpu_of(const CollectiveMeasurement& m) { return m.gpu; }

// Each group of rows (a source, a GPU type) predicted with every fitted constant refitted on
// the other rows; `add` files each held-out row's error. Throws when there are fewer than 2
// groups (nothing to learn from).
template <typename Key, typename Add>
std::vector<CollectiveConstantsFit> held_out_folds(const std::vector<CollectiveMeasurement>& rows, const std::string& file,
                                                   const Catalog& catalog, const CollectiveParams& params, Key key,
                                                   const char* flag, const char* what, Add add,
                                                   ProgressCounter& progress) {
  const std::vector<std::string> groups = fold_groups(rows, key);
  if (groups.size() < 2) {
    throw Error(fmt::format("{}: {} needs rows from at least 2 {}; this file has {}", file, flag, what, groups.size()));
  }
  std::vector<CollectiveConstantsFit> folds;
  for (const std::string& group : groups) {
    std::vector<bool> train(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) train[i] = key(rows[i]) != group;
    CollectiveConstantsFit fold = fit_collective_constants(rows, train, catalog, params);
    fold.held_out = group;
    const CollectiveParams fold_params = with_fitted_constants(params, fold);
    Topologies topologies(catalog, fold_params);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (train[i]) continue;
      const CollectiveEstimate e = estimate_collective(rows[i].request, topologies.get(rows[i].system));
      add(i, group, (e.time_s - rows[i].measured_time_s) / rows[i].measured_time_s);
    }
    folds.push_back(std::move(fold));
    progress.advance();
  }
  return folds;
}

}  // namespace

std::string collective_scale_band(const CollectiveRequest& r, int domain_gpus) {
  if (r.domains <= 1) return r.gpus_per_domain <= 8 ? "1 node (<= 8 GPUs)" : "1 NVLink domain (> 8 GPUs)";
  return domain_gpus <= 8 ? "multi-node" : "multi-rack";
}

std::string collective_fabric_family(const CollectiveRequest& r, const CollectiveTopology& t) {
  if (r.domains <= 1) {
    if (t.library == "rccl") return "xGMI (RCCL)";
    if (t.scaleup == ScaleupKind::pcie) return "PCIe";
    return "NVLink";
  }
  if (t.domain_gpus > 8) return "multi-rack";
  const std::string family = t.transport_family.empty() ? std::string("network") : t.transport_family;
  return t.library == "rccl" ? family + " (RCCL)" : family;
}

std::string collective_size_band(double bytes) {
  if (bytes < 64 * kKiB) return "< 64 KiB";
  if (bytes < 16 * kMiB) return "64 KiB - 16 MiB";
  if (bytes < kGiB) return "16 MiB - 1 GiB";
  return ">= 1 GiB";
}

std::vector<CollectiveMeasurement> read_collective_csv(const CsvTable& csv, const Catalog& catalog) {
  const CollectiveColumns c = collective_columns(csv);
  std::vector<CollectiveMeasurement> out;
  for (const auto& row : csv.rows()) {
    CollectiveMeasurement m;
    m.line = row.line;
    m.id = c.id ? std::string(csv.cell(row, *c.id)) : fmt::format("line {}", row.line);
    m.source = c.source ? std::string(csv.cell(row, *c.source)) : std::string();
    const std::string system_name = csv.text(row, c.system);
    const System* system = nullptr;
    try {
      system = &catalog.system(system_name);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", csv.where(row, c.system), e.what()));
    }
    m.system = system->id;
    m.gpu = c.gpu && !csv.cell(row, *c.gpu).empty() ? std::string(csv.cell(row, *c.gpu)) : system->gpu;

    const std::string op_text = csv.text(row, c.op);
    const auto op = parse_op(op_text);
    if (!op) {
      throw Error(
          fmt::format("{}: unknown operation '{}'; use allreduce, allgather, reducescatter, alltoall, "
                      "broadcast or sendrecv",
                      csv.where(row, c.op), op_text));
    }
    m.request.op = *op;
    m.request.bytes = csv.number(row, c.bytes);
    if (m.request.bytes <= 0) throw Error(fmt::format("{}: must be positive", csv.where(row, c.bytes)));
    if (c.algorithm && !csv.cell(row, *c.algorithm).empty()) {
      const auto algorithm = parse_algorithm(csv.cell(row, *c.algorithm));
      if (!algorithm) {
        throw Error(fmt::format("{}: unknown algorithm '{}'; use auto, ring, tree or nvls",
                                csv.where(row, *c.algorithm), csv.cell(row, *c.algorithm)));
      }
      m.request.algorithm = *algorithm;
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
    m.nodes = nodes;
    m.gpus = gpus;
    // A `domains` column says it outright: GPUs of one rack-scale system split into NVLink
    // partitions on different racks (only the network joins them).
    const int domains = c.domains && !csv.cell(row, *c.domains).empty() ? count_cell(csv, row, *c.domains) : 0;
    if (domains > 0) {
      if (gpus % domains != 0 || gpus / domains > system->gpus) {
        throw Error(fmt::format("{}: {} GPUs do not split into {} domains of at most {} GPUs of system '{}'",
                                csv.where(row, *c.domains), gpus, domains, system->gpus, system->id));
      }
      m.request.domains = domains;
      m.request.gpus_per_domain = gpus / domains;
    } else if (nodes == 1 || gpus <= system->gpus) {
      m.request.domains = 1;
      m.request.gpus_per_domain = gpus;
    } else {
      m.request.domains = nodes;
      m.request.gpus_per_domain = gpus / nodes;
    }

    const double factor = busbw_factor(m.request.op, gpus);
    const double time_us = c.time_us ? csv.opt_number(row, *c.time_us).value_or(0) : 0;
    const double busbw = c.busbw ? csv.opt_number(row, *c.busbw).value_or(0) : 0;
    if (time_us > 0) {
      m.measured_time_s = time_us * 1e-6;
    } else if (busbw > 0 && factor > 0) {
      m.measured_time_s = m.request.bytes * factor / (busbw * kGiga);
    } else {
      throw Error(fmt::format("{}:{}: needs a positive measured_time_us or measured_busbw_GBps", csv.file(), row.line));
    }
    out.push_back(std::move(m));
  }
  if (out.empty()) throw Error(fmt::format("{}: no rows after the header", csv.file()));
  return out;
}

std::vector<CollectiveMeasurement> nccl_tests_measurements(const NcclTestsLog& log, const Catalog& catalog,
                                                           const std::string& system_name) {
  std::vector<CollectiveMeasurement> out;
  for (const NcclTestsRun& run : log.runs) {
    const std::string where = fmt::format("{}:{}", log.file, run.line);
    const System* system = nullptr;
    if (!system_name.empty()) {
      system = &catalog.system(system_name);
    } else {
      std::string name = run.gpu_name;
      if (name.rfind("NVIDIA ", 0) == 0) name = name.substr(7);
      const Gpu* gpu = catalog.find_gpu(name);
      if (!gpu) gpu = catalog.find_gpu(run.gpu_name);
      if (!gpu) {
        throw Error(fmt::format("{}: GPU '{}' is not in the catalog; name the system it ran on with --system "
                                "(see 'gpuplan systems')",
                                where, run.gpu_name));
      }
      const int per_host = run.hosts > 0 ? run.ranks / run.hosts : run.ranks;
      system = default_system_for(catalog, *gpu, per_host);
      if (!system) {
        throw Error(fmt::format("{}: no catalog system is built from GPU '{}'; name one with --system", where, gpu->id));
      }
    }
    // Domains: a rack-scale system (NVL72: trays of 4 in one NVLink domain) fills whole racks;
    // a node-scale system is one domain per host.
    const bool rack = system->gpus_per_host > 0 && system->gpus_per_host < system->gpus;
    int domains = 1;
    if (rack) {
      domains = run.ranks <= system->gpus ? 1 : (run.ranks + system->gpus - 1) / system->gpus;
    } else {
      domains = std::max(1, run.hosts);
    }
    if (run.ranks % domains != 0) {
      throw Error(fmt::format("{}: {} ranks do not split evenly over {} {} of system '{}'", where, run.ranks, domains,
                              rack ? "racks" : "hosts", system->id));
    }
    for (const NcclTestsRow& row : run.rows) {
      CollectiveMeasurement m;
      m.line = row.line;
      m.id = fmt::format("{} {} {} B", op_name(run.op), run.ranks, row.bytes);
      m.source = log.file;
      m.gpu = system->gpu;
      m.system = system->id;
      m.nodes = domains;
      m.gpus = run.ranks;
      m.request.op = run.op;
      m.request.bytes = row.bytes;
      m.request.domains = domains;
      m.request.gpus_per_domain = run.ranks / domains;
      m.measured_time_s = row.time_s;
      out.push_back(m);
    }
  }
  return out;
}

CollectiveValidation validate_collective_measurements(const std::vector<CollectiveMeasurement>& rows,
                                                      const std::string& file, const Catalog& catalog,
                                                      const CollectiveParams& params,
                                                      const CollectiveValidationOptions& options) {
  CollectiveValidation v;
  v.file = file;
  v.params_id = params.id;
  if (rows.empty()) throw Error(fmt::format("{}: no measurements", file));
  Topologies topologies(catalog, params);
  for (const CollectiveMeasurement& m : rows) {
    CollectiveValidationRow r;
    r.line = m.line;
    r.id = m.id;
    r.source = m.source;
    r.gpu = m.gpu;
    r.system = m.system;
    r.nodes = m.nodes;
    r.gpus = m.gpus;
    r.request = m.request;
    r.measured_time_s = m.measured_time_s;
    const CollectiveTopology& t = topologies.get(m.system);
    try {
      check_collective_request(r.request, t);
    } catch (const Error& e) {
      throw Error(fmt::format("{}:{}: {}", file, m.line, e.what()));
    }
    r.predicted = estimate_collective(r.request, t);
    r.measured_busbw_bytes_per_s = r.request.bytes / r.measured_time_s * busbw_factor(r.request.op, r.gpus);
    r.error = (r.predicted.time_s - r.measured_time_s) / r.measured_time_s;
    r.scale_band = collective_scale_band(r.request, t.domain_gpus);
    r.size_band = collective_size_band(r.request.bytes);
    r.fabric_family = collective_fabric_family(r.request, t);

    v.overall.add("all", r.error);
    v.by_band.add(r.request.bytes >= kMiB ? ">= 1 MiB" : "< 1 MiB", r.error);
    v.by_scale.add(r.scale_band, r.error);
    v.by_size.add(r.size_band, r.error);
    v.by_family.add(r.fabric_family, r.error);
    v.by_gpu.add(r.gpu, r.error);
    v.by_op.add(std::string(op_name(r.request.op)), r.error);
    v.by_gpu_op.add(fmt::format("{} {}", r.gpu, op_name(r.request.op)), r.error);
    v.rows.push_back(std::move(r));
  }

  // Progress in fits (each one searches every fitted constant): the in-sample one, one per fold.
  ProgressCounter progress(options.progress,
                           (options.fit ? 1 : 0) +
                               (options.leave_one_source_out ? std::ssize(fold_groups(rows, source_of)) : 0) +
                               (options.leave_one_gpu_out ? std::ssize(fold_groups(rows, gpu_of)) : 0));
  if (options.fit) {
    v.fit = fit_collective_constants(rows, std::vector<bool>(rows.size(), true), catalog, params);
    progress.advance();
    const CollectiveParams fitted_params = with_fitted_constants(params, *v.fit);
    Topologies fitted(catalog, fitted_params);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const CollectiveEstimate e = estimate_collective(rows[i].request, fitted.get(rows[i].system));
      const double err = (e.time_s - rows[i].measured_time_s) / rows[i].measured_time_s;
      v.fitted_overall.add("all", err);
      v.fitted_by_scale.add(v.rows[i].scale_band, err);
    }
  }
  if (options.leave_one_source_out) {
    v.loso = true;
    v.folds = held_out_folds(
        rows, file, catalog, params, source_of, "--leave-one-source-out",
        "sources (a 'source' column)", [&v](std::size_t i, const std::string& source, double err) {
          CollectiveValidationRow& r = v.rows[i];
          r.loso_error = err;
          v.loso_overall.add("all", err);
          v.loso_by_scale.add(r.scale_band, err);
          v.loso_by_size.add(r.size_band, err);
          v.loso_by_source.add(source.empty() ? std::string("(no source)") : source, err);
          v.loso_by_family.add(r.fabric_family, err);
        },
        progress);
  }
  if (options.leave_one_gpu_out) {
    v.logo = true;
    v.gpu_folds = held_out_folds(
        rows, file, catalog, params, gpu_of, "--leave-one-gpu-out",
        "GPU types", [&v](std::size_t i, const std::string& gpu, double err) {
          CollectiveValidationRow& r = v.rows[i];
          r.logo_error = err;
          v.logo_overall.add("all", err);
          v.logo_by_scale.add(r.scale_band, err);
          v.logo_by_size.add(r.size_band, err);
          v.logo_by_gpu.add(gpu, err);
        },
        progress);
  }
  return v;
}

CollectiveValidation validate_collectives(const CsvTable& csv, const Catalog& catalog, const CollectiveParams& params,
                                          const CollectiveValidationOptions& options) {
  return validate_collective_measurements(read_collective_csv(csv, catalog), csv.file(), catalog, params, options);
}

}  // namespace gpuplan
