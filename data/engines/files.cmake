list(APPEND GPUPLAN_DATA_FILES
  engines/tensorrt-llm.toml
  engines/vllm.toml
  engines/sglang.toml
)
