// How the ranks of a distributed sweep talk: who am I, how many are we, and one gather of
// serialised results to rank 0. MPI stays behind this interface (mpi_transport.h), out of the
// core library's headers; a single process uses LocalTransport.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gpuplan {

class SweepTransport {
 public:
  virtual ~SweepTransport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Ranks sharing this machine (they split its cores between their search threads).
  virtual int ranks_on_node() const = 0;
  // Collective: every rank calls it once with its payload; rank 0 gets every payload in rank
  // order, the others an empty list.
  virtual std::vector<std::string> gather_to_root(const std::string& payload) = 0;
};

class LocalTransport final : public SweepTransport {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int ranks_on_node() const override { return 1; }
  std::vector<std::string> gather_to_root(const std::string& payload) override { return {payload}; }
};

// What the launcher told this process through the environment: Open MPI's mpirun sets
// OMPI_COMM_WORLD_{SIZE,RANK}; MPICH's Hydra and Slurm's PMI set PMI_{SIZE,RANK}.
// size 1 when the process was started on its own.
struct LaunchInfo {
  int size = 1;
  int rank = 0;
};
LaunchInfo detect_launch(const std::function<const char*(const char*)>& getenv_fn);

}  // namespace gpuplan
