// A request's field table (core/field_spec.h) as Python keywords: each field read by name into
// its member with the Kwargs conversions, and the required ones checked in Python's words.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "core/error.h"
#include "core/field_error.h"
#include "core/field_spec.h"
#include "core/field_words.h"
#include "kwargs.h"

namespace gpuplan::py {

template <class Request>
void read_fields(Kwargs& k, Request& request, const std::vector<FieldSpec<Request>>& fields) {
  for (const FieldSpec<Request>& f : fields) {
    const std::string name(f.name);
    std::visit([&](auto get) { k.get(name.c_str(), get(request)); }, f.ref);
  }
}

// "train(): model is required: a model id or alias (see gpuplan.models()), or a config.json path".
template <class Request>
void require_fields(const Kwargs& k, const char* function, const std::vector<FieldSpec<Request>>& fields) {
  for (const FieldSpec<Request>& f : fields) {
    if (!(f.traits & kRequired) || k.has(std::string(f.name).c_str())) continue;
    std::string message = std::string(function) + "(): " + std::string(f.name) + " is required";
    if (f.traits & kModelId) message += ": a model id or alias (see gpuplan.models()), or a config.json path";
    throw Error(message);
  }
}

// Runs a library call with its errors in Python's words: each "--flag" of `fields` in the
// message becomes the keyword (core/field_words.h), and a FieldError keeps its field
// (gpuplan.Error.field).
template <class Request, class Call>
auto in_python_words(const std::vector<FieldSpec<Request>>& fields, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const FieldError& e) {
    throw FieldError(e.field(), word_fields(e.what(), fields, FieldWording::python));
  } catch (const Error& e) {
    throw Error(word_fields(e.what(), fields, FieldWording::python));
  }
}

}  // namespace gpuplan::py
