// Helpers for the tests that load a catalog file written in the test, often a valid one edited
// into a bad one.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"

namespace gpuplan::testing {

// The message of the Error that loading `text` as the data file `file` throws ("" when it loads).
inline std::string catalog_error(const std::string& text, const std::string& file = "test.toml") {
  Catalog c;
  try {
    load_catalog_text(c, text, file, false);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// `text` with its first `from` replaced by `to`; fails the test when `from` is not there.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

}  // namespace gpuplan::testing
