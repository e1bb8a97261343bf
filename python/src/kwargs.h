// Keyword arguments → a request struct, strictly: each known keyword converted to the field's
// type (an int field takes an int, never a bool or a float), an unknown keyword is an Error
// naming it with the nearest known one, like the CLI's "did you mean". The values themselves
// are checked by the library, which names the CLI flag in its messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "core/field_words.h"

namespace gpuplan::py {

class Kwargs {
 public:
  // `function` names the call in messages ("train").
  Kwargs(std::string function, const pybind11::dict& kwargs);

  void get(const char* name, std::string& out);
  void get(const char* name, int& out);
  void get(const char* name, std::int64_t& out);
  void get(const char* name, double& out);
  void get(const char* name, bool& out);
  void get(const char* name, std::vector<int>& out);
  void get(const char* name, std::vector<std::string>& out);
  void get(const char* name, std::optional<int>& out);
  void get(const char* name, std::optional<double>& out);
  // A count typed as in the CLI ("100B", "1.5T") or as a number.
  void get_count(const char* name, double& out);
  // Whether `name` was given (and not None).
  bool has(const char* name) const;

  // Each keyword read so far as the CLI flag it stands for ("gpu-hours") and the keyword
  // ("gpu_hours"): a question without a field table says the library's flags in Python's words
  // with these (fields.h: in_python_words).
  std::vector<FlagWord> flag_words() const;

  // Throws Error for any keyword not read by get(): "train(): unknown keyword 'tpp'; did you
  // mean 'tp'? (keywords: ...)".
  void finish();

 private:
  pybind11::handle take(const char* name);
  [[noreturn]] void type_error(const char* name, const pybind11::handle& value, const char* expected) const;
  std::string function_;
  pybind11::dict kwargs_;
  std::vector<std::string> known_;
};

// A field the library reads as text that Python may also give as a number (tokens=100e9,
// bytes=4096): the number is replaced in `kwargs` by text the library reads back exactly
// ("100000000000"); a str stays as it is. `whole`: a fraction is an Error naming the keyword.
void number_as_text(pybind11::dict& kwargs, const char* function, const char* name, bool whole);

// A str or an os.PathLike as text; nullopt otherwise.
std::optional<std::string> as_text(const pybind11::handle& value);
// The same, or Error "FUNCTION(VALUE): expected a path".
std::string path_arg(const pybind11::handle& value, const char* function);

}  // namespace gpuplan::py
