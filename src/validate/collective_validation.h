// `gpuplan validate collectives FILE`: predicts every measured collective (the CSV schema of
// shared/data/collectives.csv, or nccl-tests output as printed) and aggregates the errors by
// scale (one node ... many racks) and message size, in-sample and leave-one-source-out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibration/nccl_tests_log.h"
#include "catalog/catalog.h"
#include "core/csv.h"
#include "core/progress.h"
#include "cost/collective.h"
#include "validate/collective_constants_fit.h"
#include "validate/collective_measurement.h"
#include "validate/error_stats.h"

namespace gpuplan {

struct CollectiveValidationRow {
  int line = 0;
  std::string id;
  std::string source;
  std::string gpu;
  std::string system;
  std::string scale_band;
  std::string size_band;
  std::string fabric_family;  // NVLink, xGMI (RCCL), InfiniBand, RoCE, cloud, multi-rack, ...
  int nodes = 1;
  int gpus = 1;
  CollectiveRequest request;
  double measured_time_s = 0;
  double measured_busbw_bytes_per_s = 0;
  CollectiveEstimate predicted;
  double error = 0;  // (predicted - measured) / measured, on time
  std::optional<double> loso_error;  // with --leave-one-source-out
  std::optional<double> logo_error;  // with --leave-one-gpu-out
};

struct CollectiveValidationOptions {
  bool leave_one_source_out = false;
  bool leave_one_gpu_out = false;
  bool fit = false;  // refit every fitted constant on every row and report them
  const ProgressSink* progress = nullptr;  // fits done of all (core/progress.h); null = none
};

struct CollectiveValidation {
  std::string file;
  std::string params_id;
  std::vector<CollectiveValidationRow> rows;
  ErrorGroups overall;
  ErrorGroups by_band;   // "< 1 MiB", ">= 1 MiB"
  ErrorGroups by_scale;  // 1 node, 1 NVLink domain > 8 GPUs, multi-node, multi-rack
  ErrorGroups by_size;   // < 64 KiB, 64 KiB - 16 MiB, 16 MiB - 1 GiB, >= 1 GiB
  ErrorGroups by_family;  // collective_fabric_family
  ErrorGroups by_gpu;
  ErrorGroups by_op;
  ErrorGroups by_gpu_op;
  // --leave-one-source-out: each source predicted with every fitted constant refitted on the
  // other sources (collective_constants_fit.h; a constant they cannot see takes its prior).
  bool loso = false;
  std::vector<CollectiveConstantsFit> folds;
  ErrorGroups loso_overall;
  ErrorGroups loso_by_scale;
  ErrorGroups loso_by_size;
  ErrorGroups loso_by_source;
  ErrorGroups loso_by_family;
  // --leave-one-gpu-out: every row of one GPU type (across sources) predicted the same way.
  bool logo = false;
  std::vector<CollectiveConstantsFit> gpu_folds;
  ErrorGroups logo_overall;
  ErrorGroups logo_by_scale;
  ErrorGroups logo_by_size;
  ErrorGroups logo_by_gpu;
  // --fit: every fitted constant refitted on every row, and the errors with those values.
  std::optional<CollectiveConstantsFit> fit;
  ErrorGroups fitted_overall;
  ErrorGroups fitted_by_scale;
};

// Reads the rows of a CSV in the schema of shared/data/collectives.csv. Throws Error naming
// file, line and column for a row it cannot read (an unknown system or operation, no measured
// time or bus bandwidth, a GPU count that does not split over the nodes).
std::vector<CollectiveMeasurement> read_collective_csv(const CsvTable& csv, const Catalog& catalog);

// The runs of an nccl-tests log as measurements (out-of-place times): on `system` when named,
// else on the catalog's system for the GPU the log names. A rack-scale system's trays (hosts
// of gpus_per_host GPUs) share one NVLink domain; other systems are one domain per host.
// Throws Error naming the run's line when the GPU is unknown and no system is named, or the
// ranks do not fit the system.
std::vector<CollectiveMeasurement> nccl_tests_measurements(const NcclTestsLog& log, const Catalog& catalog,
                                                           const std::string& system);

// Predicts every measurement and aggregates. Throws Error naming the line for a group the
// system cannot hold; `file` names the input in the answer and in messages.
CollectiveValidation validate_collective_measurements(const std::vector<CollectiveMeasurement>& rows,
                                                      const std::string& file, const Catalog& catalog,
                                                      const CollectiveParams& params,
                                                      const CollectiveValidationOptions& options = {});

CollectiveValidation validate_collectives(const CsvTable& csv, const Catalog& catalog, const CollectiveParams& params,
                                          const CollectiveValidationOptions& options = {});

// The scale and size bands the report groups by.
std::string collective_scale_band(const CollectiveRequest& request, int domain_gpus);
std::string collective_size_band(double bytes);
// The fabric family a row exercises: inside one domain its scale-up fabric ("NVLink",
// "xGMI (RCCL)", "PCIe"); across rack-scale domains "multi-rack"; across nodes the scale-out
// transport's family ("InfiniBand", "RoCE", "cloud", "Ethernet/TCP"; "network" without one).
std::string collective_fabric_family(const CollectiveRequest& request, const CollectiveTopology& topology);

}  // namespace gpuplan
