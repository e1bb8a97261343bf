// NCCL collectives for gpuplan-bench, behind a plain C++ interface: in one process over every
// local GPU (ncclCommInitAll), or one GPU per process across nodes under mpirun
// (mpi_bootstrap.h). The interface is plain C++; the functions below exist only where NCCL
// was found (GPUPLAN_HAVE_NCCL), and main.cpp says so where it was not.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels.h"

namespace gpuplan::cuda {

class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual int ranks() const = 0;
  // op: "all_reduce" | "all_gather" | "reduce_scatter" | "all_to_all" (grouped ncclSend /
  // ncclRecv) of `bytes` (nccl-tests' size: the per-rank buffer of the larger side) in fp32.
  // Each run's time is the slowest rank's (CUDA events on every rank's stream); the received
  // data is checked on every rank against the known per-rank inputs.
  virtual KernelRun run(const std::string& op, std::size_t bytes, int runs, unsigned seed) = 0;
};

// Reductions across processes, for times and error counts (identity in one process).
struct ProcessReduce {
  std::function<double(double)> max = [](double v) { return v; };
  std::function<double(double)> sum = [](double v) { return v; };
};

// Every local GPU in this process, one thread-less ncclCommInitAll. nullptr (and `why`) where
// there are fewer than 2 GPUs: one rank's collective is a local copy.
std::unique_ptr<Collectives> open_local_collectives(std::string& why);

// Communicators made elsewhere (the MPI bootstrap): `devices[i]` runs rank first_rank + i of
// `ranks`. Takes ownership of the communicators (opaque ncclComm_t values).
std::unique_ptr<Collectives> make_nccl_collectives(std::vector<int> devices, std::vector<void*> comms, int ranks,
                                                   int first_rank, ProcessReduce reduce);

}  // namespace gpuplan::cuda
