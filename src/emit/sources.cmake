list(APPEND GPUPLAN_LIB_SOURCES
  emit/emit_common.cpp
  emit/infer_emit.cpp
  emit/launch_report.cpp
  emit/launch_words.cpp
  emit/megatron_import.cpp
  emit/nemo_import.cpp
  emit/torchtitan_import.cpp
  emit/train_emit.cpp)
