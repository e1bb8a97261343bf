#include "report/collective_report.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "core/table.h"

namespace gpuplan {
namespace {

// GCC 12 reports a false -Wrestrict on `"literal" + std::string` at -O3 (bug 105329): fmt it is.
std::string fabric_suffix(const CollectiveTopology& t) {
  return t.fabric_id.empty() ? std::string() : fmt::format(" / {}", t.fabric_id);
}

std::string gbps(double bytes_per_s) { return fmt::format("{:.1f} GB/s", bytes_per_s / kGiga); }

std::string op_title(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return "AllReduce";
    case CollectiveOp::all_gather:
      return "AllGather";
    case CollectiveOp::reduce_scatter:
      return "ReduceScatter";
    case CollectiveOp::all_to_all:
      return "AllToAll";
    case CollectiveOp::broadcast:
      return "Broadcast";
    case CollectiveOp::send_recv:
      return "SendRecv";
  }
  return "?";
}

std::string busbw_rule(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return "algbw x 2(n-1)/n";
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all:
      return "algbw x (n-1)/n";
    default:
      return "algbw x 1";
  }
}

std::string gpus_text(int n) { return fmt::format("{} GPU{}", n, n == 1 ? "" : "s"); }

std::string shape_text(const CollectiveRequest& r, const CollectiveTopology& t) {
  std::string s = r.domains == 1 ? fmt::format("{} in one domain of {}", gpus_text(r.gpus_per_domain), t.domain_gpus)
                                 : fmt::format("{} domains x {}", r.domains, gpus_text(r.gpus_per_domain));
  if (r.domain_stride > 1) s += fmt::format(", {} domains apart", r.domain_stride);
  if (r.concurrent > 1) s += fmt::format(", sharing links with {} other collectives", r.concurrent - 1);
  return s;
}

std::string candidate_name(const CollectiveEstimate& e) {
  return fmt::format("{}/{}", algorithm_name(e.algorithm), protocol_name(e.protocol));
}

nlohmann::ordered_json levels_json(const CollectiveEstimate& e, const CollectiveTopology& t) {
  nlohmann::ordered_json levels = nlohmann::ordered_json::array();
  for (int i = 0; i < t.level_count; ++i) {
    if (e.level_bytes[i] <= 0) continue;
    nlohmann::ordered_json l;
    l["level"] = i;
    l["name"] = t.level_names[i];
    l["bytes_per_gpu"] = e.level_bytes[i];
    l["bw_bytes_per_s"] = e.level_bw_bytes_per_s[i];
    l["line_bw_bytes_per_s"] = t.levels[i].line_bw_bytes_per_s;
    l["time_s"] = e.level_time_s[i];
    levels.push_back(l);
  }
  return levels;
}

// "LL128, Simple": the protocols a multi-domain group may run over the transport.
std::string net_protocols_text(const CollectiveTopology& t) {
  std::string out;
  for (Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
    if (!t.net_protocols[static_cast<int>(p)]) continue;
    out += fmt::format("{}{}", out.empty() ? "" : ", ", protocol_name(p));
  }
  return out;
}

nlohmann::ordered_json transport_json(const CollectiveTopology& t) {
  if (t.transport.empty()) return nlohmann::ordered_json();
  nlohmann::ordered_json j;
  j["id"] = t.transport;
  j["name"] = t.transport_name;
  j["family"] = t.transport_family;
  j["net_protocols"] = nlohmann::ordered_json::array();
  for (Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
    if (t.net_protocols[static_cast<int>(p)]) j["net_protocols"].push_back(protocol_name(p));
  }
  j["net_algorithms"] = nlohmann::ordered_json::array();
  for (CollectiveAlgorithm a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::tree, CollectiveAlgorithm::nvls,
                                CollectiveAlgorithm::direct}) {
    if (t.net_algorithms[static_cast<int>(a)]) j["net_algorithms"].push_back(algorithm_name(a));
  }
  j["base_latency_s"] = t.net_base_s;
  // Its per-message costs per inter-domain step (cost/collective_net_message.h).
  j["flush_latency_s"] = t.net_flush_s;
  j["eager_max_bytes"] = t.net_eager_max_bytes;
  j["rendezvous_latency_s"] = t.net_rendezvous_s;
  j["stripe_min_bytes"] = t.net_stripe_min_bytes;
  j["rail_s_per_byte"] = t.net_rail_s_per_byte;
  return j;
}

nlohmann::ordered_json collective_json(const CollectiveAnswer& a) {
  const CollectiveQuery& q = a.query;
  const CollectiveTopology& t = a.topology;
  const CollectiveRequest& r = q.request;
  const CollectiveEstimate& e = a.estimate;
  const auto& candidates = a.candidates;
  nlohmann::ordered_json j;
  j["op"] = op_name(r.op);
  j["bytes"] = r.bytes;
  j["dtype"] = q.dtype;
  j["elements"] = std::floor(r.bytes / q.dtype_bytes);
  j["gpus"] = r.gpus();
  j["nodes"] = r.domains;
  j["gpus_per_node"] = r.gpus_per_domain;
  j["node_stride"] = r.domain_stride;
  j["concurrent"] = r.concurrent;
  j["system"] = t.system_id;
  j["fabric"] = t.fabric_id.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(t.fabric_id);
  j["collective_params"] = t.params_id;
  j["collective_library"] = t.library;
  j["fixed_cost_ratio"] = t.fixed_cost_ratio;
  j["transport"] = transport_json(t);
  j["transport_used"] = r.domains > 1 && !t.transport.empty();
  j["ideal"] = q.ideal;
  j["algorithm_requested"] = algorithm_name(r.algorithm);
  j["algorithm"] = r.gpus() > 1 ? algorithm_name(e.algorithm) : "none";
  j["protocol"] = r.gpus() > 1 ? nlohmann::ordered_json(protocol_name(e.protocol)) : nlohmann::ordered_json();
  j["why"] = a.why;
  j["time_s"] = e.time_s;
  j["latency_s"] = e.latency_s;
  j["transfer_s"] = e.transfer_s;
  j["algbw_bytes_per_s"] = e.algbw_bytes_per_s;
  j["busbw_bytes_per_s"] = e.busbw_bytes_per_s;
  j["busbw_factor"] = a.busbw_factor;
  j["bottleneck_level"] = t.level_names[e.bottleneck_level];
  // NCCL's send/receive kernel inside one domain: the channels that carry a GPU's sends and the
  // rate they allow (cost/collective_p2p_channels.h); written only where that bound applies.
  if (e.p2p_channels > 0) {
    j["p2p_channels"] = e.p2p_channels;
    j["p2p_channel_bw_bytes_per_s"] = t.p2p_channel_bw_bytes_per_s;
    j["p2p_channel_cap_bytes_per_s"] = e.p2p_channel_cap_bytes_per_s;
    // The grouped send/receive fixed cost at this GPU's clock (p2p_us x 1,980 MHz / boost).
    j["p2p_fixed_cost_s"] = t.p2p_latency_s;
  }
  // The transport's per-message costs, part of latency_s; written only where the line pays them.
  if (e.net_steps > 0) {
    nlohmann::ordered_json m;
    m["message_bytes"] = e.net_message_bytes;
    m["steps"] = e.net_steps;
    m["flush_s"] = e.net_flush_s;
    m["rendezvous_s"] = e.net_rendezvous_s;
    m["rail_s"] = e.net_rail_s;
    j["net_message"] = m;
  }
  // NVLS_TREE across domains: NCCL's network chunk and the rate a head NIC's proxy posts it at
  // (chunk / the Simple net step's cost; cost/collective_nvls_tree.h); only where it applies.
  if (e.net_step_cap_bytes_per_s > 0) {
    j["nvls_tree_chunk_bytes"] = e.nvls_tree_chunk_bytes;
    j["net_step_overhead_s"] = t.net_step_overhead_s;
    j["net_step_cap_bytes_per_s"] = e.net_step_cap_bytes_per_s;
  }
  j["levels"] = levels_json(e, t);
  j["candidates"] = nlohmann::ordered_json::array();
  for (const auto& c : candidates) {
    nlohmann::ordered_json cj;
    cj["algorithm"] = algorithm_name(c.algorithm);
    cj["protocol"] = protocol_name(c.protocol);
    cj["time_s"] = c.time_s;
    cj["busbw_bytes_per_s"] = c.busbw_bytes_per_s;
    j["candidates"].push_back(cj);
  }
  return j;
}

std::string collective_text(const CollectiveAnswer& a) {
  const CollectiveQuery& q = a.query;
  const CollectiveTopology& t = a.topology;
  const CollectiveRequest& r = q.request;
  const CollectiveEstimate& e = a.estimate;
  const auto& candidates = a.candidates;
  std::string out = fmt::format("{} of {} ({}) over {} on {}{}: {}{}\n", op_title(r.op), format_bytes(r.bytes, true),
                                q.dtype, gpus_text(r.gpus()), t.system_id, fabric_suffix(t), shape_text(r, t),
                                q.ideal ? " [idealised: line rate, no latency]" : "");
  out += fmt::format("  time        {}  (latency {} + transfer {})\n", format_seconds(e.time_s),
                     format_seconds(e.latency_s), format_seconds(e.transfer_s));
  out += fmt::format("  algbw       {}\n", gbps(e.algbw_bytes_per_s));
  out += fmt::format("  busbw       {}  ({})\n", gbps(e.busbw_bytes_per_s), busbw_rule(r.op));
  if (r.gpus() > 1)
    out += fmt::format("  algorithm   {} / {}\n", algorithm_name(e.algorithm), protocol_name(e.protocol));
  else
    out += "  algorithm   none\n";
  out += fmt::format("  why         {}\n", a.why);
  if (!t.library.empty() && t.library != t.params_id) {
    out += fmt::format("  library     {} (its own fixed cost per collective; {} constants otherwise)\n", t.library,
                       t.params_id);
  }
  if (!t.transport.empty()) {
    out += fmt::format("  transport   {} ({}){}: protocols across the network {}\n", t.transport, t.transport_name,
                       r.domains > 1 ? "" : ", not used inside one domain", net_protocols_text(t));
  }
  if (e.net_steps > 0) {
    out += fmt::format("  per message {} per channel on each of {} steps across the network: flush {} + rendezvous {} + "
                       "one rail {} (in the latency)\n",
                       format_bytes(e.net_message_bytes, true), e.net_steps, format_seconds(e.net_flush_s),
                       format_seconds(e.net_rendezvous_s), format_seconds(e.net_rail_s));
  }
  if (e.p2p_channels > 0) {
    out += fmt::format("  p2p         NCCL's send/receive kernel on {} channels x {} each: at most {} per GPU{}\n",
                       e.p2p_channels, gbps(t.p2p_channel_bw_bytes_per_s), gbps(e.p2p_channel_cap_bytes_per_s),
                       e.level_bw_bytes_per_s[0] >= e.p2p_channel_cap_bytes_per_s ? " (binds)" : "");
    out += fmt::format("              fixed cost {} (p2p_us at Hopper's 1,980 MHz x 1,980 / this GPU's boost clock)\n",
                       format_seconds(t.p2p_latency_s));
  }
  if (e.net_step_cap_bytes_per_s > 0) {
    bool binds = false;
    for (int i = 1; i < t.level_count; ++i) {
      binds = binds || (e.level_bytes[i] > 0 && e.level_bw_bytes_per_s[i] >= e.net_step_cap_bytes_per_s);
    }
    out += fmt::format("  net step    NVLS_TREE chunk {} per head NIC step of {}: at most {} per head NIC{}\n",
                       format_bytes(e.nvls_tree_chunk_bytes, true), format_seconds(t.net_step_overhead_s),
                       gbps(e.net_step_cap_bytes_per_s), binds ? " (binds)" : "");
  }
  if (r.gpus() > 1) {
    out += fmt::format("  bottleneck  {}\n\n", t.level_names[e.bottleneck_level]);
    using A = TextTable::Align;
    TextTable levels({"level", "bytes per GPU", "bandwidth per GPU", "line rate", "time"},
                     {A::left, A::right, A::right, A::right, A::right});
    for (int i = 0; i < t.level_count; ++i) {
      if (e.level_bytes[i] <= 0) continue;
      levels.add_row({t.level_names[i], format_bytes(e.level_bytes[i], true), gbps(e.level_bw_bytes_per_s[i]),
                      gbps(t.levels[i].line_bw_bytes_per_s), format_seconds(e.level_time_s[i])});
    }
    out += levels.render();
    TextTable cands({"candidate", "time", "busbw"}, {A::left, A::right, A::right});
    for (const auto& c : candidates) {
      cands.add_row({candidate_name(c), format_seconds(c.time_s), gbps(c.busbw_bytes_per_s)});
    }
    out += fmt::format("\n{}", cands.render());
  }
  return out;
}

std::string collective_sweep_text(const CollectiveAnswer& a) {
  const CollectiveQuery& q = a.query;
  const CollectiveTopology& t = a.topology;
  using A = TextTable::Align;
  TextTable table({"size (B)", "count", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "algorithm", "bottleneck"},
                  {A::right, A::right, A::right, A::right, A::right, A::left, A::left});
  const CollectiveRequest& r = q.request;
  for (const CollectiveSweepRow& row : a.sweep_rows) {
    const double bytes = row.bytes;
    const CollectiveEstimate& e = row.estimate;
    table.add_row({fmt_number(bytes), fmt_number(std::floor(bytes / q.dtype_bytes)),
                   fmt::format("{:.1f}", e.time_s * 1e6), fmt::format("{:.2f}", e.algbw_bytes_per_s / kGiga),
                   fmt::format("{:.2f}", e.busbw_bytes_per_s / kGiga), candidate_name(e),
                   t.level_names[e.bottleneck_level]});
  }
  std::string head = fmt::format("{} sweep over {} on {}{}: {} ({}){}\n", op_title(r.op), gpus_text(r.gpus()),
                                 t.system_id, fabric_suffix(t), shape_text(r, t), q.dtype,
                                 q.ideal ? " [idealised]" : "");
  if (r.domains > 1 && !t.transport.empty()) {
    head += fmt::format("transport {} ({}): protocols across the network {}\n", t.transport, t.transport_name,
                        net_protocols_text(t));
  }
  return head + table.render();
}

nlohmann::ordered_json collective_sweep_json(const CollectiveAnswer& a) {
  const CollectiveQuery& q = a.query;
  const CollectiveTopology& t = a.topology;
  nlohmann::ordered_json j;
  const CollectiveRequest& r = q.request;
  j["op"] = op_name(r.op);
  j["gpus"] = r.gpus();
  j["nodes"] = r.domains;
  j["gpus_per_node"] = r.gpus_per_domain;
  j["system"] = t.system_id;
  j["fabric"] = t.fabric_id.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(t.fabric_id);
  j["collective_library"] = t.library;
  j["transport"] = transport_json(t);
  j["dtype"] = q.dtype;
  j["ideal"] = q.ideal;
  j["rows"] = nlohmann::ordered_json::array();
  for (const CollectiveSweepRow& sweep_row : a.sweep_rows) {
    const CollectiveEstimate& e = sweep_row.estimate;
    nlohmann::ordered_json row;
    row["bytes"] = sweep_row.bytes;
    row["time_s"] = e.time_s;
    row["algbw_bytes_per_s"] = e.algbw_bytes_per_s;
    row["busbw_bytes_per_s"] = e.busbw_bytes_per_s;
    row["algorithm"] = algorithm_name(e.algorithm);
    row["protocol"] = protocol_name(e.protocol);
    row["bottleneck_level"] = t.level_names[e.bottleneck_level];
    j["rows"].push_back(row);
  }
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const CollectiveAnswer& a) {
  nlohmann::ordered_json j = a.sweep ? collective_sweep_json(a) : collective_json(a);
  if (a.calibration.empty()) return j;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const CalibratedCollectiveRow& r : a.calibrated) {
    if (!r.applied) {
      rows.push_back({{"bytes", r.bytes}, {"applied", false}, {"why", r.why}});
      continue;
    }
    rows.push_back({{"bytes", r.bytes},
                    {"applied", true},
                    {"time_s", r.time_s},
                    {"busbw_bytes_per_s", r.busbw_bytes_per_s},
                    {"model_time_s", r.model_time_s},
                    {"how", r.how}});
  }
  j["calibration"] = {{"profile", a.calibration}, {"rows", rows}};
  return j;
}

std::string to_text(const CollectiveAnswer& a) {
  std::string out = a.sweep ? collective_sweep_text(a) : collective_text(a);
  for (const CalibratedCollectiveRow& r : a.calibrated) {
    if (!r.applied) {
      out += fmt::format("calibration: not applied ({})\n", r.why);
      continue;
    }
    out += fmt::format("calibrated {:>10}: {:.1f} us, busbw {:.1f} GB/s (model {:.1f} us; {})\n",
                       format_bytes(r.bytes, true), r.time_s * 1e6, r.busbw_bytes_per_s / 1e9, r.model_time_s * 1e6,
                       r.how);
  }
  return out;
}

}  // namespace gpuplan
