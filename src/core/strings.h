// Small string helpers: case folding, name normalisation and "did you mean" suggestions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

std::string to_lower(std::string_view text);

// Lower-cases and maps spaces and underscores to '-', so "H100 SXM" matches "h100-sxm".
std::string normalize_name(std::string_view name);

// Levenshtein distance between two strings.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates closest to `query` (by edit distance on normalised names, prefix and
// substring matches first), at most `limit` of them.
std::vector<std::string> nearest_names(std::string_view query, const std::vector<std::string>& candidates,
                                       std::size_t limit = 3);

// Only the plausible typos among `candidates`: a prefix or substring match, or a name within a
// third of its length in edits (at least 2: one transposition), closest first. For short,
// fixed lists (command names), where the three nearest of nearest_names may be far off.
std::vector<std::string> close_names(std::string_view query, const std::vector<std::string>& candidates,
                                     std::size_t limit = 3);

// "unknown GPU 'h10'; did you mean h100-sxm, h100-pcie?" (or the list of known names).
std::string unknown_name_message(std::string_view what, std::string_view query,
                                 const std::vector<std::string>& candidates);

std::string join(const std::vector<std::string>& parts, std::string_view separator);

}  // namespace gpuplan
