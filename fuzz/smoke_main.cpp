// The fuzz targets' smoke mode (issue 34), for ctest on any compiler: each target's
// LLVMFuzzerTestOneInput, renamed per file at compile time (fuzz/CMakeLists.txt, tests/
// CMakeLists.txt), is fed its seed files and then mutations of them from a fixed-seed generator
// (bit flips, truncations, repeated and inserted bytes, bytes that are not UTF-8, deep nesting)
// for a few seconds. Any exception that escapes a target, a crash or a hang fails the test; the
// real fuzzing is libFuzzer's (`cmake --preset fuzz`).
//
//   fuzz_smoke TARGET SECONDS [SEED_FILE_OR_DIR...]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define GPUPLAN_FUZZ_TARGET(name) extern "C" int name(const std::uint8_t* data, std::size_t size);
GPUPLAN_FUZZ_TARGET(fuzz_api)
GPUPLAN_FUZZ_TARGET(fuzz_catalog)
GPUPLAN_FUZZ_TARGET(fuzz_disagg_ratio)
GPUPLAN_FUZZ_TARGET(fuzz_json_inputs)
GPUPLAN_FUZZ_TARGET(fuzz_megatron_args)
GPUPLAN_FUZZ_TARGET(fuzz_nemo_overrides)
GPUPLAN_FUZZ_TARGET(fuzz_nccl_tests_log)
GPUPLAN_FUZZ_TARGET(fuzz_nccl_topo_xml)
GPUPLAN_FUZZ_TARGET(fuzz_nvidia_smi_topo)
GPUPLAN_FUZZ_TARGET(fuzz_torchtitan_toml)
GPUPLAN_FUZZ_TARGET(fuzz_sim_lengths_csv)
#undef GPUPLAN_FUZZ_TARGET

namespace {

using FuzzTarget = int (*)(const std::uint8_t*, std::size_t);

struct NamedTarget {
  const char* name;
  FuzzTarget fn;
};

const NamedTarget kSmokeTargets[] = {
    {"api", fuzz_api},
    {"catalog", fuzz_catalog},
    {"disagg_ratio", fuzz_disagg_ratio},
    {"json_inputs", fuzz_json_inputs},
    {"megatron_args", fuzz_megatron_args},
    {"nemo_overrides", fuzz_nemo_overrides},
    {"nccl_tests_log", fuzz_nccl_tests_log},
    {"nccl_topo_xml", fuzz_nccl_topo_xml},
    {"nvidia_smi_topo", fuzz_nvidia_smi_topo},
    {"torchtitan_toml", fuzz_torchtitan_toml},
    {"sim_lengths_csv", fuzz_sim_lengths_csv},
};

std::string smoke_read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str().substr(0, 1 << 20);
}

// One mutation of `in`.
std::string smoke_mutate(const std::string& in, std::mt19937_64& rng) {
  std::string s = in;
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n); };
  switch (rng() % 9) {
    case 0:  // flip a bit
      if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 << (rng() % 8));
      break;
    case 1:  // truncate
      s.resize(pick(s.size() + 1));
      break;
    case 2:  // a byte that is not UTF-8
      s.insert(pick(s.size() + 1), 1, static_cast<char>(0x80 + rng() % 0x80));
      break;
    case 3:  // repeat a slice
      if (!s.empty()) {
        const std::size_t a = pick(s.size());
        const std::size_t n = std::min<std::size_t>(pick(64) + 1, s.size() - a);
        s.insert(a, s.substr(a, n));
      }
      break;
    case 4:  // deep nesting of the characters the parsers nest on
      s.insert(pick(s.size() + 1), std::string(pick(5000) + 1, "[{<"[rng() % 3]));
      break;
    case 5:  // a huge or odd number
      s.insert(pick(s.size() + 1), std::vector<const char*>{"1e999", "-1", "nan", "inf", "9223372036854775808", "0",
                                                            "-0", "1e-999", "4294967296"}[rng() % 9]);
      break;
    case 6:  // delete a slice
      if (!s.empty()) {
        const std::size_t a = pick(s.size());
        s.erase(a, pick(64) + 1);
      }
      break;
    case 7:  // a random byte anywhere
      s.insert(pick(s.size() + 1), 1, static_cast<char>(rng() % 256));
      break;
    default:  // a NUL
      s.insert(pick(s.size() + 1), 1, '\0');
      break;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_smoke TARGET SECONDS [SEED_FILE_OR_DIR...]\n");
    return 2;
  }
  FuzzTarget target = nullptr;
  for (const NamedTarget& t : kSmokeTargets) {
    if (std::strcmp(argv[1], t.name) == 0) target = t.fn;
  }
  if (target == nullptr) {
    std::fprintf(stderr, "fuzz_smoke: unknown target '%s'\n", argv[1]);
    return 2;
  }
  const double seconds = std::atof(argv[2]);
  std::vector<std::string> seeds{"", "\xff", std::string(100000, '[')};
  for (int i = 3; i < argc; ++i) {
    const std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p)) {
        if (e.is_regular_file()) seeds.push_back(smoke_read(e.path()));
      }
    } else if (std::filesystem::is_regular_file(p)) {
      seeds.push_back(smoke_read(p));
    }
  }
  std::mt19937_64 rng(20261126);
  long runs = 0;
  const auto run_one = [&](const std::string& input) {
    try {
      target(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_smoke %s: an exception escaped the target: %s\ninput (%zu bytes): %.200s\n", argv[1],
                   e.what(), input.size(), input.c_str());
      std::exit(1);
    }
    ++runs;
  };
  for (const std::string& s : seeds) {
    // The first byte picks the parser in some targets: each seed under a few selectors too.
    run_one(s);
    for (char sel = 0; sel < 4; ++sel) run_one(std::string(1, sel) + s);
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    std::string s = seeds[static_cast<std::size_t>(rng() % seeds.size())];
    const int rounds = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < rounds; ++k) s = smoke_mutate(s, rng);
    run_one(s);
  }
  std::printf("fuzz_smoke %s: %ld inputs in %.1f s, no crash and no exception but gpuplan::Error\n", argv[1], runs,
              seconds);
  return 0;
}
