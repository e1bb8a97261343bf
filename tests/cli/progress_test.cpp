// Progress on stderr (issue 34): the library counts units of work (core/progress.h), the CLI
// shows them (cli/progress_printer.h) — never on stdout, nothing for short work.
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cli/progress_printer.h"
#include "core/progress.h"
#include "report/human_units.h"
#include "catalog_util.h"
#include "core/csv.h"
#include "econ/recommend_request.h"
#include "econ/serve_recommend_request.h"
#include "search/search_request.h"
#include "sweep/run.h"
#include "test_util.h"
#include "validate/validate_request.h"

namespace gpuplan {
namespace {

TEST(Progress, LineSaysCountRateAndTimeLeft) {
  // 450 of 1,000 in 5 s: 90 per second, 550 left = 6.1 s.
  const std::string rate = human_number(90.0);
  EXPECT_EQ(ProgressPrinter::line("search", "layouts", 450, 1000, 5.0, false),
            "search: 45% (450 of 1,000 layouts), " + rate + " layouts/s, about 6 s left");
  // The bar: round(0.45 × 20) = 9 cells of 20.
  EXPECT_EQ(ProgressPrinter::line("search", "layouts", 450, 1000, 5.0, true),
            "search: [#########           ] 45% (450 of 1,000 layouts), " + rate + " layouts/s, about 6 s left");
  // Done: no time left is said; 7,200 s left reads in hours.
  EXPECT_EQ(ProgressPrinter::line("fit", "fits", 3, 3, 2.0, false).find("left"), std::string::npos);
  EXPECT_NE(ProgressPrinter::line("fit", "fits", 1, 3601, 2.0, false).find("about 2 h 0 min left"), std::string::npos);
}

TEST(Progress, QuietForShortWorkThenOneLinePerReportOffATerminal) {
  std::ostringstream err;
  {
    const ProgressPrinter quiet(err, "search", "layouts");  // 1 s before anything is shown
    quiet.sink()(1, 2);
    quiet.sink()(2, 2);
  }
  EXPECT_EQ(err.str(), "");
  {
    const ProgressPrinter shown(err, "search", "layouts", 0, 0);
    shown.sink()(1, 2);
    shown.sink()(2, 2);
  }
  const std::string s = err.str();
  EXPECT_NE(s.find("search: 50% (1 of 2 layouts)"), std::string::npos) << s;
  EXPECT_NE(s.find("search: 100% (2 of 2 layouts)"), std::string::npos) << s;
  EXPECT_EQ(s.find('\r'), std::string::npos) << "a stream that is not a terminal gets plain lines";
}

TEST(Progress, CounterIsSharedByThreadsAndFreeWithoutASink) {
  ProgressCounter none(nullptr, 10);
  none.advance();  // no sink: nothing to call
  std::atomic<std::int64_t> highest{0};
  std::atomic<int> calls{0};
  const ProgressSink sink = [&](std::int64_t done, std::int64_t total) {
    EXPECT_EQ(total, 4000);
    ++calls;
    std::int64_t h = highest.load();
    while (done > h && !highest.compare_exchange_weak(h, done)) {
    }
  };
  ProgressCounter counter(&sink, 4000);
  {
    std::vector<std::jthread> pool;
    for (int t = 0; t < 4; ++t) pool.emplace_back([&] {
        for (int i = 0; i < 1000; ++i) counter.advance();
      });
  }
  EXPECT_EQ(calls.load(), 4000);
  EXPECT_EQ(highest.load(), 4000);
}

TEST(Progress, SearchCountsEveryLayoutOnce) {
  SearchRequest r;
  r.model = "llama3.1-8b";
  r.gpu = "h100-sxm";
  r.gpus = 8;
  r.global_batch = 64;
  r.seq_len = 4096;
  std::int64_t last = 0;
  std::int64_t total = -1;
  int calls = 0;
  // The library calls the sink from whichever search thread finished a unit (core/progress.h):
  // a sink must be thread-safe, so this one counts under a lock.
  std::mutex heard;
  r.progress = [&](std::int64_t done, std::int64_t all) {
    const std::lock_guard lock(heard);
    ++calls;
    last = std::max(last, done);
    total = all;
  };
  const SearchAnswer a = answer_search(testing::cat(), r);
  EXPECT_GT(calls, 0);
  EXPECT_EQ(last, total);
  EXPECT_EQ(calls, total);
  EXPECT_EQ(a.options.progress, nullptr) << "the answer keeps no pointer to the caller's sink";
}

// What a sink heard: calls, the highest count, the total; every call must carry the same total.
struct HeardProgress {
  int calls = 0;
  std::int64_t last = 0;
  std::int64_t total = -1;
  std::mutex mutex;  // sinks are called from worker threads (core/progress.h)
  ProgressSink sink() {
    return [this](std::int64_t done, std::int64_t all) {
      const std::lock_guard lock(mutex);
      if (total >= 0) {
        EXPECT_EQ(all, total) << "the total changed between reports";
      }
      ++calls;
      last = std::max(last, done);
      total = all;
    };
  }
  // Every unit reported once, the last report at the total.
  void expect_every_unit_once(std::int64_t expected_total) const {
    EXPECT_EQ(total, expected_total);
    EXPECT_EQ(last, expected_total);
    EXPECT_EQ(calls, expected_total);
  }
};

TEST(Progress, RecommendCountsEveryGpuCountSearchOfEveryRentableGpu) {
  RecommendRequest r;
  r.model = "llama3-8b";
  r.tokens = 100e9;
  r.gpus_list = {8, 16};
  r.global_batch = 256;
  r.seq_len = 4096;
  r.providers = {"lambda"};
  HeardProgress heard;
  r.progress = heard.sink();
  const RecommendAnswer a = answer_recommend(testing::cat(), r);
  // Each rentable GPU is searched once per count, or skipped with a note (its searches done).
  ASSERT_GT(heard.total, 0);
  EXPECT_EQ(heard.total % 2, 0) << "two counts per GPU";
  EXPECT_GE(heard.total, a.searched);
  heard.expect_every_unit_once(heard.total);
  EXPECT_FALSE(a.request.progress) << "the answer keeps no pointer to the caller's sink";
}

TEST(Progress, ServeRecommendCountsEveryRentableGpu) {
  ServeRecommendRequest r;
  r.model = "llama3.1-8b";
  r.tpot_ms = 30;
  r.engine = "tensorrt-llm";
  r.providers = {"lambda"};
  HeardProgress heard;
  r.progress = heard.sink();
  const ServeRecommendAnswer a = answer_serve_recommend(testing::cat(), r);
  ASSERT_GT(heard.total, 0);
  EXPECT_GE(heard.total, a.searched);
  heard.expect_every_unit_once(heard.total);
  EXPECT_FALSE(a.request.progress);
}

TEST(Progress, SweepCountsTheRanksOwnCells) {
  const Catalog& cat = testing::cat();
  SweepSpec spec;
  spec.file = "test.json";
  spec.models = {"llama3-8b"};
  spec.gpus = {"h100-sxm"};
  spec.gpu_counts = {1, 8, 16};
  spec.global_batch = 32;
  spec.seq_len = 2048;
  spec.top_k = 1;
  const SweepSetup setup = make_sweep_setup(cat, spec, {&cat.model("llama3-8b")});
  HeardProgress heard;
  const ProgressSink sink = heard.sink();
  run_rank(setup, 0, 2, 1, &sink);
  heard.expect_every_unit_once(std::ssize(rank_cells(setup, 0, 2)));
}

TEST(Progress, ValidateInferenceCountsOneFitPerFoldAndTheInSampleFit) {
  const std::filesystem::path file = testing::write_file(
      testing::scratch_dir("progress_validate_inference") / "runs.csv",
      "id,source,model_ref,gpu,num_gpus,tp,pp,ep,weight_precision,kv_precision,input_len,output_len,mode,"
      "concurrency,engine,metric,value,notes\n"
      "a,s1,llama3.1-70b,h200-sxm,4,4,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,trtllm,tpot_ms,8.0,\n"
      "b,s2,llama3.1-70b,h100-sxm,4,4,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,trtllm,tpot_ms,11.0,\n");
  ValidateInferenceRequest r;
  r.file = file.string();
  r.leave_one_gpu_out = true;
  r.fit = true;
  HeardProgress heard;
  r.progress = heard.sink();
  const ValidateInferenceAnswer a = answer_validate_inference(testing::cat(), r);
  EXPECT_EQ(a.folds.size(), 2U);
  heard.expect_every_unit_once(3);  // two GPUs held out in turn, then every row
  // In-sample without --fit fits nothing: nothing to report.
  HeardProgress none;
  r.leave_one_gpu_out = false;
  r.fit = false;
  r.progress = none.sink();
  (void)answer_validate_inference(testing::cat(), r);
  EXPECT_EQ(none.calls, 0);
}

TEST(Progress, ValidateCollectivesCountsEveryFit) {
  // 17 rows of 2 sources on 2 GPU types: the in-sample fit, 2 sources and 2 GPU types held out.
  ValidateCollectivesRequest r;
  r.file = testing::source_dir() + "/tests/fixtures/collectives/published-candidates.csv";
  r.fit = true;
  r.leave_one_source_out = true;
  r.leave_one_gpu_out = true;
  HeardProgress heard;
  r.progress = heard.sink();
  const ValidateCollectivesAnswer a = answer_validate_collectives(testing::cat(), r);
  EXPECT_EQ(a.folds.size() + a.gpu_folds.size(), 4U);
  heard.expect_every_unit_once(5);
}

}  // namespace
}  // namespace gpuplan
