// Memory per GPU: ZeRO stages by hand (Rajbhandari et al. 2020, fig. 1).
#include <gtest/gtest.h>

#include "cost/memory.h"

namespace gpuplan {
namespace {

TEST(Memory, ZeroStagesShardStatesOneByOne) {
  // 7.5B parameters on 64 GPUs (the ZeRO paper's example): 2 + 2 + 12 bytes per parameter.
  MemoryInputs in;
  in.dense_params = 7.5e9;
  in.dense_shard = 64;
  const double psi = 7.5e9;
  in.zero_stage = 0;
  EXPECT_DOUBLE_EQ(memory_per_gpu(in).total_bytes, 16 * psi);  // 120 GB
  in.zero_stage = 1;
  EXPECT_DOUBLE_EQ(memory_per_gpu(in).total_bytes, 4 * psi + 12 * psi / 64);  // 31.4 GB
  in.zero_stage = 2;
  EXPECT_DOUBLE_EQ(memory_per_gpu(in).total_bytes, 2 * psi + 14 * psi / 64);  // 16.6 GB
  in.zero_stage = 3;
  EXPECT_DOUBLE_EQ(memory_per_gpu(in).total_bytes, 16 * psi / 64);  // 1.9 GB
}

TEST(Memory, ExpertStatesShardOverTheirOwnGroup) {
  MemoryInputs in;
  in.dense_params = 1e9;
  in.expert_params = 8e9;
  in.zero_stage = 1;
  in.dense_shard = 16;
  in.expert_shard = 2;
  const MemoryBreakdown m = memory_per_gpu(in);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 12 * 1e9 / 16 + 12 * 8e9 / 2);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 2 * 9e9);
}

TEST(Memory, Fp8PrimaryWeightsDropTheirSixteenBitCopy) {
  // 1e9 dense and 8e9 expert parameters, of which 0.6e9 dense and all 8e9 expert ones are fp8
  // GEMM weights kept only in fp8 (their 1-byte copies in extra_weight_bytes): the 16-bit weights
  // are 2 B × (0.4e9 + 0) dense; gradients and optimizer states still count every parameter.
  MemoryInputs in;
  in.dense_params = 1e9;
  in.expert_params = 8e9;
  in.zero_stage = 1;
  in.dense_shard = 16;
  in.expert_shard = 2;
  in.extra_weight_bytes = 1 * (0.6e9 + 8e9);
  in.quantised_only_dense_params = 0.6e9;
  in.quantised_only_expert_params = 8e9;
  const MemoryBreakdown m = memory_per_gpu(in);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 2 * 0.4e9 + 8.6e9);
  EXPECT_DOUBLE_EQ(m.gradients_bytes, 2 * 9e9);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 12 * 1e9 / 16 + 12 * 8e9 / 2);
  // Under ZeRO-3 the 16-bit weights that remain are sharded like the others.
  in.zero_stage = 3;
  EXPECT_DOUBLE_EQ(memory_per_gpu(in).weights_bytes, 2 * 0.4e9 / 16 + 8.6e9);
}

TEST(Memory, OverheadsAreExplicitTerms) {
  MemoryInputs in;
  in.dense_params = 1e9;
  in.stored_activation_bytes = 4e9;
  in.runtime_bytes = 1.5e9;
  in.fragmentation_fraction = 0.05;
  const MemoryBreakdown m = memory_per_gpu(in);
  EXPECT_DOUBLE_EQ(m.fragmentation_bytes, 0.05 * (16e9 + 4e9));
  EXPECT_DOUBLE_EQ(m.total_bytes, 16e9 + 4e9 + m.fragmentation_bytes + 1.5e9);
}

}  // namespace
}  // namespace gpuplan
