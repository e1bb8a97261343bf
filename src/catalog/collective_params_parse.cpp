// Parser for `kind = "collective_params"` files (data/fitted/collectives/), and the idealised
// parameter set the seed documents' bounds use. Schema: the commented shipped file
// data/fitted/collectives/nccl.toml; meaning of each figure: docs/model/collectives.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "catalog/collective_params.h"
#include "catalog/parsers.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

// `[LL, LL128, Simple]` in microseconds, each >= 0.
PerProtocol per_protocol_us(Fields& f, std::string_view key) {
  const std::vector<double> values = f.num_list(key);
  if (!f.has(key)) f.missing(key, "[LL, LL128, Simple] in microseconds");
  if (values.size() != kProtocolCount) {
    f.fail(key, fmt::format("expected 3 values [LL, LL128, Simple], got {}", values.size()));
  }
  PerProtocol out{};
  for (int p = 0; p < kProtocolCount; ++p) {
    if (values[p] < 0) f.fail(key, "latencies must not be negative");
    out[p] = values[p] * 1e-6;
  }
  return out;
}

// `[[link.net_protocol_range]]`: one architecture's RCCL llProtoRanges rows, each list
// [ReduceScatter, AllGather, AllReduce] in bytes, every range (min, max] with min <= max.
NetProtocolRange parse_net_protocol_range(Fields& f) {
  NetProtocolRange r;
  r.architecture = f.str("architecture");
  r.release = f.str("release");
  for (auto [key, field] :
       {std::pair{"ll_min_bytes", &r.ll_min_bytes}, std::pair{"ll_max_bytes", &r.ll_max_bytes},
        std::pair{"ll128_min_bytes", &r.ll128_min_bytes}, std::pair{"ll128_max_bytes", &r.ll128_max_bytes}}) {
    const std::vector<double> values = f.num_list(key);
    if (!f.has(key)) f.missing(key, "[ReduceScatter, AllGather, AllReduce] in bytes");
    if (values.size() != 3) {
      f.fail(key, fmt::format("expected 3 values [ReduceScatter, AllGather, AllReduce], got {}", values.size()));
    }
    for (int i = 0; i < 3; ++i) {
      if (!(values[i] >= 0 && std::isfinite(values[i]))) f.fail(key, "sizes must be finite and >= 0 (bytes)");
      (*field)[i] = values[i];
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (r.ll_min_bytes[i] > r.ll_max_bytes[i]) f.fail("ll_max_bytes", "each maximum must be >= its ll_min_bytes");
    if (r.ll128_min_bytes[i] > r.ll128_max_bytes[i]) {
      f.fail("ll128_max_bytes", "each maximum must be >= its ll128_min_bytes");
    }
  }
  f.finish();
  return r;
}

CollectiveLinkParams parse_link_params(Fields& f, const Provenance& parent) {
  CollectiveLinkParams l;
  l.link = f.str("link");
  l.bw_efficiency = f.fraction("bw_efficiency");
  if (f.has("reduction_bw_efficiency")) l.reduction_bw_efficiency = f.fraction("reduction_bw_efficiency");
  if (f.has("nvls_busbw_efficiency")) {
    const double e = f.opt_pos("nvls_busbw_efficiency").value_or(0);
    if (!(e <= 2)) {
      f.fail("nvls_busbw_efficiency", "must be in (0, 2]: NVLS bus bandwidth / line rate (NCCL: 2 x nvlsEfficiency)");
    }
    l.nvls_busbw_efficiency = e;
  }
  l.ring_hop_latency_s = per_protocol_us(f, "ring_hop_us");
  l.tree_hop_latency_s = per_protocol_us(f, "tree_hop_us");
  if (f.has("ring_base_us")) l.ring_base_latency_s = per_protocol_us(f, "ring_base_us");
  if (f.has("tree_base_us")) l.tree_base_latency_s = per_protocol_us(f, "tree_base_us");
  if (l.ring_base_latency_s.has_value() != l.tree_base_latency_s.has_value()) {
    f.fail(l.ring_base_latency_s ? "tree_base_us" : "ring_base_us",
           "give ring_base_us and tree_base_us together (the library's fixed cost for both algorithms)");
  }
  l.library = f.opt_str("library").value_or("");
  if (f.has("fixed_cost_ratio")) {
    const double r = f.opt_pos("fixed_cost_ratio").value_or(0);
    if (!(r > 0 && r <= 10)) {
      f.fail("fixed_cost_ratio",
             "must be in (0, 10]: this GPU generation's fixed cost per collective / Hopper's (1 = NCCL's latencies)");
    }
    l.fixed_cost_ratio = r;
  }
  l.net_receive_flush = f.opt_boolean("net_receive_flush").value_or(false);
  l.one_shot_allreduce = f.opt_boolean("one_shot_allreduce").value_or(false);
  l.one_shot_max_bytes = f.opt_nonneg("one_shot_max_mb").value_or(0) * 1e6;
  if (l.one_shot_allreduce && !(l.one_shot_max_bytes > 0)) {
    f.missing("one_shot_max_mb", "the largest message the library sends one-shot, in MB (RCCL_MSCCLPP_THRESHOLD)");
  }
  // [N1, N2, N4+] GB/s per channel, Simple and LL128 (NCCL perChMaxTreeBws / perChMaxTreeLL128Bws).
  for (auto [key, p] : {std::pair{"tree_channel_max_gb_per_s", Protocol::simple},
                        std::pair{"tree_ll128_channel_max_gb_per_s", Protocol::ll128}}) {
    if (!f.has(key)) continue;
    const std::vector<double> values = f.num_list(key);
    if (values.size() != 3) {
      f.fail(key, fmt::format("expected 3 values [one node, two nodes, more], got {}", values.size()));
    }
    for (int scale = 0; scale < 3; ++scale) {
      if (!(values[scale] > 0)) f.fail(key, "every per-channel ceiling must be positive (GB/s)");
      l.tree_channel_max_bw_bytes_per_s[scale][static_cast<int>(p)] = values[scale] * 1e9;
    }
  }
  // [N1, N2, N4+] GB/s: NCCL llMaxBws (the whole ring) and perChMaxRingLL128Bws (per channel).
  // llMaxBws may be 0 at a scale: no ceiling there (RCCL inside one xGMI node, where LL goes GPU
  // to GPU; across nodes the sender's LL buffer is in host memory, docs/model/collectives.md).
  for (auto [key, field] : {std::pair{"ll_max_gb_per_s", &l.ll_max_bw_bytes_per_s},
                            std::pair{"ring_ll128_channel_max_gb_per_s", &l.ring_ll128_channel_max_bw_bytes_per_s}}) {
    if (!f.has(key)) continue;
    const std::vector<double> values = f.num_list(key);
    if (values.size() != 3) {
      f.fail(key, fmt::format("expected 3 values [one node, two nodes, more], got {}", values.size()));
    }
    const bool zero_is_none = std::string_view{key} == "ll_max_gb_per_s";
    for (int scale = 0; scale < 3; ++scale) {
      const bool ok = zero_is_none ? values[scale] >= 0 && std::isfinite(values[scale]) : values[scale] > 0;
      if (!ok) {
        f.fail(key, zero_is_none ? "every ceiling must be positive (GB/s), or 0 for none at that scale"
                                 : "every ceiling must be positive (GB/s)");
      }
      (*field)[scale] = values[scale] * 1e9;
    }
  }
  const std::int64_t nvls_channels = f.opt_integer("nvls_channels").value_or(0);
  if (nvls_channels < 0 || nvls_channels > 64) {
    f.fail("nvls_channels",
           "must be between 0 (unknown) and 64 (NCCL's MAXCHANNELS): NCCL's NVLS channels for this "
           "GPU generation (NVLS_NCHANNELS_SM90 16, NVLS_NCHANNELS_SM100 32)");
  }
  l.nvls_channels = static_cast<int>(nvls_channels);
  for (Fields& r : f.table_array("net_protocol_range")) l.net_protocol_ranges.push_back(parse_net_protocol_range(r));
  l.notes = f.opt_str("notes").value_or("");
  l.provenance = f.provenance(parent);
  f.finish();
  return l;
}

// `net_protocols = ["LL", "LL128", "Simple"]`: the protocols a collective may run once it
// crosses this transport; at least Simple.
std::array<bool, kProtocolCount> parse_net_protocols(Fields& f) {
  std::array<bool, kProtocolCount> out{false, false, false};
  const std::vector<std::string> names = f.str_list("net_protocols");
  if (!f.has("net_protocols")) f.missing("net_protocols", "a list of \"LL\", \"LL128\", \"Simple\"");
  for (const std::string& name : names) {
    const std::string key = normalize_name(name);
    if (key == "ll") {
      out[static_cast<int>(Protocol::ll)] = true;
    } else if (key == "ll128") {
      out[static_cast<int>(Protocol::ll128)] = true;
    } else if (key == "simple") {
      out[static_cast<int>(Protocol::simple)] = true;
    } else {
      f.fail("net_protocols", fmt::format("unknown protocol '{}'; use LL, LL128 or Simple", name));
    }
  }
  if (!out[static_cast<int>(Protocol::simple)]) {
    f.fail("net_protocols", "must include \"Simple\" (every transport carries it)");
  }
  return out;
}

CollectiveTransportParams parse_transport_params(Fields& f, const Provenance& parent) {
  CollectiveTransportParams t;
  t.id = f.str("id");
  t.name = f.str("name");
  t.family = f.str("family");
  t.nics = f.str_list("nics");
  t.link_family = f.opt_str("link_family").value_or("");
  t.net_protocols = parse_net_protocols(f);
  t.net_algorithms = f.str_list("net_algorithms");
  for (const std::string& a : t.net_algorithms) {
    const std::string key = normalize_name(a);
    if (key != "ring" && key != "tree" && key != "nvls" && key != "direct") {
      f.fail("net_algorithms", fmt::format("unknown algorithm '{}'; use ring, tree, nvls or direct", a));
    }
  }
  t.ring_hop_latency_s = per_protocol_us(f, "ring_hop_us");
  t.tree_hop_latency_s = per_protocol_us(f, "tree_hop_us");
  t.bw_efficiency = f.fraction("bw_efficiency");
  t.base_latency_s = f.opt_nonneg("base_us").value_or(0) * 1e-6;
  t.simple_step_bytes = f.opt_nonneg("simple_step_mb").value_or(0) * 1e6;
  t.flush_latency_s = f.opt_nonneg("flush_us").value_or(0) * 1e-6;
  t.eager_max_bytes = f.opt_nonneg("eager_max_bytes").value_or(0);
  t.rendezvous_latency_s = f.opt_nonneg("rendezvous_us").value_or(0) * 1e-6;
  if (t.rendezvous_latency_s > 0 && !(t.eager_max_bytes > 0)) {
    f.missing("eager_max_bytes", "the largest message sent without a rendezvous, in bytes (rendezvous_us needs it)");
  }
  t.stripe_min_bytes = f.opt_nonneg("stripe_min_bytes").value_or(0);
  t.notes = f.opt_str("notes").value_or("");
  t.provenance = f.provenance(parent);
  f.finish();
  return t;
}

CollectiveFitPriors parse_fit_priors(Fields& f, const Provenance& parent) {
  CollectiveFitPriors p;
  p.present = true;
  p.provenance = f.provenance(parent);
  p.simple_step_bytes = f.pos("simple_step_mb") * 1e6;
  p.alltoall_bw_fraction = f.fraction("alltoall_bw_fraction");
  const auto nonneg_us = [&f](std::string_view key) {
    const std::optional<double> v = f.opt_nonneg(key);
    if (!v) f.missing(key, "microseconds, >= 0");
    return *v * 1e-6;
  };
  p.p2p_latency_s = nonneg_us("p2p_us");
  p.p2p_channel_bytes_per_clock = f.opt_nonneg("p2p_channel_bytes_per_clock").value_or(0);
  p.nvls_latency_s = nonneg_us("nvls_us");
  p.nvls_hop_latency_s = nonneg_us("nvls_hop_us");
  p.nvlink_hop_scale = f.pos("nvlink_hop_scale");
  p.nccl_nvlink_ring_hop_s = per_protocol_us(f, "nccl_nvlink_ring_hop_us");
  p.nccl_nvlink_tree_hop_s = per_protocol_us(f, "nccl_nvlink_tree_hop_us");
  p.hop_scale_links = f.str_list("hop_scale_links");
  p.nvlink_bw_efficiency = f.fraction("nvlink_bw_efficiency");
  p.bw_efficiency_links = f.str_list("bw_efficiency_links");
  p.transport_base_latency_s = f.opt_nonneg("transport_base_us").value_or(0) * 1e-6;
  p.base_fitted_transports = f.str_list("base_fitted_transports");
  p.transport_flush_latency_s = f.opt_nonneg("transport_flush_us").value_or(0) * 1e-6;
  p.transport_rendezvous_latency_s = f.opt_nonneg("transport_rendezvous_us").value_or(0) * 1e-6;
  p.message_fitted_transports = f.str_list("message_fitted_transports");
  f.finish();
  return p;
}

}  // namespace

const CollectiveLinkParams* CollectiveParams::find_link(std::string_view link_id, std::string_view family) const {
  const std::string id_key = normalize_name(link_id);
  const std::string family_key = normalize_name(family);
  const CollectiveLinkParams* by_family = nullptr;
  const CollectiveLinkParams* fallback = nullptr;
  for (const auto& l : links) {
    const std::string key = normalize_name(l.link);
    if (!id_key.empty() && key == id_key) return &l;
    if (!family_key.empty() && key == family_key && !by_family) by_family = &l;
    if (key == "default" && !fallback) fallback = &l;
  }
  return by_family ? by_family : fallback;
}

const CollectiveTransportParams* CollectiveParams::find_transport(std::string_view transport_id) const {
  const std::string key = normalize_name(transport_id);
  for (const auto& t : transports) {
    if (normalize_name(t.id) == key) return &t;
  }
  return nullptr;
}

const CollectiveTransportParams* CollectiveParams::transport_for_nic(std::string_view nic_id,
                                                                     std::string_view link_family) const {
  const std::string nic_key = normalize_name(nic_id);
  const std::string family_key = normalize_name(link_family);
  const CollectiveTransportParams* by_family = nullptr;
  for (const auto& t : transports) {
    for (const std::string& n : t.nics) {
      if (!nic_key.empty() && normalize_name(n) == nic_key) return &t;
    }
    if (!by_family && !family_key.empty() && normalize_name(t.link_family) == family_key) by_family = &t;
  }
  return by_family;
}

CollectiveParams parse_collective_params(Fields& top) {
  CollectiveParams c;
  c.id = top.str("id");
  c.aliases = top.str_list("aliases");
  c.name = top.str("name");
  c.notes = top.opt_str("notes").value_or("");
  c.provenance = top.file_provenance();

  Fields lat = top.sub("latency");
  c.latency_provenance = lat.provenance(c.provenance);
  c.ring_base_latency_s = per_protocol_us(lat, "ring_base_us");
  c.tree_base_latency_s = per_protocol_us(lat, "tree_base_us");
  c.net_ring_simple_latency_factor = lat.opt_pos("net_ring_simple_factor").value_or(1.0);
  c.nvls_latency_s = lat.opt_nonneg("nvls_us").value_or(0) * 1e-6;
  c.nvls_hop_latency_s = lat.opt_nonneg("nvls_hop_us").value_or(0) * 1e-6;
  c.p2p_latency_s = lat.opt_nonneg("p2p_us").value_or(0) * 1e-6;
  c.net_step_overhead_s = lat.opt_nonneg("net_step_overhead_us").value_or(0) * 1e-6;
  lat.finish();

  Fields proto = top.sub("protocols");
  c.protocol_provenance = proto.provenance(c.provenance);
  c.ll_bw_fraction = proto.fraction("ll_bw_fraction");
  c.ll128_bw_fraction = proto.fraction("ll128_bw_fraction");
  c.tree_bw_fraction = {c.ll_bw_fraction, c.ll128_bw_fraction, 1.0};
  if (proto.has("tree_bw_fraction")) {
    const std::vector<double> values = proto.num_list("tree_bw_fraction");
    if (values.size() != 3) {
      proto.fail("tree_bw_fraction", fmt::format("expected 3 values [LL, LL128, Simple], got {}", values.size()));
    }
    for (int i = 0; i < kProtocolCount; ++i) {
      if (!(values[i] > 0 && values[i] <= 1)) proto.fail("tree_bw_fraction", "every fraction must be in (0, 1]");
      c.tree_bw_fraction[i] = values[i];
    }
  }
  c.simple_step_bytes = proto.opt_nonneg("simple_step_mb").value_or(0) * 1e6;
  c.alltoall_bw_fraction = proto.fraction("alltoall_bw_fraction");
  c.p2p_channel_bytes_per_clock = proto.opt_nonneg("p2p_channel_bytes_per_clock").value_or(0);
  const std::int64_t nvls_min = proto.opt_integer("nvls_min_gpus").value_or(2);
  if (nvls_min < 2 || nvls_min > 1'000'000) proto.fail("nvls_min_gpus", "must be between 2 and 1,000,000");
  c.nvls_min_gpus = static_cast<int>(nvls_min);
  for (auto [key, field] :
       {std::pair{"net_channels", &c.net_channels}, std::pair{"nvls_tree_heads", &c.nvls_tree_heads},
        std::pair{"tree_channels", &c.tree_channels}}) {
    const std::int64_t v = proto.opt_integer(key).value_or(0);
    if (v < 0 || v > 1'000'000) proto.fail(key, "must be between 0 (every NIC) and 1,000,000 channels");
    *field = static_cast<int>(v);
  }
  // NVLS_TREE's chunk rule (cost/collective_nvls_tree.h), in KiB as NCCL's environment gives them.
  c.nvls_chunk_bytes = proto.opt_nonneg("nvls_chunk_kib").value_or(0) * 1024;
  c.nvls_tree_max_chunk_bytes = proto.opt_nonneg("nvls_tree_max_chunk_kib").value_or(0) * 1024;
  const std::int64_t min_domains = proto.opt_integer("nvls_tree_max_chunk_min_domains").value_or(0);
  if (min_domains < 0 || min_domains > 1'000'000) {
    proto.fail("nvls_tree_max_chunk_min_domains", "must be between 0 (never) and 1,000,000 domains (NCCL: 4 nodes)");
  }
  c.nvls_tree_max_chunk_min_domains = static_cast<int>(min_domains);
  if (c.nvls_tree_max_chunk_bytes > 0 && c.nvls_tree_max_chunk_min_domains == 0) {
    proto.missing("nvls_tree_max_chunk_min_domains",
                  "the domain count from which NCCL caps NVLS_TREE's chunk (NCCL: 4)");
  }
  const std::int64_t ll_channels = proto.opt_integer("ll_channels").value_or(0);
  if (ll_channels < 0 || ll_channels > 1'000'000) {
    proto.fail("ll_channels", "must be between 0 (no small-message narrowing) and 1,000,000 channels");
  }
  c.ll_channels = static_cast<int>(ll_channels);
  c.ll_channel_fill_bytes_per_rank = proto.opt_nonneg("ll_channel_fill_bytes_per_rank").value_or(0);
  if (c.ll_channels > 0 && !(c.ll_channel_fill_bytes_per_rank > 0)) {
    proto.fail("ll_channel_fill_bytes_per_rank",
               "must be positive when ll_channels is set (NCCL: 512 threads x 8 B = 4096)");
  }
  proto.finish();

  if (std::optional<Fields> host = top.opt_sub("host_pcie_ring")) {
    c.host_pcie_provenance = host->provenance(c.provenance);
    const std::int64_t first = host->integer("first_generation");
    if (first < 1 || first > 100) host->fail("first_generation", "must be a PCIe generation between 1 and 100");
    c.host_pcie_first_generation = static_cast<int>(first);
    for (double gb : host->num_list("bw_gb_per_s")) {
      if (!(gb > 0)) host->fail("bw_gb_per_s", "every rate must be positive (GB/s, one direction)");
      c.host_pcie_bw_bytes_per_s.push_back(gb * 1e9);
    }
    if (c.host_pcie_bw_bytes_per_s.empty()) host->missing("bw_gb_per_s", "a list of GB/s, one per PCIe generation");
    const std::optional<double> hop = host->opt_nonneg("hop_us");
    if (!hop) host->missing("hop_us", "microseconds per ring hop through the host");
    c.host_pcie_hop_latency_s = *hop / 1e6;  // not * 1e-6: 10 / 1e6 is the double 10e-6 exactly
    host->finish();
  }

  if (std::optional<Fields> pri = top.opt_sub("priors")) c.priors = parse_fit_priors(*pri, c.provenance);

  for (Fields& f : top.table_array("link")) c.links.push_back(parse_link_params(f, c.provenance));
  for (Fields& f : top.table_array("transport")) {
    CollectiveTransportParams t = parse_transport_params(f, c.provenance);
    if (c.find_transport(t.id)) top.fail("transport", fmt::format("two [[transport]] tables have id '{}'", t.id));
    c.transports.push_back(std::move(t));
  }
  if (c.links.empty()) top.missing("link", "at least one [[link]] table");
  bool has_default = false;
  for (const auto& l : c.links) has_default = has_default || normalize_name(l.link) == "default";
  if (!has_default) top.fail("link", "one [[link]] table must have link = \"default\" (used for unknown links)");
  for (const auto& [key, names] : {std::pair{"hop_scale_links", &c.priors.hop_scale_links},
                                   std::pair{"bw_efficiency_links", &c.priors.bw_efficiency_links}}) {
    for (const std::string& name : *names) {
      const bool found = std::any_of(c.links.begin(), c.links.end(), [&](const CollectiveLinkParams& l) {
        return normalize_name(l.link) == normalize_name(name);
      });
      if (!found) {
        top.fail("priors", fmt::format("{} names link '{}', which has no [[link]] table in this file; add one or drop "
                                       "the name",
                                       key, name));
      }
    }
  }
  for (const auto& [key, names] : {std::pair{"base_fitted_transports", &c.priors.base_fitted_transports},
                                   std::pair{"message_fitted_transports", &c.priors.message_fitted_transports}}) {
    for (const std::string& name : *names) {
      if (!c.find_transport(name)) {
        top.fail("priors", fmt::format("{} names transport '{}', which has no [[transport]] table in this file; add one "
                                       "or drop the name",
                                       key, name));
      }
    }
  }
  return c;
}

double CollectiveParams::host_pcie_bw(int gen) const {
  if (host_pcie_bw_bytes_per_s.empty()) return 0;
  const int last = static_cast<int>(host_pcie_bw_bytes_per_s.size()) - 1;
  const int idx = std::clamp(gen - host_pcie_first_generation, 0, last);
  return host_pcie_bw_bytes_per_s[static_cast<std::size_t>(idx)];
}

CollectiveParams ideal_collective_params() {
  CollectiveParams c;
  c.id = "ideal";
  c.name = "Idealised: line rate, no latency, every protocol at full rate";
  c.provenance.source = "seed 004 (shared/seeds/004_97caa601c296245a.txt): T = max_i(bytes * N_i / W_i)";
  c.provenance.file = "<built-in>";
  c.nvls_min_gpus = 2;
  CollectiveLinkParams any;
  any.link = "default";
  any.reduction_bw_efficiency = 1.0;
  any.provenance = c.provenance;
  c.links.push_back(any);
  c.latency_provenance = c.provenance;
  c.protocol_provenance = c.provenance;
  return c;
}

}  // namespace gpuplan
