// gpuplan collective --op OP --bytes SIZE --gpus N --system NAME [--nodes M] [--fabric F] ...
// flags → CollectiveCommandRequest → answer_collective (calibration/collective_question.h) →
// to_json / to_text (report/collective_report.h).
#include <nlohmann/json.hpp>

#include "calibration/collective_question.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output_flags.h"
#include "report/collective_page.h"
#include "report/collective_report.h"

namespace gpuplan {

void setup_collective(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    CollectiveCommandRequest request;
    bool json = false;
    OutputFlags output;  // --html, --report-data: the answer in words and, for --sweep, the curve
  };
  auto o = std::make_shared<Opts>();
  CollectiveCommandRequest& r = o->request;
  cmd.add_option("--op", r.op, "allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv")->required();
  cmd.add_option("--bytes", r.bytes, "Message size (nccl-tests 'size'), e.g. 32MiB, 1GB, 4096; not with --sweep");
  cmd.add_option("--gpus", r.gpus, "GPUs in the group")->required();
  cmd.add_option("--system", r.system, "Node or rack id (see 'gpuplan systems'); defaults to the fabric's");
  cmd.add_option("--nodes", r.nodes, "Scale-up domains the group spans (default: as few as hold --gpus)");
  cmd.add_option("--node-stride", r.node_stride,
                 "Consecutive nodes of the group are this many nodes apart (a data-parallel group under model "
                 "parallelism); default 1");
  cmd.add_option("--fabric", r.fabric, "Fabric id above the nodes (see 'gpuplan systems'); default: NICs only");
  cmd.add_option("--algorithm", r.algorithm, "auto (cheapest, as NCCL picks), ring, tree, nvls or direct (AllToAll, SendRecv; one-shot AllReduce on an xGMI mesh)");
  cmd.add_option("--dtype", r.dtype, "bf16, fp16 or fp32 (element size)");
  cmd.add_option("--concurrent", r.concurrent, "Collectives sharing the same links at once (each gets 1/K)");
  cmd.add_flag("--ideal", r.ideal, "Line rate and no latency: the seed documents' idealised bounds");
  cmd.add_flag("--sweep", r.sweep, "Table over 512 B ... 16 GiB, doubling, like nccl-tests");
  cmd.add_option("--calibration", r.calibration,
                 "Profile from gpuplan-bench, or nccl-tests output (all_reduce_perf ...), measured on this system: "
                 "its collective curve replaces the model");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  add_output_flags(cmd, o->output);
  cmd.callback([o, &ctx] {
    const CollectiveAnswer a = answer_collective(ctx.catalog(), o->request);
    OutputFlags flags = o->output;
    flags.json = o->json;
    present(ctx, a, flags);
  });
}

}  // namespace gpuplan
