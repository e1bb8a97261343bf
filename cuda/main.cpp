// gpuplan-bench: measure this GPU and write a calibration profile (docs/calibration.md).
// Exit codes: 0 profile written, 2 bad input or a kernel gave a wrong result, 3 no CUDA device,
// 1 a CUDA error.
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibration/measure.h"
#include "catalog/catalog.h"
#include "core/error.h"
#include "cuda_device.h"

namespace {

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuplan;
  CLI::App app{"gpuplan-bench: measure this GPU (HBM bandwidth, WMMA and cuBLASLt GEMM) into a calibration profile"};
  std::string gpu_id;
  std::string out_path;
  int device = 0;
  bool quick = false;
  app.add_option("--gpu", gpu_id, "Catalog id of this GPU (see 'gpuplan gpus'), e.g. h100-sxm")->required();
  app.add_option("--out", out_path, "Write the profile here (default: print it)");
  app.add_option("--device", device, "CUDA device ordinal (default 0)");
  app.add_flag("--quick", quick, "A seconds-long subset of the sweep (smoke test)");
  CLI11_PARSE(app, argc, argv);

  std::string command = "gpuplan-bench";
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) command += std::string(" ") + argv[arg_idx];
  try {
    const int devices = cuda::cuda_device_count();
    if (devices == 0) {
      std::cerr << "gpuplan-bench: no CUDA device\n";
      return 3;
    }
    if (device < 0 || device >= devices) throw Error(fmt::format("--device {}: this machine has {}", device, devices));
    CatalogOptions options;
    const Catalog catalog = load_catalog(options);
    const Gpu& gpu = catalog.gpu(gpu_id);  // an unknown id fails here, before minutes of measuring
    CalibrationProfile header;
    header.gpu_id = gpu.id;
    header.tool = "gpuplan-bench 0.1.0";
    header.command = command;
    header.date = utc_now();
    header.host = host_name();
    auto bench = cuda::open_cuda_device(device);
    std::cerr << fmt::format("gpuplan-bench: measuring {} ({}) ...\n", bench->info().name, gpu.id);
    const CalibrationProfile profile = measure_profile(*bench, default_sweep(quick), header);
    const std::string text = calibration_json(profile).dump(2) + "\n";
    if (out_path.empty()) {
      std::cout << text;
    } else {
      std::ofstream(out_path) << text;
      std::cerr << fmt::format("gpuplan-bench: wrote {}; check it with 'gpuplan gpu {} --calibration {}'\n", out_path,
                               gpu.id, out_path);
    }
  } catch (const Error& e) {
    std::cerr << "gpuplan-bench: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "gpuplan-bench: CUDA error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
