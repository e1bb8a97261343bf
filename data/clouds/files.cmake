list(APPEND GPUPLAN_DATA_FILES
  clouds/aws.toml
  clouds/azure.toml
  clouds/ccir-index.toml
  clouds/coreweave.toml
  clouds/gcp.toml
  clouds/lambda.toml
  clouds/runpod.toml
  clouds/spheron.toml
  clouds/vast.toml
)
