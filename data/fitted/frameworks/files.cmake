list(APPEND GPUPLAN_DATA_FILES
  fitted/frameworks/megatron-core.toml
  fitted/frameworks/megatron-lm.toml
  fitted/frameworks/pytorch-fsdp.toml
  fitted/frameworks/pytorch.toml
  fitted/frameworks/deepspeed.toml
)
