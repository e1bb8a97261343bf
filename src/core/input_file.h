// The one way gpuplan reads a user-named file: only regular files, at most a size cap, never a
// blocking open (a FIFO, a device such as /dev/zero or a directory is refused with exit 2 naming
// the path), and the text must be UTF-8 (the first bad byte's offset is named). Every command's
// file reads go through here, so one rule covers the CLI, the web API and Python.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan {

// 64 MiB: the largest real input (a profile, a CSV of runs, a topology dump) is under 1 MiB.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;

// The file's bytes. `what` names the input in messages ("--calibration", "the sweep spec").
// Throws Error when the path is missing, not a regular file, larger than `max_bytes`, or (with
// `utf8`) not UTF-8.
std::string read_input_file(const std::string& path, std::string_view what,
                            std::size_t max_bytes = kMaxInputFileBytes, bool utf8 = true);

// Whether `path` names a regular file (following links), without opening it.
bool is_regular_input_file(const std::string& path);

// The offset of the first byte that does not start or continue a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included); nullopt when all is well.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// Throws Error("WHAT: byte offset N (0xFF) is not UTF-8; ...") when `text` is not UTF-8.
void require_utf8(std::string_view text, std::string_view what);

}  // namespace gpuplan
