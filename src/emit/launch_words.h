// The words of a launch script or an argument list, as the Megatron-LM and NeMo readers see them:
// blanks and backslash continuations separate words, a word starting with `#` comments out the
// rest of its line, and a control character is an Error naming the file and the line.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuplan {

// Each word with its 1-based line; `what` names the file's kind in the error ("the argument list").
std::vector<std::pair<std::string, int>> launch_words(std::string_view text, const std::string& where,
                                                      const char* what);

}  // namespace gpuplan
