// nccl-tests output as the benchmark prints it (all_reduce_perf, all_gather_perf,
// reduce_scatter_perf, alltoall_perf, broadcast_perf, sendrecv_perf): the "# Using devices"
// header with one "#  Rank  r Group g Pid p on HOST device d [bus] NAME" line per rank, then
// the table
//        size  count  type  redop  root  time algbw busbw #wrong  time algbw busbw #wrong
// (out-of-place, then in-place; older releases have no root column). Several runs may be
// concatenated; each "# nThread" / "# Collective test starting" / "# Using devices" header
// starts a new one. NCCL INFO/WARN lines and other text between them are skipped.
//
// Strict: a table line that does not parse, a result nccl-tests marked wrong, a run with no
// rank lines, or an operation the log does not name and its columns cannot tell apart throws
// Error("FILE:LINE: ...") saying what to keep or fix.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "calibration/profile.h"
#include "cost/collective.h"

namespace gpuplan {

struct NcclTestsRow {
  int line = 0;
  double bytes = 0;  // nccl-tests "size": the larger per-rank buffer
  double count = 0;
  std::string type;   // "float", "half", "bfloat16", ...
  std::string redop;  // "sum", "none", ...
  int root = -1;
  double time_s = 0;          // out-of-place
  double algbw_bytes_per_s = 0;
  double busbw_bytes_per_s = 0;
  double in_place_time_s = 0;  // 0 when the line has no in-place columns
};

struct NcclTestsRun {
  int line = 0;  // where its header starts
  CollectiveOp op = CollectiveOp::all_reduce;
  std::string op_from;  // how the op was known: "header", or "columns" (busbw/algbw and redop)
  int ranks = 0;
  int hosts = 0;
  std::string gpu_name;  // as the driver names it ("NVIDIA H100 80GB HBM3"), from rank 0's line
  std::vector<NcclTestsRow> rows;
};

struct NcclTestsLog {
  std::string file;
  std::vector<NcclTestsRun> runs;  // every run has at least one row
};

// True when `text` looks like nccl-tests output rather than CSV or JSON (a "# nThread",
// "# Using devices" or "#  Rank" line, or a "*_perf" test name in a comment).
bool looks_like_nccl_tests_log(std::string_view text);

NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& file);
NcclTestsLog load_nccl_tests_log(const std::string& path);

// The log's AllReduce/AllGather/ReduceScatter/AllToAll rows as a calibration profile's
// collective curve (out-of-place times), for `collective --calibration LOG`; the GPU is named
// as the driver names it (gpu_id stays empty).
CalibrationProfile nccl_tests_profile(const NcclTestsLog& log);

// --calibration FILE: nccl-tests output or a gpuplan-bench profile (JSON), whichever it is.
CalibrationProfile load_collective_calibration(const std::string& path);

// True for a profile read from an nccl-tests log: collectives only, no GPU id, nothing for the
// GEMM/HBM calibration (calibration_scale) to use.
bool profile_is_collectives_only(const CalibrationProfile& profile);

}  // namespace gpuplan
