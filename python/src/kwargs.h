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

// A str or an os.PathLike as text; nullopt otherwise.
std::optional<std::string> as_text(const pybind11::handle& value);
// The same, or Error "FUNCTION(VALUE): expected a path".
std::string path_arg(const pybind11::handle& value, const char* function);

}  // namespace gpuplan::py
