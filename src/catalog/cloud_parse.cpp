// Parser for `kind = "offers"` files (data/clouds/): a list of [[offer]] tables, each a dated
// instance price. File-level `provider`, `source` and `retrieved` apply to every offer unless
// the offer sets its own. Schema: docs/data-format.md.
#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "catalog/parsers.h"
#include "core/error.h"

namespace gpuplan {
namespace {

constexpr std::string_view kPricing[] = {"on-demand", "spot",           "reserved-1y", "reserved-3y",
                                         "reserved",  "capacity-block", "index"};

// "2026-01-21": four-digit year, real month and day (leap years included).
bool is_iso_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  auto num = [&](std::size_t at, std::size_t len) {
    int v = 0;
    for (std::size_t i = at; i < at + len; ++i) v = v * 10 + (s[i] - '0');
    return v;
  };
  const int year = num(0, 4);
  const int month = num(5, 2);
  const int day = num(8, 2);
  if (year < 1990 || month < 1 || month > 12 || day < 1) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return day <= days[month - 1];
}

std::string iso_date(Fields& f, std::string_view key) {
  std::string value = f.str(key);
  if (!is_iso_date(value)) {
    f.fail(key, fmt::format("'{}' is not an ISO date YYYY-MM-DD; when the source gives only a month or a "
                            "range, use its first day and set price_date_estimated = true",
                            value));
  }
  return value;
}

CloudOffer parse_offer(Fields& o, const Provenance& file_provenance, const std::string& file_provider,
                       int file_max_gpus, const std::string& file_max_gpus_source) {
  CloudOffer offer;
  offer.provider = o.opt_str("provider").value_or(file_provider);
  if (offer.provider.empty()) o.missing("provider", "provider name, here or at the top of the file");
  offer.instance = o.str("instance");
  offer.gpu = o.str("gpu");
  const auto gpus = o.opt_integer("gpu_count");
  if (!gpus) o.missing("gpu_count", "number of GPUs the price covers");
  if (*gpus < 1 || *gpus > 100'000) o.fail("gpu_count", "must be at least 1");
  offer.gpu_count = static_cast<int>(*gpus);
  offer.region = o.opt_str("region").value_or("");
  offer.pricing = o.str("pricing");
  bool known = false;
  for (auto p : kPricing) known = known || offer.pricing == p;
  if (!known) {
    o.fail("pricing", fmt::format("unknown pricing '{}'; use on-demand, spot, reserved-1y, reserved-3y, reserved "
                                  "(term not stated), capacity-block or index",
                                  offer.pricing));
  }

  // Either price may be given; the other is derived. Both must agree to the cent-ish.
  const auto per_hour = o.opt_pos("usd_per_hour");
  const auto per_gpu_hour = o.opt_pos("usd_per_gpu_hour");
  if (!per_hour && !per_gpu_hour) o.missing("usd_per_hour", "usd_per_hour and/or usd_per_gpu_hour");
  if (per_hour && per_gpu_hour) {
    const double derived = *per_hour / offer.gpu_count;
    if (std::fabs(derived - *per_gpu_hour) > std::max(0.005 * derived, 0.005)) {
      o.fail("usd_per_gpu_hour",
             fmt::format("{} disagrees with usd_per_hour / gpu_count = {:.4f}", *per_gpu_hour, derived));
    }
  }
  offer.usd_per_hour = per_hour ? *per_hour : *per_gpu_hour * offer.gpu_count;
  offer.usd_per_gpu_hour = per_gpu_hour ? *per_gpu_hour : *per_hour / offer.gpu_count;

  offer.price_date = iso_date(o, "price_date");
  offer.price_date_estimated = o.opt_boolean("price_date_estimated").value_or(false);
  offer.historical = o.opt_boolean("historical").value_or(false);
  offer.gpu_component_only = o.opt_boolean("gpu_component_only").value_or(false);
  offer.system = o.opt_str("system").value_or("");
  offer.max_gpus = file_max_gpus;
  offer.max_gpus_source = file_max_gpus_source;
  if (const auto max_gpus = o.opt_integer("max_gpus")) {
    if (*max_gpus < offer.gpu_count || *max_gpus > 10'000'000) {
      o.fail("max_gpus", fmt::format("must be at least gpu_count = {}", offer.gpu_count));
    }
    offer.max_gpus = static_cast<int>(*max_gpus);
    offer.max_gpus_source = o.opt_str("max_gpus_source").value_or("");
    if (offer.max_gpus_source.empty()) o.missing("max_gpus_source", "where max_gpus comes from");
  }
  if (offer.max_gpus > 0 && offer.max_gpus < offer.gpu_count) {
    o.fail("gpu_count", fmt::format("more than the file's max_gpus_per_offer = {}", offer.max_gpus));
  }
  offer.notes = o.opt_str("notes").value_or("");
  if (offer.price_date_estimated && offer.notes.empty()) {
    o.missing("notes", "an estimated price_date needs a note saying what the source gives");
  }
  offer.provenance = o.provenance(file_provenance);
  if (!is_iso_date(offer.provenance.retrieved)) o.fail("retrieved", "not an ISO date YYYY-MM-DD");
  o.finish();
  return offer;
}

}  // namespace

std::vector<CloudOffer> parse_offers(Fields& top) {
  Provenance file_provenance;
  file_provenance = top.file_provenance();
  const std::string provider = top.opt_str("provider").value_or("");
  top.opt_str("notes");  // file-level remarks, for the reader of the file
  // The provider's largest rentable unit, for every offer of the file (an offer may set its own).
  int max_gpus = 0;
  std::string max_gpus_source;
  if (const auto n = top.opt_integer("max_gpus_per_offer")) {
    if (*n < 1 || *n > 10'000'000) top.fail("max_gpus_per_offer", "must be at least 1");
    max_gpus = static_cast<int>(*n);
    max_gpus_source = top.opt_str("max_gpus_source").value_or("");
    if (max_gpus_source.empty()) top.missing("max_gpus_source", "where max_gpus_per_offer comes from");
  }
  auto tables = top.table_array("offer");
  if (tables.empty()) top.missing("offer", "at least one [[offer]] table");
  std::vector<CloudOffer> offers;
  for (auto& o : tables) offers.push_back(parse_offer(o, file_provenance, provider, max_gpus, max_gpus_source));
  return offers;
}

}  // namespace gpuplan
