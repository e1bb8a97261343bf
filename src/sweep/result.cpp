#include <nlohmann/json.hpp>
#include "sweep/result.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "plan/plan_json.h"

namespace gpuplan {
namespace {

nlohmann::ordered_json row_to_json(const SweepPlanRow& r) {
  nlohmann::ordered_json j;
  j["rank"] = r.rank;
  j["plan"] = plan_json(r.plan);  // the keys of `gpuplan train --json`
  j["score"] = r.score;
  j["step_time_s"] = r.step_time_s;
  j["tokens_per_s"] = r.tokens_per_s;
  j["tokens_per_s_per_gpu"] = r.tokens_per_s_per_gpu;
  j["mfu"] = r.mfu;
  j["memory_bytes"] = r.memory_bytes;
  j["memory_capacity_bytes"] = r.memory_capacity_bytes;
  j["usd_per_step"] = r.usd_per_step;
  j["bottleneck"] = r.bottleneck;
  return j;
}

SweepPlanRow row_from_json(const nlohmann::json& j) {
  SweepPlanRow r;
  r.rank = j.at("rank").get<int>();
  r.plan = plan_from_json(j.at("plan"));
  r.score = j.at("score").get<double>();
  r.step_time_s = j.at("step_time_s").get<double>();
  r.tokens_per_s = j.at("tokens_per_s").get<double>();
  r.tokens_per_s_per_gpu = j.at("tokens_per_s_per_gpu").get<double>();
  r.mfu = j.at("mfu").get<double>();
  r.memory_bytes = j.at("memory_bytes").get<double>();
  r.memory_capacity_bytes = j.at("memory_capacity_bytes").get<double>();
  r.usd_per_step = j.at("usd_per_step").get<double>();
  r.bottleneck = j.at("bottleneck").get<std::string>();
  return r;
}

}  // namespace

nlohmann::ordered_json cell_result_json(const SweepCellResult& c) {
  nlohmann::ordered_json j;
  j["cell"] = c.cell;
  j["model"] = c.model;
  j["gpu"] = c.gpu;
  j["system"] = c.system;
  j["gpus"] = c.gpus;
  j["status"] = c.feasible() ? "ok" : "infeasible";
  j["plans_in_space"] = c.plans_in_space;
  j["complete"] = c.complete;
  j["usd_per_gpu_hour"] = c.usd_per_gpu_hour;
  j["price_source"] = c.price_source;
  j["top"] = nlohmann::ordered_json::array();
  for (const SweepPlanRow& r : c.top) j["top"].push_back(row_to_json(r));
  j["closest"] = c.closest ? row_to_json(*c.closest) : nlohmann::ordered_json();
  j["reason"] = c.reason;
  return j;
}

SweepCellResult cell_result_from_json(const nlohmann::json& j) {
  try {
    SweepCellResult c;
    c.cell = j.at("cell").get<int>();
    c.model = j.at("model").get<std::string>();
    c.gpu = j.at("gpu").get<std::string>();
    c.system = j.at("system").get<std::string>();
    c.gpus = j.at("gpus").get<int>();
    c.plans_in_space = j.at("plans_in_space").get<long long>();
    c.complete = j.at("complete").get<bool>();
    c.usd_per_gpu_hour = j.at("usd_per_gpu_hour").get<double>();
    c.price_source = j.at("price_source").get<std::string>();
    for (const auto& r : j.at("top")) c.top.push_back(row_from_json(r));
    if (!j.at("closest").is_null()) c.closest = row_from_json(j.at("closest"));
    c.reason = j.at("reason").get<std::string>();
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("sweep result: malformed cell ({}); were all ranks the same gpuplan build?", e.what()));
  }
}

}  // namespace gpuplan
