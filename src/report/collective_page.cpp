#include "report/collective_page.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/collective_report.h"
#include "report/human_units.h"

namespace gpuplan {

namespace {

// NCCL's names for the collectives ("AllReduce"); the id where the op is not one of them.
std::string collective_op_words(const std::string& op) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"allreduce", "AllReduce"}, {"allgather", "AllGather"}, {"reducescatter", "ReduceScatter"},
      {"alltoall", "AllToAll"},   {"broadcast", "Broadcast"}, {"sendrecv", "SendRecv"}};
  for (const auto& [id, name] : kNames) {
    if (op == id) return name;
  }
  return op;
}

std::string algorithm_words(const std::string& algorithm, const std::string& protocol) {
  const std::string a = algorithm == "nvls" ? "NVLS" : algorithm == "collnet" ? "CollNet" : algorithm;
  return protocol.empty() ? a : fmt::format("{}/{}", a, protocol);
}

std::string collective_gb_per_s(double bytes_per_s) { return human_number(bytes_per_s / 1e9) + " GB/s"; }

std::string collective_text(const nlohmann::ordered_json& j, const char* key) {
  return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

// "16 GPUs (2 dgx-h100 nodes × 8, bf16)", "8 GPUs (one dgx-h100 node, bf16)"
std::string collective_group_words(const nlohmann::ordered_json& a) {
  const int gpus = a.value("gpus", 0);
  const int nodes = a.value("nodes", 0);
  const std::string system = collective_text(a, "system");
  const std::string node = system.empty() ? "node" : system + " node";
  const std::string where = nodes <= 1 ? fmt::format("one {}", node)
                                       : fmt::format("{} {}s × {}", human_count(nodes), node, human_count(a.value("gpus_per_node", 0)));
  return fmt::format("{} GPUs ({}, {})", human_count(gpus), where, collective_text(a, "dtype"));
}

// "; between nodes over InfiniBand (NCCL IB verbs, GPUDirect RDMA)" where the group spans nodes.
std::string transport_words(const nlohmann::ordered_json& a) {
  if (a.value("nodes", 0) <= 1 || !a.contains("transport") || !a.at("transport").is_object()) return "";
  const std::string name = collective_text(a.at("transport"), "name");
  return name.empty() ? "" : "; between nodes over " + name;
}

}  // namespace

std::vector<CollectiveRegion> collective_regions(const nlohmann::ordered_json& rows) {
  std::vector<CollectiveRegion> regions;
  for (const nlohmann::ordered_json& row : rows) {
    const std::string algorithm = collective_text(row, "algorithm");
    const std::string protocol = collective_text(row, "protocol");
    const double bytes = row.value("bytes", 0.0);
    if (!regions.empty() && regions.back().algorithm == algorithm && regions.back().protocol == protocol) {
      regions.back().to_bytes = bytes;
    } else {
      regions.push_back({algorithm, protocol, bytes, bytes});
    }
  }
  return regions;
}

std::string collective_words(const nlohmann::ordered_json& a) {
  const std::string op = collective_op_words(collective_text(a, "op"));
  const std::string group = collective_group_words(a);
  if (a.contains("rows")) {
    const nlohmann::ordered_json& rows = a.at("rows");
    if (rows.empty()) return fmt::format("{} over {}: no size was answered.", op, group);
    const nlohmann::ordered_json& small = rows.front();
    const nlohmann::ordered_json& large = rows.back();
    std::string out = fmt::format(
        "{} over {}: {} bus bandwidth at {} with {}, bound by {}; the smallest message ({}) takes {} ({})", op, group,
        collective_gb_per_s(large.value("busbw_bytes_per_s", 0.0)), human_bytes(large.value("bytes", 0.0)),
        algorithm_words(collective_text(large, "algorithm"), collective_text(large, "protocol")), collective_text(large, "bottleneck_level"),
        human_bytes(small.value("bytes", 0.0)), human_seconds(small.value("time_s", 0.0)),
        algorithm_words(collective_text(small, "algorithm"), collective_text(small, "protocol")));
    const std::vector<CollectiveRegion> regions = collective_regions(rows);
    if (regions.size() > 1) {
      std::string parts;
      for (std::size_t i = 0; i < regions.size(); ++i) {
        const CollectiveRegion& r = regions[i];
        const std::string span = i == 0 ? fmt::format("up to {}", human_bytes(r.to_bytes))
                                 : i + 1 == regions.size() ? fmt::format("from {}", human_bytes(r.from_bytes))
                                 : r.from_bytes == r.to_bytes ? fmt::format("at {}", human_bytes(r.from_bytes))
                                                              : fmt::format("{} to {}", human_bytes(r.from_bytes), human_bytes(r.to_bytes));
        parts += fmt::format("{}{} {}", i == 0 ? "" : ", ", algorithm_words(r.algorithm, r.protocol), span);
      }
      out += "; the cheapest algorithm: " + parts;
    }
    return out + transport_words(a) + ".";
  }
  return fmt::format("{} of {} over {} takes {}: {} bus bandwidth with {}, bound by {}{}.", op,
                     human_bytes(a.value("bytes", 0.0)), group, human_seconds(a.value("time_s", 0.0)),
                     collective_gb_per_s(a.value("busbw_bytes_per_s", 0.0)),
                     algorithm_words(collective_text(a, "algorithm"), collective_text(a, "protocol")), collective_text(a, "bottleneck_level"),
                     transport_words(a));
}

std::vector<AssumptionRow> collective_assumption_rows(const nlohmann::ordered_json& a) {
  std::vector<AssumptionRow> rows;
  const char* asked = "what was asked";
  rows.push_back({asked, "collective", collective_op_words(collective_text(a, "op"))});
  if (a.contains("bytes")) rows.push_back({asked, "message size", human_bytes(a.value("bytes", 0.0))});
  if (a.contains("rows")) rows.push_back({asked, "message sizes", "512 bytes to 16 GiB, doubling (as nccl-tests)"});
  rows.push_back({asked, "GPUs in the group", human_count(a.value("gpus", 0))});
  rows.push_back({asked, "nodes (scale-up domains)", human_count(a.value("nodes", 0))});
  rows.push_back({asked, "GPUs per node", human_count(a.value("gpus_per_node", 0))});
  if (a.contains("node_stride")) rows.push_back({asked, "nodes between group members", human_count(a.value("node_stride", 1))});
  if (a.contains("concurrent")) rows.push_back({asked, "collectives sharing the links", human_count(a.value("concurrent", 1))});
  rows.push_back({asked, "element type", collective_text(a, "dtype")});
  if (a.contains("algorithm_requested")) rows.push_back({asked, "algorithm asked", collective_text(a, "algorithm_requested")});
  rows.push_back({asked, "idealised (line rate, no latency)", a.value("ideal", false) ? "yes" : "no"});
  const char* system = "system";
  rows.push_back({system, "node or rack", collective_text(a, "system").empty() ? "none" : collective_text(a, "system")});
  rows.push_back({system, "fabric above the nodes", collective_text(a, "fabric").empty() ? "none (the nodes' own network cards)" : collective_text(a, "fabric")});
  rows.push_back({system, "collective library", collective_text(a, "collective_library")});
  if (a.contains("transport") && a.at("transport").is_object()) {
    const nlohmann::ordered_json& t = a.at("transport");
    rows.push_back({system, "transport between nodes", collective_text(t, "name")});
    std::string protocols;
    for (const auto& p : t.value("net_protocols", nlohmann::ordered_json::array())) {
      protocols += (protocols.empty() ? "" : ", ") + p.get<std::string>();
    }
    if (!protocols.empty()) rows.push_back({system, "protocols across the network", protocols});
    rows.push_back({system, "transport's added latency", human_seconds(t.value("base_latency_s", 0.0))});
  }
  if (a.contains("why")) rows.push_back({"answer", "why this algorithm", collective_text(a, "why")});
  return rows;
}

nlohmann::ordered_json report_data(const CollectiveAnswer& answer) {
  nlohmann::ordered_json j;
  j["kind"] = "collective";
  j["answer"] = to_json(answer);
  j["headline"] = collective_words(j["answer"]);
  j["assumptions"] = to_json(collective_assumption_rows(j["answer"]));
  if (j["answer"].contains("rows")) {
    nlohmann::ordered_json regions = nlohmann::ordered_json::array();
    for (const CollectiveRegion& r : collective_regions(j["answer"]["rows"])) {
      regions.push_back({{"algorithm", r.algorithm},
                         {"protocol", r.protocol},
                         {"label", algorithm_words(r.algorithm, r.protocol)},
                         {"from_bytes", r.from_bytes},
                         {"to_bytes", r.to_bytes}});
    }
    j["regions"] = std::move(regions);
  }
  return j;
}

std::string report_title(const CollectiveAnswer& answer) {
  const nlohmann::ordered_json j = to_json(answer);
  return fmt::format("{} over {} GPUs{}: {}", collective_op_words(collective_text(j, "op")), j.value("gpus", 0),
                     collective_text(j, "system").empty() ? "" : " on " + collective_text(j, "system"),
                     j.contains("rows") ? "bus bandwidth against message size" : "one message");
}

}  // namespace gpuplan
