// Collectives over NCCL communicators (collectives.h). Out of place, fp32, one stream per
// local GPU; every local rank's calls go in one ncclGroupStart/End so one thread drives all.
#include <nccl.h>

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "collective_kernels.h"
#include "collectives.h"
#include "cuda_util.h"

namespace gpuplan::cuda {
namespace {

void check_nccl(ncclResult_t result, const char* call) {
  if (result != ncclSuccess) throw std::runtime_error(fmt::format("{}: {}", call, ncclGetErrorString(result)));
}
#define GP_NCCL(call) check_nccl((call), #call)

CollectiveOp parse_op(const std::string& op) {
  if (op == "all_reduce") return CollectiveOp::all_reduce;
  if (op == "all_gather") return CollectiveOp::all_gather;
  if (op == "reduce_scatter") return CollectiveOp::reduce_scatter;
  if (op == "all_to_all") return CollectiveOp::all_to_all;
  throw std::invalid_argument("unknown collective " + op);
}

// One local rank's device, stream, buffers and events.
struct LocalRank {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float* send = nullptr;
  float* recv = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
};

class NcclCollectives final : public Collectives {
 public:
  NcclCollectives(std::vector<int> devices, std::vector<ncclComm_t> comms, int ranks, int first_rank,
                  ProcessReduce reduce)
      : ranks_(ranks), first_rank_(first_rank), reduce_(std::move(reduce)) {
    for (std::size_t idx = 0; idx < devices.size(); ++idx) {
      LocalRank r;
      r.device = devices[idx];
      r.comm = comms[idx];
      GP_CUDA(cudaSetDevice(r.device));
      GP_CUDA(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
      GP_CUDA(cudaEventCreate(&r.start));
      GP_CUDA(cudaEventCreate(&r.stop));
      local_.push_back(r);
    }
  }
  ~NcclCollectives() override {
    for (LocalRank& r : local_) {
      cudaSetDevice(r.device);
      cudaEventDestroy(r.start);
      cudaEventDestroy(r.stop);
      cudaStreamDestroy(r.stream);
      ncclCommDestroy(r.comm);
    }
  }

  int ranks() const override { return ranks_; }

  KernelRun run(const std::string& op_name, std::size_t bytes, int runs, unsigned seed) override {
    const CollectiveOp op = parse_op(op_name);
    const std::size_t count = bytes / sizeof(float);
    const std::size_t chunk = count / static_cast<std::size_t>(ranks_);
    if (count == 0 || chunk * static_cast<std::size_t>(ranks_) != count) {
      throw std::invalid_argument(fmt::format("{} bytes are not whole fp32 chunks for {} ranks", bytes, ranks_));
    }
    const std::size_t send_count = op == CollectiveOp::all_gather ? chunk : count;
    const std::size_t recv_count = op == CollectiveOp::reduce_scatter ? chunk : count;
    KernelRun result;
    try {  // a failed allocation on a later GPU frees the earlier ones' buffers too
      for (std::size_t idx = 0; idx < local_.size(); ++idx) {
        LocalRank& r = local_[idx];
        GP_CUDA(cudaSetDevice(r.device));
        GP_CUDA(cudaMalloc(&r.send, send_count * sizeof(float)));
        GP_CUDA(cudaMalloc(&r.recv, recv_count * sizeof(float)));
        fill_collective_send(r.send, send_count, op, rank_of(idx), ranks_, seed, r.stream);
        GP_CUDA(cudaMemsetAsync(r.recv, 0xFF, recv_count * sizeof(float), r.stream));  // NaN
      }
      for (int run_idx = 0; run_idx < kWarmupRuns; ++run_idx) launch(op, chunk, count);
      synchronize();
      for (int run_idx = 0; run_idx < runs; ++run_idx) result.times_s.push_back(timed_launch(op, chunk, count));
      double wrong = 0;
      for (std::size_t idx = 0; idx < local_.size(); ++idx) {
        const LocalRank& r = local_[idx];
        GP_CUDA(cudaSetDevice(r.device));
        wrong += static_cast<double>(collective_wrong(r.recv, recv_count, op, rank_of(idx), ranks_, seed, r.stream));
      }
      wrong = reduce_.sum(wrong);
      result.correct = wrong == 0;
      result.check = fmt::format("{} of {} received floats wrong over {} ranks", wrong,
                                 static_cast<double>(recv_count) * ranks_, ranks_);
    } catch (...) {
      release();
      throw;
    }
    release();
    return result;
  }

 private:
  int rank_of(std::size_t local_idx) const { return first_rank_ + static_cast<int>(local_idx); }

  void launch(CollectiveOp op, std::size_t chunk, std::size_t count) {
    GP_NCCL(ncclGroupStart());
    for (const LocalRank& r : local_) {
      switch (op) {
        case CollectiveOp::all_reduce:
          GP_NCCL(ncclAllReduce(r.send, r.recv, count, ncclFloat, ncclSum, r.comm, r.stream));
          break;
        case CollectiveOp::all_gather:
          GP_NCCL(ncclAllGather(r.send, r.recv, chunk, ncclFloat, r.comm, r.stream));
          break;
        case CollectiveOp::reduce_scatter:
          GP_NCCL(ncclReduceScatter(r.send, r.recv, chunk, ncclFloat, ncclSum, r.comm, r.stream));
          break;
        case CollectiveOp::all_to_all:
          // nccl-tests' alltoall: one send and one receive of a chunk per peer, self included.
          for (int peer = 0; peer < ranks_; ++peer) {
            GP_NCCL(ncclSend(r.send + static_cast<std::size_t>(peer) * chunk, chunk, ncclFloat, peer, r.comm, r.stream));
            GP_NCCL(ncclRecv(r.recv + static_cast<std::size_t>(peer) * chunk, chunk, ncclFloat, peer, r.comm, r.stream));
          }
          break;
      }
    }
    GP_NCCL(ncclGroupEnd());
  }

  // Events around the group on every local stream; the run takes as long as its slowest rank
  // (here, and across processes).
  double timed_launch(CollectiveOp op, std::size_t chunk, std::size_t count) {
    for (const LocalRank& r : local_) {
      GP_CUDA(cudaSetDevice(r.device));
      GP_CUDA(cudaEventRecord(r.start, r.stream));
    }
    launch(op, chunk, count);
    double slowest_s = 0;
    for (const LocalRank& r : local_) {
      GP_CUDA(cudaSetDevice(r.device));
      GP_CUDA(cudaEventRecord(r.stop, r.stream));
    }
    for (const LocalRank& r : local_) {
      GP_CUDA(cudaSetDevice(r.device));
      GP_CUDA(cudaEventSynchronize(r.stop));
      float ms = 0;
      GP_CUDA(cudaEventElapsedTime(&ms, r.start, r.stop));
      slowest_s = std::max(slowest_s, static_cast<double>(ms) * 1e-3);
    }
    return reduce_.max(slowest_s);
  }

  void synchronize() {
    for (const LocalRank& r : local_) {
      GP_CUDA(cudaSetDevice(r.device));
      GP_CUDA(cudaStreamSynchronize(r.stream));
    }
  }

  void release() {
    for (LocalRank& r : local_) {
      cudaSetDevice(r.device);
      cudaStreamSynchronize(r.stream);
      cudaFree(r.send);
      cudaFree(r.recv);
      r.send = r.recv = nullptr;
    }
  }

  int ranks_;
  int first_rank_;
  ProcessReduce reduce_;
  std::vector<LocalRank> local_;
};

}  // namespace

std::unique_ptr<Collectives> make_nccl_collectives(std::vector<int> devices, std::vector<void*> comms, int ranks,
                                                   int first_rank, ProcessReduce reduce) {
  std::vector<ncclComm_t> typed;
  for (void* c : comms) typed.push_back(static_cast<ncclComm_t>(c));
  return std::make_unique<NcclCollectives>(std::move(devices), std::move(typed), ranks, first_rank, std::move(reduce));
}

std::unique_ptr<Collectives> open_local_collectives(std::string& why) {
  int count = 0;
  GP_CUDA(cudaGetDeviceCount(&count));
  if (count < 2) {
    why = fmt::format("{} local GPU: collectives need at least 2 (a 1-rank collective is a local copy), so none were "
                      "measured; across nodes, run under mpirun with --mpi",
                      count);
    return nullptr;
  }
  std::vector<int> devices(static_cast<std::size_t>(count));
  for (int idx = 0; idx < count; ++idx) devices[static_cast<std::size_t>(idx)] = idx;
  std::vector<ncclComm_t> comms(devices.size());
  GP_NCCL(ncclCommInitAll(comms.data(), count, devices.data()));
  return std::make_unique<NcclCollectives>(std::move(devices), std::move(comms), count, 0, ProcessReduce{});
}

}  // namespace gpuplan::cuda
