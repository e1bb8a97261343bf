#include "monitor/nvml_sampler.h"

#include <dlfcn.h>

#include <climits>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace gpuplan {
namespace {

// The subset of nvml.h gpuplan uses, declared here so the build needs no CUDA toolkit. These
// are stable C ABI types: enums are passed as int, handles as opaque pointers.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr int NVML_TEMPERATURE_GPU = 0;
constexpr int NVML_CLOCK_SM = 1;
constexpr int NVML_CLOCK_MEM = 2;
constexpr int NVML_PCIE_UTIL_TX_BYTES = 0;
constexpr int NVML_PCIE_UTIL_RX_BYTES = 1;
constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;  // cumulative KiB
constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;
constexpr int NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
constexpr unsigned kNameBuffer = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kUuidBuffer = 80;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE

struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
union nvmlValue_t {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
};
struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};
static_assert(sizeof(nvmlFieldValue_t) == 40, "layout of nvmlFieldValue_t in nvml.h");

// The entry points, resolved with dlsym. Optional ones may be null on old drivers.
struct NvmlApi {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*nvml_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*device_count)(unsigned*) = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned*) = nullptr;          // mW
  nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned*) = nullptr;          // mW
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;           // MHz
  nvmlReturn_t (*throttle)(nvmlDevice_t, unsigned long long*) = nullptr;   // bitmask
  nvmlReturn_t (*pcie_throughput)(nvmlDevice_t, int, unsigned*) = nullptr;  // KB/s
  nvmlReturn_t (*field_values)(nvmlDevice_t, int, nvmlFieldValue_t*) = nullptr;
};

// dlsym returns an object pointer; copying its bits is the portable way to a function pointer
// (and keeps -Wpedantic quiet).
template <typename Fn>
void resolve(void* lib, const char* symbol, Fn& fn) {
  void* address = dlsym(lib, symbol);
  static_assert(sizeof(fn) == sizeof(address));
  std::memcpy(&fn, &address, sizeof(fn));
}

class NvmlSampler final : public GpuSampler {
 public:
  NvmlSampler(void* lib, const NvmlApi& api, std::vector<nvmlDevice_t> devices, std::string description)
      : lib_(lib), api_(api), devices_(std::move(devices)), description_(std::move(description)) {}
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;
  ~NvmlSampler() override {
    api_.shutdown();
    dlclose(lib_);
  }

  std::string description() const override { return description_; }
  unsigned device_count() const override { return static_cast<unsigned>(devices_.size()); }

  GpuSample sample(unsigned index) override {
    nvmlDevice_t dev = devices_.at(index);
    GpuSample s;
    s.index = index;
    char text[kNameBuffer] = {};
    if (api_.name(dev, text, kNameBuffer) == NVML_SUCCESS) s.name = text;
    char uuid[kUuidBuffer] = {};
    if (api_.uuid && api_.uuid(dev, uuid, kUuidBuffer) == NVML_SUCCESS) s.uuid = uuid;
    nvmlUtilization_t util{};
    if (api_.utilization && api_.utilization(dev, &util) == NVML_SUCCESS) {
      s.gpu_util_pct = util.gpu;
      s.memory_util_pct = util.memory;
    }
    nvmlMemory_t mem{};
    if (api_.memory && api_.memory(dev, &mem) == NVML_SUCCESS) {
      s.memory_used_bytes = static_cast<double>(mem.used);
      s.memory_total_bytes = static_cast<double>(mem.total);
    }
    unsigned value = 0;
    if (api_.temperature && api_.temperature(dev, NVML_TEMPERATURE_GPU, &value) == NVML_SUCCESS) s.temperature_c = value;
    if (api_.power_usage && api_.power_usage(dev, &value) == NVML_SUCCESS) s.power_w = value / 1e3;
    if (api_.power_limit && api_.power_limit(dev, &value) == NVML_SUCCESS) s.power_limit_w = value / 1e3;
    if (api_.clock && api_.clock(dev, NVML_CLOCK_SM, &value) == NVML_SUCCESS) s.sm_clock_hz = value * 1e6;
    if (api_.clock && api_.clock(dev, NVML_CLOCK_MEM, &value) == NVML_SUCCESS) s.memory_clock_hz = value * 1e6;
    unsigned long long mask = 0;
    if (api_.throttle && api_.throttle(dev, &mask) == NVML_SUCCESS) s.throttle_reasons = mask;
    // nvml.h: "KB/s"; nvidia-smi divides by 1000 to print MB/s, so KB = 1000 bytes here.
    if (api_.pcie_throughput && api_.pcie_throughput(dev, NVML_PCIE_UTIL_TX_BYTES, &value) == NVML_SUCCESS)
      s.pcie_tx_bytes_per_s = value * 1e3;
    if (api_.pcie_throughput && api_.pcie_throughput(dev, NVML_PCIE_UTIL_RX_BYTES, &value) == NVML_SUCCESS)
      s.pcie_rx_bytes_per_s = value * 1e3;
    read_nvlink(dev, s);
    return s;
  }

 private:
  // The data-throughput fields are GPU-wide KiB counters; scope UINT_MAX asks for all links.
  void read_nvlink(nvmlDevice_t dev, GpuSample& s) {
    if (!api_.field_values) return;
    nvmlFieldValue_t fields[2] = {};
    fields[0].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    fields[1].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
    fields[0].scopeId = fields[1].scopeId = UINT_MAX;
    if (api_.field_values(dev, 2, fields) != NVML_SUCCESS) return;
    if (fields[0].nvmlReturn != NVML_SUCCESS) {
      // Drivers that want a link id report the GPU-wide counter on link 0 (not verified on a
      // GPU yet: no GPU was available when this was written).
      fields[0].scopeId = fields[1].scopeId = 0;
      if (api_.field_values(dev, 2, fields) != NVML_SUCCESS) return;
    }
    auto kib = [](const nvmlFieldValue_t& f) -> std::optional<double> {
      if (f.nvmlReturn != NVML_SUCCESS || f.valueType != NVML_VALUE_TYPE_UNSIGNED_LONG_LONG) return std::nullopt;
      return static_cast<double>(f.value.ullVal) * 1024.0;
    };
    s.nvlink_tx_total_bytes = kib(fields[0]);
    s.nvlink_rx_total_bytes = kib(fields[1]);
  }

  void* lib_;
  NvmlApi api_;
  std::vector<nvmlDevice_t> devices_;
  std::string description_;
};

}  // namespace

std::unique_ptr<GpuSampler> open_nvml_sampler(const std::string& library) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw NvmlUnavailable(fmt::format("NVML not found: no NVIDIA driver on this machine ({})",
                                      why ? why : library));
  }
  NvmlApi api;
  resolve(lib, "nvmlInit_v2", api.init);
  resolve(lib, "nvmlShutdown", api.shutdown);
  resolve(lib, "nvmlErrorString", api.error_string);
  resolve(lib, "nvmlSystemGetDriverVersion", api.driver_version);
  resolve(lib, "nvmlSystemGetNVMLVersion", api.nvml_version);
  resolve(lib, "nvmlDeviceGetCount_v2", api.device_count);
  resolve(lib, "nvmlDeviceGetHandleByIndex_v2", api.handle_by_index);
  resolve(lib, "nvmlDeviceGetName", api.name);
  resolve(lib, "nvmlDeviceGetUUID", api.uuid);
  resolve(lib, "nvmlDeviceGetUtilizationRates", api.utilization);
  resolve(lib, "nvmlDeviceGetMemoryInfo", api.memory);
  resolve(lib, "nvmlDeviceGetTemperature", api.temperature);
  resolve(lib, "nvmlDeviceGetPowerUsage", api.power_usage);
  resolve(lib, "nvmlDeviceGetEnforcedPowerLimit", api.power_limit);
  resolve(lib, "nvmlDeviceGetClockInfo", api.clock);
  // Renamed in driver 535 ("clocks event reasons"); the old name is still exported.
  resolve(lib, "nvmlDeviceGetCurrentClocksEventReasons", api.throttle);
  if (!api.throttle) resolve(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", api.throttle);
  resolve(lib, "nvmlDeviceGetPcieThroughput", api.pcie_throughput);
  resolve(lib, "nvmlDeviceGetFieldValues", api.field_values);
  if (!api.init || !api.shutdown || !api.device_count || !api.handle_by_index || !api.name) {
    dlclose(lib);
    throw NvmlUnavailable(fmt::format("NVML at '{}' lacks nvmlInit_v2 and friends; the NVIDIA driver is too old", library));
  }
  auto error_text = [&](nvmlReturn_t rc) -> std::string {
    return api.error_string ? api.error_string(rc) : fmt::format("NVML error {}", rc);
  };
  if (const nvmlReturn_t rc = api.init(); rc != NVML_SUCCESS) {
    dlclose(lib);
    throw NvmlUnavailable(fmt::format("NVML found but nvmlInit failed: {}", error_text(rc)));
  }
  unsigned count = 0;
  std::vector<nvmlDevice_t> devices;
  nvmlReturn_t rc = api.device_count(&count);
  for (unsigned i = 0; rc == NVML_SUCCESS && i < count; ++i) {
    nvmlDevice_t dev = nullptr;
    rc = api.handle_by_index(i, &dev);
    devices.push_back(dev);
  }
  if (rc != NVML_SUCCESS || devices.empty()) {
    const std::string why = rc != NVML_SUCCESS ? error_text(rc) : "NVML sees no GPU";
    api.shutdown();
    dlclose(lib);
    throw NvmlUnavailable(fmt::format("no GPU to monitor: {}", why));
  }
  char driver[96] = {};
  char version[96] = {};
  if (!api.driver_version || api.driver_version(driver, sizeof(driver)) != NVML_SUCCESS) driver[0] = '\0';
  if (!api.nvml_version || api.nvml_version(version, sizeof(version)) != NVML_SUCCESS) version[0] = '\0';
  std::string description = fmt::format("NVML {}, driver {}", version[0] ? version : "?", driver[0] ? driver : "?");
  return std::make_unique<NvmlSampler>(lib, api, std::move(devices), std::move(description));
}

}  // namespace gpuplan
