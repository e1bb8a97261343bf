# Sources of src/workload (paths relative to src/).
