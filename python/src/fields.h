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
#include "common.h"
#include "kwargs.h"

namespace gpuplan::py {

template <class Request>
void read_fields(Kwargs& k, Request& request, const std::vector<FieldSpec<Request>>& fields) {
  for (const FieldSpec<Request>& f : fields) {
    const std::string name(f.name);
    std::visit([&](auto get) { k.get(name.c_str(), get(request)); }, f.ref);
  }
}

// "train(): model is required: a model id or alias (see gpuplan.models()), or a config.json path",
// a FieldError (gpuplan.Error.field is the keyword).
template <class Request>
void require_fields(const Kwargs& k, const char* function, const std::vector<FieldSpec<Request>>& fields) {
  for (const FieldSpec<Request>& f : fields) {
    if (!(f.traits & kRequired) || k.has(std::string(f.name).c_str())) continue;
    std::string message = std::string(function) + "(): " + std::string(f.name) + " is required";
    if (f.traits & kModelId) message += ": a model id or alias (see gpuplan.models()), or a config.json path";
    if (f.name == "gpu") message += ": a GPU id (see gpuplan.gpus())";
    throw FieldError(std::string(f.name), message);
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

// The same for a question without a field table: `words` from Kwargs::flag_words().
template <class Call>
auto in_python_words(const std::vector<FlagWord>& words, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const FieldError& e) {
    throw FieldError(e.field(), word_flags(e.what(), words));
  } catch (const Error& e) {
    throw Error(word_flags(e.what(), words));
  }
}

// A question whose keywords are its table's fields, start to end: the catalog= keyword split
// off, the rest read into `request` (strictly: unknown keywords and missing required ones are
// errors in Python's words), then `answer(catalog, request)` without the GIL, its errors in
// Python's words too. `request` may come with members that are not fields already set.
template <class Request, class Answer>
Result<Answer> ask_by_table(const char* function, pyb::dict& kwargs, const std::vector<FieldSpec<Request>>& fields,
                            Answer (*answer)(const Catalog&, const Request&), Request request = {}) {
  CatalogPtr catalog = take_catalog(kwargs);
  Kwargs k(function, kwargs);
  read_fields(k, request, fields);
  k.finish();
  require_fields(k, function, fields);
  pyb::gil_scoped_release release;
  return in_python_words(fields, [&] { return make_result(catalog, answer(*catalog, request)); });
}

}  // namespace gpuplan::py
