// Multi-node collectives for gpuplan-bench under mpirun (compiled where MPI and NCCL were
// found, GPUPLAN_HAVE_MPI): one process per GPU; rank 0 makes the NCCL unique id and MPI
// broadcasts it, then every process joins with ncclCommInitRank (nccl-tests' bootstrap).
#pragma once

#include <memory>

#include "collectives.h"

namespace gpuplan::cuda {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // this process's index on its node
  // Ends every process (a failed rank would leave the others waiting inside NCCL).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
};

// The communicator over all MPI ranks, this process on CUDA device `device`.
std::unique_ptr<Collectives> open_mpi_collectives(const MpiSession& session, int device);

}  // namespace gpuplan::cuda
