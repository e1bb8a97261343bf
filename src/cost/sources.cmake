# Sources of src/cost (paths relative to src/).
