# Sources of the CLI library (paths relative to src/); main.cpp is the executable.
list(APPEND GPUPLAN_CLI_SOURCES
  cli/run.cpp
  cli/context.cpp
  cli/command_table.cpp
  cli/cmd_gpus.cpp
  cli/cmd_collective.cpp
  cli/cmd_validate.cpp
  cli/cmd_models.cpp
  cli/cmd_systems.cpp
  cli/cmd_import_topology.cpp
  cli/train_flags.cpp
  cli/output_flags.cpp
  cli/cmd_serve.cpp
  cli/cmd_train.cpp
  cli/cmd_rooflines.cpp
  cli/cmd_validate_training.cpp
  cli/cmd_infer.cpp
  cli/cmd_validate_inference.cpp cli/cmd_validate_calibration.cpp
  cli/cmd_calibrate.cpp
  cli/cmd_econ.cpp
  cli/cmd_search.cpp
  cli/progress_printer.cpp
  cli/cmd_recommend.cpp
  cli/cmd_monitor.cpp
  cli/cmd_sweep.cpp
)
