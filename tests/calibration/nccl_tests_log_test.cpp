// nccl-tests output as printed: the fixture (two runs concatenated, a 2-node header), and the
// strict errors a bad log gets, each with its line number.
#include "calibration/nccl_tests_log.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "test_util.h"

namespace gpuplan {
namespace {

std::string log_fixture() { return testing::source_dir() + "/tests/fixtures/nccl-tests/h100-2x8-allreduce-1x8-allgather.log"; }

const char* kHeader =
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   101 on  node-a device  0 [0x18] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid   102 on  node-a device  1 [0x2a] NVIDIA H100 80GB HBM3\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n";

std::string log_error_of(const std::string& text) {
  try {
    parse_nccl_tests_log(text, "bad.log");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NcclTestsLog, ParsesTheFixtureRunByRun) {
  const NcclTestsLog log = load_nccl_tests_log(log_fixture());
  ASSERT_EQ(log.runs.size(), 2u);
  const NcclTestsRun& ar = log.runs[0];
  EXPECT_EQ(ar.op, CollectiveOp::all_reduce);
  EXPECT_EQ(ar.op_from, "header");
  EXPECT_EQ(ar.ranks, 16);
  EXPECT_EQ(ar.hosts, 2);
  EXPECT_EQ(ar.gpu_name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(ar.rows.size(), 6u);
  // "     1048576        262144     float     sum      -1   132.13    7.94   14.88      0   133.45 ..."
  EXPECT_DOUBLE_EQ(ar.rows[0].bytes, 1048576);
  EXPECT_DOUBLE_EQ(ar.rows[0].count, 262144);
  EXPECT_EQ(ar.rows[0].type, "float");
  EXPECT_EQ(ar.rows[0].redop, "sum");
  EXPECT_EQ(ar.rows[0].root, -1);
  EXPECT_DOUBLE_EQ(ar.rows[0].time_s, 132.13e-6);
  EXPECT_DOUBLE_EQ(ar.rows[0].busbw_bytes_per_s, 14.88e9);
  EXPECT_DOUBLE_EQ(ar.rows[0].in_place_time_s, 133.45e-6);
  // The second run is named by the command line above its header, not by a "test starting" line.
  const NcclTestsRun& ag = log.runs[1];
  EXPECT_EQ(ag.op, CollectiveOp::all_gather);
  EXPECT_EQ(ag.ranks, 8);
  EXPECT_EQ(ag.hosts, 1);
  EXPECT_EQ(ag.rows.size(), 6u);
  EXPECT_GT(ag.rows[0].line, ar.rows.back().line);
}

TEST(NcclTestsLog, ProfileCarriesEveryRowAsACollectivePoint) {
  const CalibrationProfile p = nccl_tests_profile(load_nccl_tests_log(log_fixture()));
  ASSERT_EQ(p.collectives.size(), 12u);
  EXPECT_EQ(p.collectives[0].op, "all_reduce");
  EXPECT_EQ(p.collectives[0].gpus, 16);
  // algbw = bytes / time: 1048576 / 132.13 us = 7.936 GB/s; busbw x 2(15)/16 = 14.88 GB/s.
  EXPECT_NEAR(p.collectives[0].algbw_bytes_per_s, 7.936e9, 0.001e9);
  EXPECT_NEAR(p.collectives[0].busbw_bytes_per_s, 14.88e9, 0.01e9);
  EXPECT_EQ(p.collectives[6].op, "all_gather");
}

TEST(NcclTestsLog, OpFromColumnsWhenTheLogDoesNotNameIt) {
  // 2 ranks: all_reduce busbw = algbw x 2(1)/2 = algbw; reduce_scatter would be algbw x 1/2.
  const auto log =
      parse_nccl_tests_log(std::string(kHeader) + "  1048576  262144  float  sum  -1  20.0  52.43  52.43  0  20.0  52.43  52.43  0\n",
                           "x.log");
  ASSERT_EQ(log.runs.size(), 1u);
  EXPECT_EQ(log.runs[0].op, CollectiveOp::all_reduce);
  EXPECT_EQ(log.runs[0].op_from, "columns");
  const auto rs =
      parse_nccl_tests_log(std::string(kHeader) + "  1048576  131072  float  sum  -1  20.0  52.43  26.21  0  20.0  52.43  26.21  0\n",
                           "x.log");
  EXPECT_EQ(rs.runs[0].op, CollectiveOp::reduce_scatter);
}

TEST(NcclTestsLog, OlderReleasesWithoutRootAndOutOfPlaceOnly) {
  const std::string old_header = std::string("# all_reduce_perf\n") + kHeader;
  const auto a = parse_nccl_tests_log(old_header + "  1048576  262144  float  sum  20.0  52.43  52.43  4e-07  20.5  51.2  51.2  4e-07\n",
                                      "x.log");
  EXPECT_EQ(a.runs[0].rows[0].root, -1);
  EXPECT_DOUBLE_EQ(a.runs[0].rows[0].in_place_time_s, 20.5e-6);
  const auto b = parse_nccl_tests_log(old_header + "  1048576  262144  float  sum  -1  20.0  52.43  52.43  0\n", "x.log");
  EXPECT_DOUBLE_EQ(b.runs[0].rows[0].in_place_time_s, 0);
}

TEST(NcclTestsLog, BadLogsNameTheLine) {
  const std::string h = std::string("# Collective test starting: all_reduce_perf\n") + kHeader;  // 6 lines
  // Line 7: a column missing.
  EXPECT_NE(log_error_of(h + "  1048576  262144  float  sum  -1  20.0  52.43  52.43  0  20.0  52.43\n").find("bad.log:7:"),
            std::string::npos);
  // Line 7: a time that is not a number.
  const std::string not_number = log_error_of(h + "  1048576  262144  float  sum  -1  fast  52.43  52.43  0  20.0  52.43  52.43  0\n");
  EXPECT_NE(not_number.find("bad.log:7:"), std::string::npos) << not_number;
  EXPECT_NE(not_number.find("'time'"), std::string::npos) << not_number;
  // Wrong results are not measurements.
  EXPECT_NE(log_error_of(h + "  1048576  262144  float  sum  -1  20.0  52.43  52.43  3  20.0  52.43  52.43  0\n").find("wrong"),
            std::string::npos);
  // A table with no rank lines above it.
  EXPECT_NE(log_error_of("# all_reduce_perf\n  1048576  262144  float  sum  -1  20.0  52.43  52.43  0  20.0  52.43  52.43  0\n")
                .find("bad.log:2:"),
            std::string::npos);
  // An op gpuplan does not model.
  EXPECT_NE(log_error_of("# Collective test starting: reduce_perf\n").find("bad.log:1:"), std::string::npos);
  // all_gather and alltoall print the same columns: the log must say which.
  EXPECT_NE(log_error_of(std::string(kHeader) + "  1048576  131072  float  none  -1  20.0  52.43  26.21  0  20.0  52.43  26.21  0\n")
                .find("does not name the test"),
            std::string::npos);
  // Nothing that looks like a result at all.
  EXPECT_NE(log_error_of("hello\nworld\n").find("no nccl-tests results"), std::string::npos);
  // A malformed rank line.
  EXPECT_NE(log_error_of("# Using devices\n#  Rank  zero Group 0 Pid 1 on a device 0 [0] GPU\n").find("bad.log:2:"),
            std::string::npos);
}

TEST(NcclTestsLog, DetectsLogsAndNotCsv) {
  EXPECT_TRUE(looks_like_nccl_tests_log(kHeader));
  EXPECT_FALSE(looks_like_nccl_tests_log("id,source,gpu,system\nx,y,z,w\n"));
  EXPECT_FALSE(looks_like_nccl_tests_log("{\"schema\": 3}"));
}

}  // namespace
}  // namespace gpuplan
