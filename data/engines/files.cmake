list(APPEND GPUPLAN_DATA_FILES
  engines/tensorrt-llm.toml
  engines/tensorrt-llm-1.0.toml
  engines/trtllm.toml
  engines/vllm.toml
  engines/vllm-v0.toml
  engines/sglang.toml
)
