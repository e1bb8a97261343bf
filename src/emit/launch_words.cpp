#include "emit/launch_words.h"

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {

std::vector<std::pair<std::string, int>> launch_words(std::string_view text, const std::string& where,
                                                      const char* what) {
  std::vector<std::pair<std::string, int>> words;
  int line = 1;
  std::string cur;
  bool comment = false;
  auto flush = [&] {
    if (!cur.empty()) words.emplace_back(cur, line);
    cur.clear();
  };
  for (char ch : text) {
    if (ch == '\n') {
      flush();
      comment = false;
      ++line;
    } else if (comment) {
      continue;
    } else if (ch == '#' && cur.empty()) {
      comment = true;
    } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\\') {
      flush();
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      throw Error(fmt::format("{}:{}: a control character (0x{:02x}) in {}", where, line,
                              static_cast<unsigned>(static_cast<unsigned char>(ch)), what));
    } else {
      cur += ch;
    }
  }
  flush();
  return words;
}

}  // namespace gpuplan
