// The hostile-input suite, files and bytes (issue 34): every file a command reads, given a FIFO,
// a device, a directory, a file too deep or not UTF-8, and every argument given bytes that are
// not UTF-8. The cases run in a forked child (guarded_run.h): no signal, no hang over 5 s, exit
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

struct RefusedCase {
  std::vector<std::string> args;
  std::vector<std::string> says;
};

// Each call twice, as text and under --json, all in one guarded child (guarded_run.h): exit 2,
// the message names every `says`; under --json one JSON object on stdout and nothing else.
void expect_all_refused(const std::vector<RefusedCase>& cases) {
  std::vector<std::vector<std::string>> calls;
  for (const RefusedCase& c : cases) {
    calls.push_back(c.args);
    calls.push_back(c.args);
    calls.back().emplace_back("--json");
  }
  const std::vector<testing::GuardedResult> results = testing::run_guarded_each(calls);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const bool as_json = i % 2 == 1;
    const testing::GuardedResult& r = results[i];
    const std::string cmd = command_line(calls[i]);
    EXPECT_FALSE(r.hung) << cmd << ": still running after 5 s";
    EXPECT_EQ(r.signal, 0) << cmd << ": killed by signal " << r.signal;
    if (r.hung || r.signal != 0) continue;
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.out << r.err;
    const std::string message = as_json ? r.out : r.err;
    for (const std::string& s : cases[i / 2].says) {
      EXPECT_NE(message.find(s), std::string::npos) << cmd << "\n" << message;
    }
    if (as_json) {
      EXPECT_EQ(testing::not_one_json_object(r.out), "") << cmd << "\n" << r.out;
      EXPECT_TRUE(r.err.empty()) << cmd << "\n" << r.err;
    }
  }
}

void expect_refused(const std::vector<std::string>& args, const std::vector<std::string>& says) {
  expect_all_refused({{args, says}});
}

// Every reader given `path`, each call expected to be refused naming `says` (one child for all
// of them: guarded_run.h says why).
void expect_every_reader_refuses(const std::string& path, const std::vector<std::string>& says,
                                 bool catalog_too = true) {
  std::vector<RefusedCase> cases;
  for (const HostileFileCase& reader : kFileReaders) {
    if (!catalog_too && reader.args.front() == "--catalog") continue;
    cases.push_back({with_path(reader.args, path), says});
  }
  expect_all_refused(cases);
}

TEST(HostileFiles, DeviceIsRefusedNamingThePath) {
  expect_every_reader_refuses("/dev/zero", {"/dev/zero", "character device"});
}

TEST(HostileFiles, FifoIsRefusedWithoutBlocking) {
  const auto dir = testing::scratch_dir("hostile-fifo");
  const std::string fifo = (dir / "pipe.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_every_reader_refuses(fifo, {fifo, "FIFO"});
}

TEST(HostileFiles, DirectoryIsRefusedNamingThePath) {
  // --catalog takes a directory of TOML files by design; every other reader takes one file.
  const auto dir = testing::scratch_dir("hostile-dir.json");
  expect_every_reader_refuses(dir.string(), {dir.string()}, false);
}

TEST(HostileFiles, BytesThatAreNotUtf8AreRefusedNamingTheOffset) {
  const auto dir = testing::scratch_dir("hostile-latin1");
  const auto file = testing::write_file(dir / "latin1.json", "{\"caf\xE9\": 1}\n");
  expect_every_reader_refuses(file.string(), {"byte offset 5 (0xE9) is not UTF-8"});
}

TEST(HostileFiles, DeepNestingIsRefusedNotACrash) {
  const auto dir = testing::scratch_dir("hostile-deep");
  const auto file = testing::write_file(dir / "deep.json", std::string(100000, '[') + std::string(100000, ']'));
  std::vector<std::vector<std::string>> calls;
  for (const HostileFileCase& reader : kFileReaders) calls.push_back(with_path(reader.args, file.string()));
  const std::vector<testing::GuardedResult> results = testing::run_guarded_each(calls);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    EXPECT_FALSE(results[i].hung) << kFileReaders[i].what;
    EXPECT_EQ(results[i].signal, 0) << kFileReaders[i].what;
    EXPECT_EQ(results[i].code, 2) << kFileReaders[i].what << "\n" << results[i].err;
  }
}

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
  std::vector<RefusedCase> cases;
  for (const HostileArgCase& c : kNonUtf8Args) cases.push_back({c.args, {"is not UTF-8", c.says}});
  expect_all_refused(cases);
}

}  // namespace
}  // namespace gpuplan
