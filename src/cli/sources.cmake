# Sources of the CLI library (paths relative to src/); main.cpp is the executable.
list(APPEND GPUPLAN_CLI_SOURCES
  cli/run.cpp
  cli/context.cpp
  cli/command_table.cpp
  cli/cmd_gpus.cpp
)
