// Each answer in one sentence, the first thing the HTML report and the web UI show ("Serve
// Llama 3.1 70B on 2 H100 SXM5 80GB as TP 1 × PP 2 with fp8 weights and KV, 256 requests in
// flight: 1,220 output tokens/s per GPU at 105 ms per token ..."). Written here, from the
// answer structs, once: the page's script only shows the string (report_data's "headline").
#pragma once

#include <string>

#include "catalog/gpu.h"
#include "econ/recommend_request.h"
#include "infer/infer_request.h"
#include "plan/plan.h"
#include "plan/train_request.h"
#include "search/search_request.h"

namespace gpuplan {

// "H100 SXM5 80GB" for "NVIDIA H100 SXM5 80GB"; the catalog name without the vendor and the
// parenthesised remark.
std::string short_gpu_name(const Gpu& gpu);

// "TP 8 × PP 2 × DP 4 (sequence parallel, ZeRO-1, selective recompute, bf16, micro-batch 1)"
std::string training_plan_words(const Plan& plan);
// "TP 2 × PP 3 with fp8 weights and KV, 128 requests in flight"; "one GPU" where tp = pp = 1.
std::string serving_plan_words(const InferPlan& plan);

std::string answer_words(const TrainAnswer& answer);
std::string answer_words(const SearchAnswer& answer);
std::string answer_words(const RecommendAnswer& answer);
std::string answer_words(const InferAnswer& answer);
std::string answer_words(const InferSearchAnswer& answer);

}  // namespace gpuplan
