// core/input_file.h: the one safe way to read a user-named file, and the UTF-8 check.
#include "core/input_file.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "core/error.h"
#include "test_util.h"

namespace gpuplan {
namespace {

std::string input_file_error(const std::string& path, std::size_t cap = kMaxInputFileBytes) {
  try {
    read_input_file(path, "--thing", cap);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Utf8Check, AcceptsWellFormedText) {
  EXPECT_FALSE(first_invalid_utf8(""));
  EXPECT_FALSE(first_invalid_utf8("plain ascii"));
  EXPECT_FALSE(first_invalid_utf8("\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));  // été € 😀
  EXPECT_FALSE(first_invalid_utf8("\xF4\x8F\xBF\xBF"));                               // U+10FFFF
}

TEST(Utf8Check, NamesTheFirstBadByte) {
  EXPECT_EQ(first_invalid_utf8("ab\xFF"), 2u);
  EXPECT_EQ(first_invalid_utf8("\x80"), 0u);              // a lone continuation byte
  EXPECT_EQ(first_invalid_utf8("x\xC0\x80"), 1u);         // overlong NUL
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0u);      // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xED\xA0\x80"), 0u);      // a UTF-16 surrogate
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("ok\xE2\x82"), 2u);        // truncated at the end
  EXPECT_EQ(first_invalid_utf8("\xC3\xA9\xC3("), 2u);     // a continuation byte missing
}

TEST(Utf8Check, MessageNamesOffsetAndByte) {
  try {
    require_utf8("abc\xFE", "--model");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--model: byte offset 3 (0xFE) is not UTF-8; give UTF-8 text");
  }
}

TEST(InputFile, ReadsARegularFile) {
  const auto dir = testing::scratch_dir("input-file");
  testing::write_file(dir / "a.txt", "hello\n");
  EXPECT_EQ(read_input_file((dir / "a.txt").string(), "--thing"), "hello\n");
  testing::write_file(dir / "empty.txt", "");
  EXPECT_EQ(read_input_file((dir / "empty.txt").string(), "--thing"), "");
}

TEST(InputFile, RefusesWhatIsNotARegularFile) {
  const auto dir = testing::scratch_dir("input-file-kinds");
  EXPECT_NE(input_file_error((dir / "missing").string()).find("no such file"), std::string::npos);
  EXPECT_NE(input_file_error(dir.string()).find("is a directory; give a regular file"), std::string::npos);
  EXPECT_NE(input_file_error("/dev/zero").find("'/dev/zero': is a character device"), std::string::npos);
  // A FIFO with no writer: opening it for reading would block for ever; it is refused at once.
  const std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(input_file_error(fifo).find("is a FIFO (named pipe)"), std::string::npos);
}

TEST(InputFile, CapsTheSizeAndChecksUtf8) {
  const auto dir = testing::scratch_dir("input-file-cap");
  testing::write_file(dir / "big.txt", std::string(5000, 'x'));
  const std::string big = input_file_error((dir / "big.txt").string(), 4096);
  EXPECT_NE(big.find("5000 bytes or more"), std::string::npos) << big;
  testing::write_file(dir / "latin1.txt", "caf\xE9\n");
  const std::string bad = input_file_error((dir / "latin1.txt").string());
  EXPECT_NE(bad.find("latin1.txt': byte offset 3 (0xE9) is not UTF-8"), std::string::npos) << bad;
  EXPECT_EQ(read_input_file((dir / "latin1.txt").string(), "--thing", kMaxInputFileBytes, /*utf8=*/false),
            "caf\xE9\n");
}

}  // namespace
}  // namespace gpuplan
