// train, memory, train_many, search, recommend: keywords → the request structs (by their field tables) → the
// library's answer_* → typed results (to_dict/to_json/str through report/).
#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include <pybind11/stl.h>

#include "common.h"
#include "core/error.h"
#include "econ/recommend_question.h"
#include "emit/launch_config.h"
#include "fields.h"
#include "kwargs.h"
#include "plan/train_fields.h"
#include "report/recommend_report.h"
#include "report/search_report.h"
#include "report/train_report.h"
#include "search/search_fields.h"
#include "search/search_request.h"

namespace gpuplan::py {
namespace {

// The keywords of train() and memory(): the fields of plan/train_fields.h (tp_overlap=False
// for --no-tp-overlap).
TrainRequest train_request(const char* function, const pyb::dict& kwargs) {
  TrainRequest r;
  Kwargs k(function, kwargs);
  read_fields(k, r, train_fields());
  k.finish();
  require_fields(k, function, train_fields());
  return r;
}

using TrainResult = Result<TrainAnswer>;

// The "plan" object of the answer's JSON (plan/plan_json.h, with the framework as written there).
pyb::object plan_dict(const TrainAnswer& a) { return json_to_py(to_json(a)["plan"]); }

void bind_train_result(pyb::module_& m) {
  auto cls = result_class<TrainAnswer>(m, "TrainResult",
                                       "One training plan's estimate (gpuplan train): step time, throughput, MFU,\n"
                                       "memory per GPU and the bottleneck. str() is the CLI's report; to_dict() its JSON.");
  cls.def_property_readonly("feasible", [](const TrainResult& r) { return r.get().estimate.feasible(); },
                            "Whether the plan is valid and fits in memory.");
  cls.def_property_readonly("reason", [](const TrainResult& r) { return std::string(r.get().estimate.reason_text()); },
                            "Why the plan cannot run ('' when it can).");
  cls.def_property_readonly("step_time_s", [](const TrainResult& r) { return r.get().estimate.step_time_s; });
  cls.def_property_readonly("tokens_per_s", [](const TrainResult& r) { return r.get().estimate.tokens_per_s; });
  cls.def_property_readonly("tokens_per_s_per_gpu", [](const TrainResult& r) { return r.get().estimate.tokens_per_s_per_gpu; });
  cls.def_property_readonly("mfu", [](const TrainResult& r) { return r.get().estimate.mfu; });
  cls.def_property_readonly("hfu", [](const TrainResult& r) { return r.get().estimate.hfu; });
  cls.def_property_readonly("tflops_per_gpu", [](const TrainResult& r) { return r.get().estimate.tflops_per_gpu; });
  cls.def_property_readonly("gpus", [](const TrainResult& r) { return r.get().estimate.gpus; });
  cls.def_property_readonly("bubble_fraction", [](const TrainResult& r) { return r.get().estimate.bubble_fraction; });
  cls.def_property_readonly(
      "tensor_clock_factor", [](const TrainResult& r) { return r.get().estimate.tensor_clock_factor; },
      "The GPU's tensor clock at its power limit over its family's reference part's (1 = not modelled).");
  cls.def_property_readonly(
      "gemm_clock_factor", [](const TrainResult& r) { return r.get().estimate.gemm_clock_factor; },
      "The clock of the plan's GEMM precision at the power limit (tensor_clock_factor unless that precision "
      "draws more power per clock than on the reference part).");
  cls.def_property_readonly("memory_bytes", [](const TrainResult& r) { return r.get().estimate.memory.total_bytes; },
                            "Memory of the most loaded GPU, bytes.");
  cls.def_property_readonly("memory_capacity_bytes",
                            [](const TrainResult& r) { return r.get().estimate.memory_capacity_bytes; });
  cls.def_property_readonly("bottleneck",
                            [](const TrainResult& r) { return std::string(bottleneck_name(r.get().estimate.bottleneck)); });
  cls.def("emit", [](const TrainResult& r, const std::string& framework) {
    return make_result(r.catalog, emit_train(r.get(), framework));
  }, pyb::arg("framework"),
          "The launch config of this plan for megatron, torchtitan or nemo (`gpuplan train --emit`):\n"
          "a LaunchConfig whose str() is the files to save and to_dict() the CLI's JSON.");
  cls.def_property_readonly(
      "nearest_feasible_plans",
      [](const TrainResult& r) {
        // plan/nearest_plans.h through report/'s writer: the rows `gpuplan train --json` prints.
        const nlohmann::ordered_json j = to_json(r.get());
        return json_to_py(j.contains("nearest_feasible_plans") ? j["nearest_feasible_plans"]
                                                               : nlohmann::ordered_json::array());
      },
      "For a plan that cannot run, the nearest ones on the same GPUs that do, one change each, fastest\n"
      "first: a list of dicts (change, step_time_s, memory_bytes, plan); [] for a feasible plan.");
  cls.def_property_readonly("plan", [](const TrainResult& r) { return plan_dict(r.get()); },
                            "The plan as `gpuplan train --json` writes it (the keys of its \"plan\" object).");
}

using MemoryResult = Result<MemoryAnswer>;
using SearchResultPy = Result<SearchAnswer>;
using RecommendResult = Result<RecommendAnswer>;
using ServeRecommendResult = Result<ServeRecommendAnswer>;

// train_many: requests parsed under the GIL, then evaluated on `threads` threads without it.
std::vector<TrainResult> train_many(const pyb::sequence& requests, std::optional<int> threads, const pyb::object& catalog_arg) {
  CatalogPtr catalog = catalog_from(catalog_arg);
  std::vector<TrainRequest> parsed;
  parsed.reserve(requests.size());
  std::size_t index = 0;
  for (pyb::handle item : requests) {
    if (!pyb::isinstance<pyb::dict>(item))
      throw Error("train_many(requests[" + std::to_string(index) + "]): expected a dict of train() keywords");
    try {
      parsed.push_back(train_request("train_many", item.cast<pyb::dict>()));
    } catch (const Error& e) {
      throw Error("requests[" + std::to_string(index) + "]: " + e.what());
    }
    ++index;
  }
  const unsigned hardware = std::max(1U, std::thread::hardware_concurrency());
  if (threads && *threads < 1) throw Error("train_many(threads=" + std::to_string(*threads) + "): at least 1 (None = every core)");
  const std::size_t workers = std::min<std::size_t>(threads ? static_cast<std::size_t>(*threads) : hardware,
                                                    std::max<std::size_t>(1, parsed.size()));
  std::vector<std::optional<TrainAnswer>> answers(parsed.size());
  std::vector<std::string> errors(parsed.size());
  {
    pyb::gil_scoped_release release;
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      for (std::size_t i = next++; i < parsed.size(); i = next++) {
        try {
          answers[i] = in_python_words(train_fields(), [&] { return answer_train(*catalog, parsed[i]); });
        } catch (const Error& e) {
          errors[i] = e.what();
        }
      }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
  for (std::size_t i = 0; i < errors.size(); ++i)
    if (!errors[i].empty()) throw Error("requests[" + std::to_string(i) + "]: " + errors[i]);
  std::vector<TrainResult> out;
  out.reserve(answers.size());
  for (auto& a : answers) out.push_back(make_result(catalog, std::move(*a)));
  return out;
}

}  // namespace

void bind_train(pyb::module_& m) {
  result_class<LaunchConfig>(m, "LaunchConfig", "A framework's launch config for a plan (`--emit`).")
      .def_property_readonly("framework", [](const Result<LaunchConfig>& r) { return r.get().framework; })
      .def_property_readonly("version", [](const Result<LaunchConfig>& r) { return r.get().version; })
      .def_property_readonly("flags", [](const Result<LaunchConfig>& r) { return json_to_py(to_json(r.get())["flags"]); })
      .def_property_readonly("files", [](const Result<LaunchConfig>& r) {
        pyb::dict out;
        for (const EmittedFile& f : r.get().files) out[pyb::str(f.name)] = f.text;
        return out;
      }, "File name → text.");
  bind_train_result(m);
  result_class<MemoryAnswer>(m, "MemoryResult", "Memory per GPU of one training plan (gpuplan memory).")
      .def_property_readonly("total_bytes", [](const MemoryResult& r) { return r.get().train.estimate.memory.total_bytes; })
      .def_property_readonly("capacity_bytes",
                             [](const MemoryResult& r) { return r.get().train.estimate.memory_capacity_bytes; })
      .def_property_readonly("fits", [](const MemoryResult& r) { return r.get().train.estimate.fits(); })
      .def_property_readonly("train", [](const MemoryResult& r) {
        return make_result(r.catalog, TrainAnswer(r.get().train));
      });

  m.def(
      "train",
      [](pyb::kwargs kwargs) {
        CatalogPtr catalog = take_catalog(kwargs);
        TrainRequest request = train_request("train", kwargs);
        pyb::gil_scoped_release release;
        return in_python_words(train_fields(), [&] { return make_result(catalog, answer_train(*catalog, request)); });
      },
      "train(*, model, gpu=None, gpus=None, tp=1, pp=1, vp=1, dp=None, cp=1, ep=1, sp=False, zero=0, ...)\n"
      "One training plan's estimate, as `gpuplan train`: every flag is a keyword with '-' as '_'\n"
      "(tp_overlap=False for --no-tp-overlap). Raises gpuplan.Error naming the keyword (its .field).");
  m.def(
      "memory",
      [](pyb::kwargs kwargs) {
        CatalogPtr catalog = take_catalog(kwargs);
        TrainRequest request = train_request("memory", kwargs);
        pyb::gil_scoped_release release;
        return in_python_words(train_fields(), [&] { return make_result(catalog, answer_memory(*catalog, request)); });
      },
      "memory(*, model, gpu=None, ...): the memory breakdown per GPU of a plan (`gpuplan memory`);\n"
      "the same keywords as train().");
  m.def("train_many", &train_many, pyb::arg("requests"), pyb::kw_only(), pyb::arg("threads") = pyb::none(),
        pyb::arg("catalog") = pyb::none(),
        "Evaluates many plans (a list of train() keyword dicts) on `threads` threads (None = every\n"
        "core) with the GIL released; returns TrainResult in the order given. A request with bad\n"
        "input raises gpuplan.Error naming its index.");

  result_class<SearchAnswer>(m, "SearchResult", "The best training plans for a model on N GPUs (gpuplan search).")
      .def_property_readonly("top", [](const SearchResultPy& r) { return table(to_json(r.get())["top"]); },
                             "The top plans as a table: a pandas DataFrame where pandas is installed, else a list of dicts.")
      .def_property_readonly("best", [](const SearchResultPy& r) -> pyb::object {
        const auto& top = r.get().result.top;
        if (top.empty()) return pyb::none();
        return json_to_py(to_json(r.get())["top"][0]);
      }, "The best plan's row (a dict), or None when no plan fits.")
      .def_property_readonly("evaluated", [](const SearchResultPy& r) { return r.get().result.evaluated; });
  m.def(
      "search",
      [](pyb::kwargs kwargs) { return ask_by_table("search", kwargs, search_fields(), &answer_search); },
      "search(*, model, gpus, global_batch, gpu=None, seq_len=None, top=3, objective='time', threads=None, ...)\n"
      "The best plans (`gpuplan search`); .top is a DataFrame when pandas is installed.");

  result_class<RecommendAnswer>(m, "RecommendResult", "Which GPU, how many and which cloud offer (gpuplan recommend).")
      .def_property_readonly("front", [](const RecommendResult& r) { return table(to_json(r.get())["front"]); },
                             "The Pareto front of time vs cost: a DataFrame where pandas is installed.")
      .def_property_readonly("pick", [](const RecommendResult& r) { return json_to_py(to_json(r.get())["pick"]); });
  result_class<ServeRecommendAnswer>(m, "ServeRecommendResult",
                                     "Which GPU, how many and which cloud offer to serve a model (gpuplan recommend --serve).")
      .def_property_readonly("front", [](const ServeRecommendResult& r) { return table(to_json(r.get())["front"]); },
                             "The Pareto front of cost vs time per output token: a DataFrame where pandas is installed.")
      .def_property_readonly("pick", [](const ServeRecommendResult& r) { return json_to_py(to_json(r.get())["pick"]); });
  m.def(
      "recommend",
      [](pyb::kwargs kwargs) -> pyb::object {
        CatalogPtr catalog = take_catalog(kwargs);
        number_as_text(kwargs, "recommend", "tokens", false);  // tokens=1e11 as well as tokens="100B"
        RecommendQuestion q;
        Kwargs k("recommend", kwargs);
        read_fields(k, q, recommend_fields());
        k.finish();
        require_fields(k, "recommend", recommend_fields());
        if (q.serving) {
          ServeRecommendResult result = in_python_words(recommend_fields(), [&] {
            const ServeRecommendRequest r = recommend_serving_request(q);
            pyb::gil_scoped_release release;
            return make_result(catalog, answer_serve_recommend(*catalog, r));
          });
          return pyb::cast(std::move(result));
        }
        RecommendResult result = in_python_words(recommend_fields(), [&] {
          const RecommendRequest r = recommend_training_request(q);
          pyb::gil_scoped_release release;
          return make_result(catalog, answer_recommend(*catalog, r));
        });
        return pyb::cast(std::move(result));
      },
      "recommend(*, model, tokens, gpus_max=None, gpus_list=None, providers=None, deadline_days=None,\n"
      "budget_usd=None, ...): the Pareto front of time-to-train vs cost (`gpuplan recommend`); with\n"
      "serve=True (and input_len, output_len, rate_rps, ttft_ms, tpot_ms, engine, weights instead of\n"
      "tokens) the front of cost vs per-user speed for serving, a ServeRecommendResult.");
}

}  // namespace gpuplan::py
