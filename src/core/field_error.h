// Bad input about one field of a request (core/field_spec.h): an Error that also carries the
// field's name as its table writes it ("seq_len"), so that each interface can say it its own
// way (core/field_words.h): the CLI "--seq-len", Python the keyword seq_len, the web API the
// JSON key seq_len. The message itself is the library's, which names fields as the CLI does.
#pragma once

#include <string>
#include <utility>

#include "core/error.h"

namespace gpuplan {

class FieldError : public Error {
 public:
  FieldError(std::string field, const std::string& message) : Error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// The field an Error is about: FieldError's, "" for any other.
inline std::string error_field(const Error& e) {
  const auto* f = dynamic_cast<const FieldError*>(&e);
  return f ? f->field() : std::string();
}

}  // namespace gpuplan
