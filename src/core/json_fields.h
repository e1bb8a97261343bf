// Strict reading of hand-written JSON input files (a sweep spec): duplicate keys, keys nobody
// asked for, missing keys and wrong types are errors naming the file, the key path and the fix.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpuplan {

// Nesting deeper than this is refused before parsing: real inputs nest under 10 deep, and a
// hostile file nested 100,000 deep would otherwise exhaust the stack in recursive code.
inline constexpr int kMaxJsonDepth = 64;

// Throws Error("file: arrays and objects nest deeper than 64 ...") when `text` (JSON) nests
// deeper than `max_depth`; a linear scan that skips strings, run before any parser.
void check_json_depth(std::string_view text, const std::string& file, int max_depth = kMaxJsonDepth);

// Parses `text` as JSON; throws Error("file: ...") on a syntax error, nesting deeper than
// kMaxJsonDepth or a key repeated in one object (nlohmann would silently keep the last one).
nlohmann::json parse_json_strict(std::string_view text, const std::string& file);

// One JSON object whose keys must all be in `known`. Accessors of required keys throw when the
// key is missing; `has` tells whether an optional one is present.
class JsonObjectReader {
 public:
  // `path` is the object's key path inside the file ("" for the top level, "search", ...).
  JsonObjectReader(const nlohmann::json& object, std::string file, std::string path,
                   std::initializer_list<const char*> known);

  bool has(const char* key) const;
  const nlohmann::json& at(const char* key) const;

  std::string text(const char* key) const;     // a non-empty string
  int positive_int(const char* key) const;     // a whole number >= 1
  double non_negative(const char* key) const;  // a finite number >= 0
  bool boolean(const char* key) const;
  std::vector<std::string> text_list(const char* key) const;  // non-empty array of non-empty strings
  std::vector<int> positive_int_list(const char* key) const;  // non-empty array of whole numbers >= 1
  JsonObjectReader object(const char* key, std::initializer_list<const char*> known) const;

  // "file: path.key: message"; `key` may be "" for the object itself, or "key[3]".
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  std::string key_path(std::string_view key) const;
  const std::string& file() const { return file_; }

 private:
  const nlohmann::json& object_;
  std::string file_;
  std::string path_;
};

}  // namespace gpuplan
