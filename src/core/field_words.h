// Library errors name a field the way the CLI does ("--seq-len 0: at least 1"); the field
// tables (core/field_spec.h) say how the other interfaces name it. word_fields rewrites a
// message for one interface: every "--FLAG" that is a field of the table becomes the field's
// word (Python: the keyword, seq_len; HTTP: the JSON key, seq_len, no_tp_overlap), and every
// other word, "--json" included, stays as it is. The CLI needs no rewriting: its words are the
// library's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/field_spec.h"

namespace gpuplan {

enum class FieldWording { cli, python, http };

template <class Request>
std::string field_word(const FieldSpec<Request>& f, FieldWording wording) {
  switch (wording) {
    case FieldWording::cli:
      return "--" + field_flag(f);
    case FieldWording::python:
      return std::string(f.name);
    case FieldWording::http:
      return field_http_key(f);
  }
  return std::string(f.name);
}

// A flag ("seq-len", without "--") and the word an interface says for it.
struct FlagWord {
  std::string flag;
  std::string word;
};

template <class Request>
std::vector<FlagWord> field_words(const std::vector<FieldSpec<Request>>& fields, FieldWording wording) {
  std::vector<FlagWord> words;
  for (const FieldSpec<Request>& f : fields) {
    words.push_back({field_flag(f), field_word(f, wording)});
    // An alias is said the interface's way too (Python: the keyword; HTTP: the alias's own key).
    if (!f.alias.empty()) {
      words.push_back({std::string(f.alias), wording == FieldWording::http     ? field_http_alias(f)
                                             : wording == FieldWording::python ? std::string(f.name)
                                                                               : "--" + std::string(f.alias)});
    }
  }
  return words;
}

// `message` with each "--FLAG" found in `words` replaced by its word. A flag is "--" at the
// start of the message or after a character that cannot be part of one, then lower-case
// letters, digits and '-' (the longest such run: "--seq-len-x" is not "--seq-len").
inline std::string word_flags(std::string_view message, const std::vector<FlagWord>& words) {
  const auto flag_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; };
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    const bool starts = message.compare(i, 2, "--") == 0 &&
                        (i == 0 || !(flag_char(message[i - 1]) || (message[i - 1] >= 'A' && message[i - 1] <= 'Z') ||
                                     message[i - 1] == '_'));
    if (!starts) {
      out += message[i++];
      continue;
    }
    std::size_t end = i + 2;
    while (end < message.size() && flag_char(message[end])) ++end;
    const std::string_view flag = message.substr(i + 2, end - i - 2);
    const FlagWord* hit = nullptr;
    for (const FlagWord& w : words) {
      if (w.flag == flag) hit = &w;
    }
    out += hit ? std::string_view(hit->word) : message.substr(i, end - i);
    i = end;
  }
  return out;
}

template <class Request>
std::string word_fields(std::string_view message, const std::vector<FieldSpec<Request>>& fields, FieldWording wording) {
  if (wording == FieldWording::cli) return std::string(message);
  return word_flags(message, field_words(fields, wording));
}

}  // namespace gpuplan
