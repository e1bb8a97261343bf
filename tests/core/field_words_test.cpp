// Issue 33: library errors name fields as the CLI does; each interface says them its own way
// (core/field_words.h, core/field_error.h). The messages below are the library's own.
#include "core/field_words.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "catalog/catalog.h"
#include "core/field_error.h"
#include "plan/train_fields.h"
#include "plan/train_request.h"

namespace gpuplan {
namespace {

TEST(FieldWords, PythonSaysTheKeywordHttpTheKey) {
  const std::string message = "--global-batch 7: not a multiple of dp 8 × --micro-batch 1 = 8; use --global-batch 8";
  EXPECT_EQ(word_fields(message, train_fields(), FieldWording::python),
            "global_batch 7: not a multiple of dp 8 × micro_batch 1 = 8; use global_batch 8");
  EXPECT_EQ(word_fields(message, train_fields(), FieldWording::http),
            "global_batch 7: not a multiple of dp 8 × micro_batch 1 = 8; use global_batch 8");
  EXPECT_EQ(word_fields(message, train_fields(), FieldWording::cli), message);
}

TEST(FieldWords, NegatedSwitchIsTheKeywordInPythonAndTheFlagsKeyOverHttp) {
  // --no-tp-overlap: Python's keyword is tp_overlap (tp_overlap=False), the web API's key no_tp_overlap.
  const std::string message = "--no-tp-overlap: only with --tp above 1";
  EXPECT_EQ(word_fields(message, train_fields(), FieldWording::python), "tp_overlap: only with tp above 1");
  EXPECT_EQ(word_fields(message, train_fields(), FieldWording::http), "no_tp_overlap: only with tp above 1");
}

TEST(FieldWords, OnlyWholeFlagsOfTheTableChange) {
  // Not fields of train: --json, --rule-of-thumb; not whole flags: --tp-x, a--tp, x_--tp.
  const std::string message = "--json and --rule-of-thumb; --tp-x, a--tp, x_--tp, (--tp) --tp";
  EXPECT_EQ(word_fields(message, train_fields(), FieldWording::python),
            "--json and --rule-of-thumb; --tp-x, a--tp, x_--tp, (tp) tp");
  EXPECT_EQ(word_flags("a -- b", {}), "a -- b");
}

TEST(FieldWords, RangeChecksThrowFieldErrorsNamingTheField) {
  TrainRequest r;
  r.model = "llama3.1-8b";
  r.micro_batch = 0;
  try {
    answer_train(default_catalog(), r);
    FAIL() << "micro_batch 0 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(error_field(e), "micro_batch");
    EXPECT_EQ(std::string(e.what()).rfind("--micro-batch 0: must be at least 1", 0), 0U) << e.what();
  }
  r.micro_batch = 1;
  r.memory_headroom_gib = std::numeric_limits<double>::quiet_NaN();
  try {
    answer_train(default_catalog(), r);
    FAIL() << "a NaN headroom was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(error_field(e), "memory_headroom_gib");
    EXPECT_NE(std::string(e.what()).find("--memory-headroom-gib nan: not a finite number"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(error_field(Error("no field")), "");
}

}  // namespace
}  // namespace gpuplan
