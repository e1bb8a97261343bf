// The words of the HTML report and the web UI: numbers as people read them (report/human_units.h),
// each answer in one sentence (report/answer_words.h), the assumptions table with labels and units
// (report/assumptions.h), and infer-search's Pareto front. The scan of every report kind for raw
// field names and scientific notation is the issue's "no plan.dp_shard, no 7.25e+4" check.
#include <algorithm>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "infer/search.h"
#include "report/assumptions.h"
#include "report/human_units.h"
#include "test_util.h"

namespace gpuplan {
namespace {

TEST(HumanUnits, NumbersHaveThreeFiguresGroupedDigitsAndNoExponent) {
  EXPECT_EQ(human_number(72483), "72,500");
  EXPECT_EQ(human_number(463.092), "463");
  EXPECT_EQ(human_number(0.0123456), "0.0123");
  EXPECT_EQ(human_number(4.0), "4");
  EXPECT_EQ(human_number(999.7), "1,000");
  EXPECT_EQ(human_number(2.5e6), "2.5 million");
  EXPECT_EQ(human_number(1.5e13), "15 trillion");
  EXPECT_EQ(human_number(1.31e16), "1.31 × 10^16");
  EXPECT_EQ(human_count(7302), "7,302");
  EXPECT_EQ(human_count(1048576), "1,048,576");
  EXPECT_EQ(human_count(1e9), "1 billion");
  EXPECT_EQ(human_count(-1234), "-1,234");
}

TEST(HumanUnits, UnitsPickTheScaleThatReads) {
  EXPECT_EQ(human_seconds(0.046), "46 ms");
  EXPECT_EQ(human_seconds(0.00085), "850 µs");
  EXPECT_EQ(human_seconds(34.7239), "34.7 s");
  EXPECT_EQ(human_seconds(7134.07), "119 min");  // 118.9 minutes
  EXPECT_EQ(human_seconds(3 * 3600), "3 h");
  EXPECT_EQ(human_seconds(5 * 86400), "5 days");
  EXPECT_EQ(human_seconds(0), "0 s");
  EXPECT_EQ(human_bytes(50267245772.8), "46.8 GiB");  // / 2^30 = 46.81
  EXPECT_EQ(human_bytes(94371840), "90 MiB");
  EXPECT_EQ(human_flops(9.420961972947517e17), "942 PFLOP");
  EXPECT_EQ(human_percent(0.42846), "42.8%");
  EXPECT_EQ(human_usd(47.2434), "$47.24");
  EXPECT_EQ(human_usd(0.08690930946893835), "$0.0869");
  EXPECT_EQ(human_usd(0.08), "$0.08");
  EXPECT_EQ(human_usd(0), "$0.00");
  EXPECT_EQ(human_usd(1234), "$1,230");
}

TEST(Assumptions, LabelsUnitsAndNoneForUnsetTargets) {
  const nlohmann::ordered_json answer = {{"model", "llama3.1-70b"},
                                         {"ttft_target_s", 0.0},
                                         {"tpot_target_s", 0.05},
                                         {"rate_rps", 0.0},
                                         {"evaluated", 72500},
                                         {"plan", {{"dp_shard", 4}, {"sp", true}}},
                                         {"budget_rule", "total_fraction"},
                                         {"breakdown", {{"forward_s", 1.0}}},
                                         {"kv_per_seq_bytes", 94371840.0}};
  const std::vector<AssumptionRow> rows = assumption_rows(answer);
  auto value_of = [&](const std::string& label) {
    for (const AssumptionRow& r : rows) {
      if (r.label == label) return r.value;
    }
    return std::string("(no row)");
  };
  EXPECT_EQ(value_of("time-to-first-token target"), "none");
  EXPECT_EQ(value_of("time-per-output-token target"), "50 ms");
  EXPECT_EQ(value_of("request rate to serve"), "none (one replica)");
  EXPECT_EQ(value_of("plans evaluated"), "72,500");
  EXPECT_EQ(value_of("sharding group (ZeRO/FSDP)"), "4");
  EXPECT_EQ(value_of("sequence parallel"), "yes");
  EXPECT_EQ(value_of("budget rule"), "total fraction");  // no label: the key in words, the value too
  EXPECT_EQ(value_of("kv per seq"), "90 MiB");            // the unit moves to the value
  EXPECT_EQ(value_of("forward"), "(no row)");             // the breakdown is the chart's
  EXPECT_EQ(rows[0].group, "answer");
  EXPECT_EQ(value_of("sharding group (ZeRO/FSDP)"), "4");
  for (const AssumptionRow& r : rows) {
    if (r.label == "sequence parallel") {
      EXPECT_EQ(r.group, "plan");
    }
  }
}

// What a reader must never see: a raw field name (snake_case words, a dotted path) or a number
// in scientific notation. Identifiers with digits (gpu_8x_h100_sxm5, an instance) are names.
// Identifiers in capitals (an instance such as 1x_H200-SXM_SECURE) are names too.
// A web address is a citation, not a field name: it is left out of the scan.
std::vector<std::string> unreadable_parts(const std::string& shown) {
  static const std::regex kUrl(R"(https?://\S+)");
  const std::string text = std::regex_replace(shown, kUrl, "");
  static const std::regex kRawName(R"(\b[a-z]+(?:_[a-z]+)+\b|\b(?:plan|best|pick|knee)\.[a-z])");
  static const std::regex kExponent(R"(\b\d+(?:\.\d+)?e[+-]?\d+\b)", std::regex::icase);
  std::vector<std::string> hits;
  for (const std::regex* pattern : {&kRawName, &kExponent}) {
    for (auto it = std::sregex_iterator(text.begin(), text.end(), *pattern); it != std::sregex_iterator(); ++it) {
      hits.push_back(it->str());
    }
  }
  return hits;
}

TEST(Assumptions, TheScanCatchesRawNamesAndExponents) {
  EXPECT_EQ(unreadable_parts("plan.dp_shard 4").size(), 1u);  // the path
  EXPECT_EQ(unreadable_parts("dp_shard 4").size(), 1u);
  EXPECT_EQ(unreadable_parts("ttft_target_s 0").size(), 1u);
  EXPECT_EQ(unreadable_parts("tokens/s 7.25e+4").size(), 1u);
  EXPECT_EQ(unreadable_parts("1.31e16 FLOP").size(), 1u);
  EXPECT_TRUE(unreadable_parts("lambda gpu_8x_h100_sxm5 on-demand, 72,500 tokens/s, 1.31 × 10^16").empty());
  EXPECT_TRUE(unreadable_parts("runpod 1x_H200-SXM_SECURE on-demand").empty());
  EXPECT_TRUE(unreadable_parts("catalog [electricity]: https://www.eia.gov/epm_table_grapher.php?t=epmt_5_06_b").empty());
  EXPECT_EQ(unreadable_parts("https://example.com/a_b price_date").size(), 1u);
}

struct WordsCase {
  const char* name;
  std::vector<std::string> args;
  const char* opening;  // how the sentence starts
};

const std::vector<WordsCase>& words_report_cases() {
  static const std::vector<WordsCase> cases{
      {"train", {"train", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8", "--pp", "2", "--sp",
                 "--zero", "1", "--global-batch", "256", "--seq-len", "8192", "--recompute", "selective"},
       "Train Llama 3.1 70B on 64 H100 SXM5 80GB as TP 8 × PP 2 × DP 4 (sequence parallel, ZeRO-1, selective recompute, bf16"},
      {"train that does not fit", {"train", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "8",
                                   "--seq-len", "4096"},
       "Training Llama 3.1 70B on 8 H100 SXM5 80GB as DP 8"},
      {"train on the defaults", {"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8"},
       "Training Llama 3.1 8B on 8 H100 SXM5 80GB as DP 8"},  // does not fit: the defaults still read
      {"search", {"search", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "16", "--global-batch", "128", "--seq-len", "4096"},
       "The fastest plan to train Llama 3 8B on 16 H100 SXM5 80GB is "},
      {"recommend", {"recommend", "--model", "llama3-8b", "--tokens", "10B", "--gpus-list", "8,16", "--providers", "lambda"},
       "Train Llama 3 8B on 10 billion tokens with "},
      {"infer", {"infer", "--model", "llama3.1-8b", "--gpu", "h200-sxm", "--input-len", "2048", "--output-len", "256", "--concurrency", "64"},
       "Serve Llama 3.1 8B on 1 H200 SXM 141GB with bf16 weights and KV, 64 requests in flight: "},
      {"infer-search", {"infer-search", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--input-len", "2048", "--output-len", "256"},
       "Serve Llama 3.1 70B on "},
      {"infer-search with targets", {"infer-search", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--input-len", "2048",
                                     "--output-len", "256", "--tpot-ms", "50", "--ttft-ms", "2000"},
       "Serve Llama 3.1 70B on "},
      {"cost", {"cost", "--gpu", "h100-sxm", "--gpus", "64", "--model", "llama3.1-70b", "--tokens", "100B"},
       "Training Llama 3.1 70B on 64 H100 SXM5 80GB for 100 billion tokens takes "},
      {"cost, GPU-hours", {"cost", "--gpu", "h200-sxm", "--gpu-hours", "1000"}, "1,000 GPU-hours of H200 SXM 141GB cost $"},
      {"collective sweep", {"collective", "--op", "allreduce", "--gpus", "16", "--system", "dgx-h100", "--sweep"},
       "AllReduce over 16 GPUs (2 dgx-h100 nodes × 8, bf16): "},
      {"collective, one size", {"collective", "--op", "allgather", "--gpus", "8", "--system", "dgx-h100", "--bytes", "32MiB"},
       "AllGather of 32 MiB over 8 GPUs (one dgx-h100 node, bf16) takes "},
      {"compare, training", {"compare", "h100-sxm", "h200-sxm", "--model", "llama3.1-8b", "--gpus", "8", "--global-batch", "64",
                             "--seq-len", "4096"},
       "Training Llama 3.1 8B on 8 GPUs, H200 SXM 141GB is "},
      {"compare, datasheets", {"compare", "h100-sxm", "b200"}, "B200 "},
      {"infer-search, no plan", {"infer-search", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus-max", "2", "--tpot-ms", "1"},
       "No plan serves Llama 3.1 70B on up to 2 H100 SXM5 80GB: "},
  };
  return cases;
}

nlohmann::json words_report_data(const WordsCase& c) {
  std::vector<std::string> args = c.args;
  args.emplace_back("--report-data");
  const auto r = testing::run(args);
  EXPECT_EQ(r.code, 0) << c.name << ": " << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(AnswerWords, EveryReportSaysTheAnswerFirstInReadableWords) {
  for (const WordsCase& c : words_report_cases()) {
    SCOPED_TRACE(c.name);
    const nlohmann::json data = words_report_data(c);
    const std::string headline = data.at("headline");
    EXPECT_EQ(headline.rfind(c.opening, 0), 0u) << headline;
    EXPECT_EQ(unreadable_parts(headline), std::vector<std::string>{}) << headline;
    ASSERT_TRUE(data.at("assumptions").is_array());
    EXPECT_GT(data.at("assumptions").size(), 5u);
    for (const auto& row : data.at("assumptions")) {
      for (const char* part : {"group", "label", "value"}) {
        const std::string text = row.at(part);
        EXPECT_EQ(unreadable_parts(text), std::vector<std::string>{}) << part << ": " << text;
        EXPECT_FALSE(text.empty()) << row.dump();
      }
    }
  }
}

// The defaults an answer rests on (TrainSetup::assumptions) are rows a person reads: the field's
// label, its value with its unit, and why, config names spaced.
TEST(Assumptions, DefaultsTheAnswerRestsOnAreLabelledRows) {
  const auto r = testing::run({"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--report-data"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json data = nlohmann::json::parse(r.out);
  std::vector<std::string> labels;
  for (const auto& row : data.at("assumptions")) {
    if (row.at("group") == "defaults (not asked)") labels.push_back(row.at("label"));
    if (row.at("label") == "sequence length (tokens)" && row.at("group") == "defaults (not asked)") {
      EXPECT_EQ(row.at("value").get<std::string>().rfind("8,192 — llama3.1-8b's pretraining length (its config's original max "
                                                         "position embeddings",
                                                         0),
                0u)
          << row.dump();
    }
  }
  EXPECT_EQ(labels.size(), data.at("answer").at("assumptions").size());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "global batch (sequences)"), labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "runtime overhead"), labels.end());
}

TEST(AnswerWords, ServingSentenceCarriesTheAnswersFigures) {
  const nlohmann::json data = words_report_data(words_report_cases()[7]);
  const nlohmann::json& best = data.at("answer").at("best");
  const std::string headline = data.at("headline");
  // The figures of the answer, as the sentence writes them.
  EXPECT_NE(headline.find(human_number(best.at("output_tokens_per_s_per_gpu").get<double>()) + " output tokens/s per GPU at " +
                          human_seconds(best.at("tpot_s").get<double>()) + " per token"),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find(human_count(best.at("plan").at("load").get<double>()) + " requests in flight"), std::string::npos)
      << headline;
  EXPECT_NE(headline.find("meets the targets (first token within 2 s and 50 ms per token at most)"), std::string::npos) << headline;
  // Unset targets read "none", never 0.
  const nlohmann::json open = words_report_data(words_report_cases()[6]);
  EXPECT_NE(open.at("headline").get<std::string>().find("no latency target"), std::string::npos);
  int nones = 0;
  for (const auto& row : open.at("assumptions")) {
    if (row.at("label") == "time-to-first-token target" || row.at("label") == "time-per-output-token target") {
      EXPECT_EQ(row.at("value"), "none");
      ++nones;
    }
  }
  EXPECT_EQ(nones, 2);
}

InferFrontPoint make_front_point(double per_gpu, double tpot_s) {
  InferFrontPoint p;
  p.output_tokens_per_s_per_gpu = per_gpu;
  p.tpot_s = tpot_s;
  return p;
}

TEST(InferFront, KeepsOnlyPlansNoOtherBeatsOnBothAxes) {
  std::vector<InferFrontPoint> front;
  add_to_front(front, make_front_point(100, 0.010));
  add_to_front(front, make_front_point(300, 0.030));
  add_to_front(front, make_front_point(200, 0.040));  // slower per user and per GPU than (300, 30 ms): out
  add_to_front(front, make_front_point(100, 0.010));  // the same figures again: kept once
  ASSERT_EQ(front.size(), 2u);
  add_to_front(front, make_front_point(350, 0.020));  // beats (300, 30 ms) on both: replaces it
  ASSERT_EQ(front.size(), 2u);
  EXPECT_EQ(front[0].tpot_s, 0.010);  // sorted by TPOT, fastest per user first
  EXPECT_EQ(front[1].output_tokens_per_s_per_gpu, 350);
  EXPECT_DOUBLE_EQ(front[1].tokens_per_s_per_user(), 50);
}

TEST(InferFront, TheSearchsFrontHoldsTheChosenPlanAndNoDominatedPoint) {
  const nlohmann::json data = words_report_data(words_report_cases()[6]);  // no targets: the best is on the front
  const nlohmann::json& front = data.at("front");
  ASSERT_GE(front.size(), 3u);
  int chosen = 0;
  for (std::size_t i = 0; i < front.size(); ++i) {
    const auto& p = front[i];
    if (i > 0) {
      EXPECT_GE(p.at("tpot_s").get<double>(), front[i - 1].at("tpot_s").get<double>());
    }
    for (const auto& q : front) {
      const bool beats = q.at("output_tokens_per_s_per_gpu") > p.at("output_tokens_per_s_per_gpu") && q.at("tpot_s") < p.at("tpot_s");
      EXPECT_FALSE(beats) << p.dump() << " beaten by " << q.dump();
    }
    EXPECT_EQ(unreadable_parts(p.at("words").get<std::string>()), std::vector<std::string>{});
    if (p.at("chosen").get<bool>()) {
      ++chosen;
      EXPECT_DOUBLE_EQ(p.at("output_tokens_per_s_per_gpu").get<double>(),
                       data.at("answer").at("best").at("output_tokens_per_s_per_gpu").get<double>());
    }
  }
  EXPECT_EQ(chosen, 1);
}

}  // namespace
}  // namespace gpuplan
