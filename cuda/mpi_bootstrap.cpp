#include "mpi_bootstrap.h"

#include <mpi.h>
#include <nccl.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "cuda_util.h"

namespace gpuplan::cuda {

MpiSession::MpiSession(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Processes sharing a node (MPI-3 shared-memory split) number their GPUs from 0.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

std::unique_ptr<Collectives> open_mpi_collectives(const MpiSession& session, int device) {
  GP_CUDA(cudaSetDevice(device));
  ncclUniqueId id{};
  if (session.rank() == 0) {
    const ncclResult_t made = ncclGetUniqueId(&id);
    if (made != ncclSuccess) throw std::runtime_error(std::string("ncclGetUniqueId: ") + ncclGetErrorString(made));
  }
  MPI_Bcast(&id, static_cast<int>(sizeof(id)), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm = nullptr;
  const ncclResult_t joined = ncclCommInitRank(&comm, session.size(), id, session.rank());
  if (joined != ncclSuccess) throw std::runtime_error(std::string("ncclCommInitRank: ") + ncclGetErrorString(joined));
  ProcessReduce reduce;
  reduce.max = [](double v) {
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
  };
  reduce.sum = [](double v) {
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
  };
  return make_nccl_collectives({device}, {comm}, session.size(), session.rank(), std::move(reduce));
}

}  // namespace gpuplan::cuda
