// The hostile-input suite, files and bytes (issue 34): every file a command reads, given a FIFO,
// a device, a directory, a file too deep or not UTF-8, and every argument given bytes that are
// not UTF-8. Each case runs in a forked child (guarded_run.h): no signal, no hang over 5 s, exit
// 2 with a message naming the path or the byte offset, and under --json exactly one JSON object.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "hostile/guarded_run.h"

namespace gpuplan {
namespace {

using testing::run_guarded;

struct HostileFileCase {
  std::vector<std::string> args;  // "@" stands for the hostile path
  std::string what;               // the command, for the failure message
};

// Every command that reads a user-named file, the file in the place of "@".
const HostileFileCase kFileReaders[] = {
    {{"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--calibration", "@"},
     "train --calibration"},
    {{"search", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "64", "--calibration",
      "@"},
     "search --calibration"},
    {{"gpu", "h100-sxm", "--calibration", "@"}, "gpu --calibration"},
    {{"sweep", "@"}, "sweep SPEC"},
    {{"import-topology", "@", "--gpu", "h200-sxm"}, "import-topology FILE"},
    {{"validate", "training", "@"}, "validate training FILE"},
    {{"validate", "inference", "@"}, "validate inference FILE"},
    {{"validate", "collectives", "@"}, "validate collectives FILE"},
    {{"validate", "calibration", "@"}, "validate calibration FILE"},
    {{"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--from", "@"}, "train --from"},
    {{"model", "@.json"}, "model CONFIG"},
    {{"--catalog", "@", "gpus"}, "--catalog"},
};

// `path` for "@" ("@.json" keeps its suffix, for the config.json reader).
std::vector<std::string> with_path(const std::vector<std::string>& args, const std::string& path) {
  std::vector<std::string> out;
  for (const std::string& a : args) out.push_back(a == "@" ? path : a == "@.json" ? path : a);
  return out;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) s += a + " ";
  return s;
}

// Exit 2, the message names `says`; under --json one JSON object on stdout and nothing else.
void expect_refused(const std::vector<std::string>& args, const std::vector<std::string>& says) {
  for (const bool as_json : {false, true}) {
    std::vector<std::string> a = args;
    if (as_json) a.emplace_back("--json");
    const testing::GuardedResult r = run_guarded(a);
    const std::string cmd = command_line(a);
    ASSERT_FALSE(r.hung) << cmd << ": still running after 5 s";
    ASSERT_EQ(r.signal, 0) << cmd << ": killed by signal " << r.signal;
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.out << r.err;
    const std::string message = as_json ? r.out : r.err;
    for (const std::string& s : says) EXPECT_NE(message.find(s), std::string::npos) << cmd << "\n" << message;
    if (as_json) {
      EXPECT_EQ(testing::not_one_json_object(r.out), "") << cmd << "\n" << r.out;
      EXPECT_TRUE(r.err.empty()) << cmd << "\n" << r.err;
    }
  }
}

class HostileFiles : public ::testing::TestWithParam<HostileFileCase> {};

TEST_P(HostileFiles, DeviceIsRefusedNamingThePath) {
  expect_refused(with_path(GetParam().args, "/dev/zero"), {"/dev/zero", "character device"});
}

TEST_P(HostileFiles, FifoIsRefusedWithoutBlocking) {
  const auto dir = testing::scratch_dir("hostile-fifo");
  const std::string fifo = (dir / "pipe.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_refused(with_path(GetParam().args, fifo), {fifo, "FIFO"});
}

TEST_P(HostileFiles, DirectoryIsRefusedNamingThePath) {
  // --catalog takes a directory of TOML files by design; every other reader takes one file.
  if (GetParam().args.front() == "--catalog") GTEST_SKIP() << "--catalog reads a directory's *.toml";
  const auto dir = testing::scratch_dir("hostile-dir.json");
  expect_refused(with_path(GetParam().args, dir.string()), {dir.string()});
}

TEST_P(HostileFiles, BytesThatAreNotUtf8AreRefusedNamingTheOffset) {
  const auto dir = testing::scratch_dir("hostile-latin1");
  const auto file = testing::write_file(dir / "latin1.json", "{\"caf\xE9\": 1}\n");
  expect_refused(with_path(GetParam().args, file.string()), {"byte offset 5 (0xE9) is not UTF-8"});
}

TEST_P(HostileFiles, DeepNestingIsRefusedNotACrash) {
  const auto dir = testing::scratch_dir("hostile-deep");
  const auto file = testing::write_file(dir / "deep.json", std::string(100000, '[') + std::string(100000, ']'));
  const testing::GuardedResult r = run_guarded(with_path(GetParam().args, file.string()));
  ASSERT_FALSE(r.hung);
  ASSERT_EQ(r.signal, 0);
  EXPECT_EQ(r.code, 2) << r.err;
}

INSTANTIATE_TEST_SUITE_P(EveryReader, HostileFiles, ::testing::ValuesIn(kFileReaders),
                         [](const ::testing::TestParamInfo<HostileFileCase>& param_info) {
                           std::string name;
                           for (char c : param_info.param.what) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// The spec nested 100,000 deep that used to overflow the stack: refused naming the limit.
TEST(HostileFiles, DeepSweepSpecNamesTheLimit) {
  const auto dir = testing::scratch_dir("hostile-deep-spec");
  std::string spec = "{\"a\": ";
  for (int i = 0; i < 100000; ++i) spec += "{\"a\": ";
  spec += "1" + std::string(100001, '}');
  const auto file = testing::write_file(dir / "spec.json", spec);
  expect_refused({"sweep", file.string()}, {"nest deeper than 64"});
}

// An argument that is not UTF-8, for every command: exit 2 naming the argument and the offset;
// under --json the error is one JSON object (it used to abort in the JSON writer).
struct HostileArgCase {
  std::vector<std::string> args;
  std::string says;
};

const HostileArgCase kNonUtf8Args[] = {
    {{"train", "--model", "llama\xFF"}, "argument 3 (the value of --model): byte offset 5 (0xFF)"},
    {{"train", "--model", "llama3.1-8b", "--gpu", "h100\xC0\x80"}, "(the value of --gpu): byte offset 4 (0xC0)"},
    {{"search", "--model", "llama3.1-8b", "--gpus", "8", "--framework", "\xE9"}, "(the value of --framework)"},
    {{"infer", "--model", "llama3.1-8b\xFE"}, "(the value of --model): byte offset 11 (0xFE)"},
    {{"infer-search", "--model", "llama3.1-8b", "--gpu", "\x80"}, "(the value of --gpu): byte offset 0"},
    {{"gpu", "h100\xFF"}, "argument 2: byte offset 4 (0xFF)"},
    {{"gpus", "--vendor", "nv\xFFidia"}, "(the value of --vendor): byte offset 2"},
    {{"compare", "h100-sxm", "h200\xED\xA0\x80"}, "argument 3: byte offset 4 (0xED)"},
    {{"model", "llama\xFF"}, "argument 2: byte offset 5"},
    {{"models", "--family", "\xFF"}, "(the value of --family)"},
    {{"system", "dgx\xFF"}, "argument 2: byte offset 3"},
    {{"systems", "--gpu", "\xFF"}, "(the value of --gpu)"},
    {{"clouds", "--provider", "aws\xFF"}, "(the value of --provider)"},
    {{"memory", "--model", "\xFF"}, "(the value of --model)"},
    {{"recommend", "--model", "\xFF"}, "(the value of --model)"},
    {{"cost", "--model", "\xFF"}, "(the value of --model)"},
    {{"tco", "--gpu", "\xFF"}, "(the value of --gpu)"},
    {{"energy", "--gpu", "\xFF"}, "(the value of --gpu)"},
    {{"collective", "--op", "\xFF"}, "(the value of --op)"},
    {{"rooflines", "--gpu", "\xFF"}, "(the value of --gpu)"},
    {{"sweep", "spec\xFF.json"}, "argument 2: byte offset 4"},
    {{"import-topology", "topo\xFF.txt"}, "argument 2: byte offset 4"},
    {{"validate", "training", "runs\xFF.csv"}, "argument 3: byte offset 4"},
    {{"\xFFtrain"}, "argument 1: byte offset 0"},
    {{"train", "--mod\xFF"}, "argument 2 (an option name): byte offset 5"},
};

TEST(HostileArgs, NonUtf8ArgumentsExitTwoNamingTheOffset) {
  for (const HostileArgCase& c : kNonUtf8Args) {
    expect_refused(c.args, {"is not UTF-8", c.says});
  }
}

}  // namespace
}  // namespace gpuplan
