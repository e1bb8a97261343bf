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

#include "bench_support/measure.h"
#include "catalog/catalog.h"
#include "collectives.h"
#include "core/error.h"
#include "cuda_device.h"
#ifdef GPUPLAN_HAVE_MPI
#include "mpi_bootstrap.h"
#endif

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

// Under mpirun only the collectives are measured: every rank takes part in each one, and the
// per-GPU figures are a single-node run's job.
[[maybe_unused]] gpuplan::SweepOptions collectives_only(const gpuplan::SweepOptions& full) {  // MPI builds only
  gpuplan::SweepOptions only;
  only.memory_ops.clear();
  only.host_ops.clear();
  only.collective_ops = full.collective_ops;
  only.collective_bytes = full.collective_bytes;
  only.runs = full.runs;
  return only;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuplan;
  CLI::App app{"gpuplan-bench: measure this GPU (HBM, L2 and host-link bandwidth, cuBLASLt and WMMA GEMMs, NCCL "
               "collectives, a transformer layer, a training step) into a calibration profile"};
  std::string gpu_id;
  std::string out_path;
  int device = 0;
  bool quick = false;
  bool mpi = false;
  std::vector<std::string> layer_texts;
  std::vector<std::string> step_texts;
  app.add_option("--gpu", gpu_id, "Catalog id of this GPU (see 'gpuplan gpus'), e.g. h100-sxm")->required();
  app.add_option("--out", out_path, "Write the profile here (default: print it)");
  app.add_option("--device", device, "CUDA device ordinal (default 0)");
  app.add_flag("--quick", quick, "A seconds-long subset of the sweep (smoke test)");
  app.add_option("--layer", layer_texts,
                 "Time this transformer layer instead of the defaults: hidden,heads,kv_heads,ffn,seq,batch "
                 "(repeatable), e.g. 4096,32,8,14336,2048,1");
  app.add_option("--step", step_texts,
                 "Time this training step instead of the default: layers,hidden,heads,kv_heads,ffn,vocab,seq,batch "
                 "(repeatable), e.g. 16,2048,32,8,8192,128256,2048,1");
  app.add_flag("--mpi", mpi,
               "Run under mpirun, one process per GPU across nodes: measures only the NCCL collectives over all "
               "ranks; rank 0 writes the profile (needs a build that found MPI)");
  CLI11_PARSE(app, argc, argv);

  std::string command = "gpuplan-bench";
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) command += std::string(" ") + argv[arg_idx];
#ifdef GPUPLAN_HAVE_MPI
  std::unique_ptr<cuda::MpiSession> session;  // outlives the device, whose communicator it bootstrapped
  if (mpi) session = std::make_unique<cuda::MpiSession>(&argc, &argv);
  auto fail = [&](int code) {
    if (session && session->size() > 1) session->abort(code);
    return code;
  };
#else
  auto fail = [](int code) { return code; };
#endif
  try {
    const int devices = cuda::cuda_device_count();
    if (devices == 0) {
      std::cerr << "gpuplan-bench: no CUDA device\n";
      return fail(3);  // under mpirun, the ranks that have a GPU would wait for this one forever
    }
    if (device < 0 || device >= devices) throw Error(fmt::format("--device {}: this machine has {}", device, devices));
    CatalogOptions options;
    const Catalog catalog = load_catalog(options);
    const Gpu& gpu = catalog.gpu(gpu_id);  // an unknown id fails here, before minutes of measuring
    SweepOptions sweep = default_sweep(quick, catalog);
    if (!layer_texts.empty()) {
      sweep.layers.clear();
      for (const std::string& text : layer_texts) sweep.layers.push_back(parse_layer_shape(text));
    }
    if (!step_texts.empty()) {
      sweep.steps.clear();
      for (const std::string& text : step_texts) sweep.steps.push_back(parse_step_shape(text));
    }
    CalibrationProfile header;
    header.gpu_id = gpu.id;
    header.tool = "gpuplan-bench 0.3.0";
    header.command = command;
    header.date = utc_now();
    header.host = host_name();

    std::unique_ptr<cuda::Collectives> collectives;
    std::string collective_note;
    bool writes_profile = true;
    if (mpi) {
#ifdef GPUPLAN_HAVE_MPI
      device = session->local_rank() % devices;
      collectives = cuda::open_mpi_collectives(*session, device);
      sweep = collectives_only(sweep);
      writes_profile = session->rank() == 0;
#else
      throw Error(
          "--mpi: this gpuplan-bench was built without MPI, so it cannot bootstrap NCCL across nodes; multi-node "
          "collectives need an MPI build (install Open MPI's development files and NCCL, reconfigure with "
          "-DGPUPLAN_CUDA=ON, and run under mpirun). Without --mpi it measures the GPUs of this node.");
#endif
    } else {
#ifdef GPUPLAN_HAVE_NCCL
      collectives = cuda::open_local_collectives(collective_note);
#else
      collective_note =
          "this gpuplan-bench was built without NCCL (nccl.h and libnccl were not found beside the CUDA toolkit, "
          "or GPUPLAN_NCCL=OFF), so collectives were not measured; install NCCL and reconfigure";
#endif
    }
    auto bench = cuda::open_cuda_device(device, std::move(collectives), collective_note);
#ifdef GPUPLAN_CUDA_MIN_ARCH
    // Kernels are built for CMAKE_CUDA_ARCHITECTURES (SASS and PTX); an older GPU has no image
    // to run and would fail at the first launch with a bare CUDA error.
    if (bench->info().compute_capability < GPUPLAN_CUDA_MIN_ARCH) {
      throw Error(fmt::format("{} is compute capability {}.{}, but this gpuplan-bench was built for sm_{} and newer; "
                              "reconfigure with -DCMAKE_CUDA_ARCHITECTURES={} and rebuild",
                              bench->info().name, bench->info().compute_capability / 10,
                              bench->info().compute_capability % 10, GPUPLAN_CUDA_MIN_ARCH,
                              bench->info().compute_capability));
    }
#endif
    if (writes_profile) std::cerr << fmt::format("gpuplan-bench: measuring {} ({}) ...\n", bench->info().name, gpu.id);
    // The profile is filed under --gpu; a device with another SM count is another part (or a MIG
    // slice), and its figures would calibrate the wrong GPU.
    if (writes_profile && gpu.sm_count > 0 && bench->info().sm_count != gpu.sm_count) {
      std::cerr << fmt::format("gpuplan-bench: warning: {} has {} SMs, the catalog's {} has {}; is --gpu right?\n",
                               bench->info().name, bench->info().sm_count, gpu.id, gpu.sm_count);
    }
    const Measurement measured = measure_profile(*bench, sweep, header);
    if (!writes_profile) return 0;
    for (const std::string& note : measured.notes) std::cerr << "gpuplan-bench: note: " << note << "\n";
    const std::string text = calibration_json(measured.profile).dump(2) + "\n";
    if (out_path.empty()) {
      std::cout << text;
    } else {
      std::ofstream file(out_path);
      file << text;
      file.close();
      if (!file) throw Error(fmt::format("--out {}: cannot write the profile there", out_path));
      std::cerr << fmt::format("gpuplan-bench: wrote {}; check it with 'gpuplan gpu {} --calibration {}'\n", out_path,
                               gpu.id, out_path);
    }
  } catch (const Error& e) {
    std::cerr << "gpuplan-bench: error: " << e.what() << "\n";
    return fail(2);
  } catch (const std::exception& e) {
    std::cerr << "gpuplan-bench: CUDA error: " << e.what() << "\n";
    return fail(1);
  }
  return 0;
}
