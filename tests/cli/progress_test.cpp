// Progress on stderr (issue 34): the library counts units of work (core/progress.h), the CLI
// shows them (cli/progress_printer.h) — never on stdout, nothing for short work.
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cli/progress_printer.h"
#include "core/progress.h"
#include "report/human_units.h"
#include "catalog_util.h"
#include "search/search_request.h"

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
  r.progress = [&](std::int64_t done, std::int64_t all) {
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

}  // namespace
}  // namespace gpuplan
