#include "calibration/collective_fields.h"

namespace gpuplan {

// In the order `gpuplan collective --help` lists them.
const std::vector<FieldSpec<CollectiveCommandRequest>>& collective_fields() {
  using R = CollectiveCommandRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"op", GP_FIELD(R, op), "", "allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv",
       "allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv", kRequired},
      {"bytes", GP_FIELD(R, bytes), "bytes", "",
       "Message size (nccl-tests 'size'), e.g. 32MiB, 1GB, 4096; not with --sweep"},
      {"gpus", GP_FIELD(R, gpus), "GPUs", "", "GPUs in the group", kRequired},
      {"system", GP_FIELD(R, system), "", "", "Node or rack id (see 'gpuplan systems'); defaults to the fabric's"},
      {"nodes", GP_FIELD(R, nodes), "nodes", "", "Scale-up domains the group spans (default: as few as hold --gpus)"},
      {"node_stride", GP_FIELD(R, node_stride), "nodes", "",
       "Consecutive nodes of the group are this many nodes apart (a data-parallel group under model "
       "parallelism); default 1"},
      {"fabric", GP_FIELD(R, fabric), "", "", "Fabric id above the nodes (see 'gpuplan systems'); default: NICs only"},
      {"algorithm", GP_FIELD(R, algorithm), "", "auto, ring, tree, nvls, direct",
       "auto (cheapest, as NCCL picks), ring, tree, nvls or direct (AllToAll, SendRecv; one-shot AllReduce on an "
       "xGMI mesh)"},
      {"dtype", GP_FIELD(R, dtype), "", "bf16, fp16, fp32", "bf16, fp16 or fp32 (element size)"},
      {"concurrent", GP_FIELD(R, concurrent), "collectives", "",
       "Collectives sharing the same links at once (each gets 1/K)"},
      {"ideal", GP_FIELD(R, ideal), "", "", "Line rate and no latency: the seed documents' idealised bounds"},
      {"sweep", GP_FIELD(R, sweep), "", "", "Table over 512 B ... 16 GiB, doubling, like nccl-tests"},
      {"calibration", GP_FIELD(R, calibration), "", "",
       "Profile from gpuplan-bench, or nccl-tests output (all_reduce_perf ...), measured on this system: its "
       "collective curve replaces the model",
       kTakesPath},
  };
  return fields;
}

}  // namespace gpuplan
