// What a run's own communication configuration does to its collectives: Megatron-Core's
// data-parallel collectives one bucket at a time, and a context-parallel communicator capped to a
// few NCCL channels.
//
// Megatron-Core's data-parallel collectives one bucket at a time. Its DDP and distributed
// optimizer cut the gradient buffer into buckets of at least `bucket_size` parameters (a bucket
// closes when the parameter that fills it is added: megatron/core/distributed/
// param_and_grad_buffer.py, _ParamAndGradBuffer.__init__) and issue each bucket's
// reduce-scatter (or all-reduce) as its own NCCL call as soon as its gradients are ready, and
// each bucket's all-gather before the forward reaches it (distributed_data_parallel.py,
// ParamAndGradBucketGroup.start_grad_sync / start_param_sync). Every call pays the collective's
// fixed cost (NCCL's base and per-step latencies, which a ring's n − 1 steps make grow with the
// ranks): a 16 GB reduce-scatter in 60 buckets over 256 ranks is 60 latency terms, not one.
// Formula: docs/model/training.md ("Data-parallel buckets and capped communicators").
#pragma once

namespace gpuplan {

// Buckets the framework cuts `params` parameters into at `bucket_params` each: every bucket
// holds at least `bucket_params`, so floor(params / bucket_params), at least one. One bucket
// when the framework's bucket size is unknown (0) or the parameters are none.
double dp_bucket_count(double params, double bucket_params);

// A context-parallel ring step on a communicator its NCCL configuration caps to a few channels
// (MLPerf Training's conf/nccl/custom_communicator_cta.yaml: `cp` max_ctas 1, read by NCCL
// through NCCL_CFG_PATH; NCCL honours a communicator's max CTAs for its point-to-point channels,
// src/graph/paths.cc ncclTopoComputeP2pChannels): the uncapped step `step_s`, or `bytes` at
// `channel_bw_bytes_per_s` (the channels x one channel's rate) where that is slower. No cap
// (the uncapped step) when the rate is 0. Formula: docs/model/training.md ("Data-parallel
// buckets and capped communicators").
double cp_channel_step_s(double step_s, double bytes, double channel_bw_bytes_per_s);

}  // namespace gpuplan
