#include "core/strings.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace gpuplan {

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string normalize_name(std::string_view name) {
  std::string out = to_lower(name);
  for (char& c : out) {
    if (c == ' ' || c == '_') c = '-';
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1);
  std::vector<std::size_t> cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> nearest_names(std::string_view query, const std::vector<std::string>& candidates,
                                       std::size_t limit) {
  const std::string q = normalize_name(query);
  struct Scored {
    std::size_t score;
    std::string name;
  };
  std::vector<Scored> scored;
  for (const auto& name : candidates) {
    const std::string n = normalize_name(name);
    std::size_t score = edit_distance(q, n) * 4;
    // A name that starts with or contains what was typed is a better guess than one a few
    // edits away: "h100" should suggest "h100-sxm" before "a100".
    if (!q.empty() && n.rfind(q, 0) == 0) {
      score = n.size() - q.size();
    } else if (!q.empty() && n.find(q) != std::string::npos) {
      score = 2 * (n.size() - q.size()) + 1;
    }
    scored.push_back({score, name});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& x, const Scored& y) { return x.score < y.score; });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (out.size() >= limit) break;
    if (std::find(out.begin(), out.end(), s.name) == out.end()) out.push_back(s.name);
  }
  return out;
}

std::vector<std::string> close_names(std::string_view query, const std::vector<std::string>& candidates,
                                     std::size_t limit) {
  const std::string q = normalize_name(query);
  std::vector<std::string> out;
  for (const auto& name : nearest_names(query, candidates, candidates.size())) {
    if (out.size() >= limit) break;
    const std::string n = normalize_name(name);
    const bool contains = !q.empty() && (n.find(q) != std::string::npos || q.find(n) != std::string::npos);
    if (contains || edit_distance(q, n) <= std::max<std::size_t>(2, n.size() / 3)) out.push_back(name);
  }
  return out;
}

std::string unknown_name_message(std::string_view what, std::string_view query,
                                 const std::vector<std::string>& candidates) {
  std::string msg = "unknown " + std::string(what) + " '" + std::string(query) + "'";
  const auto near = nearest_names(query, candidates, 3);
  if (!near.empty()) msg += "; did you mean " + join(near, ", ") + "?";
  return msg;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

}  // namespace gpuplan
