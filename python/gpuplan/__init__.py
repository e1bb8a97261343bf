"""gpuplan: plan GPU training and serving from Python.

The questions of the `gpuplan` command line, as functions over the same compiled library
(libgpuplan): keyword arguments are the CLI's flags with '-' as '_', results are typed objects
whose ``str()`` is the CLI's text report and whose ``to_dict()`` is its ``--json`` object.
Bad input raises :class:`gpuplan.Error` (a ``ValueError``) naming the keyword, the value and
the fix (its ``field`` is the keyword).

    >>> import gpuplan
    >>> r = gpuplan.train(model="llama3.1-70b", gpu="h100-sxm", gpus=64, tp=8, pp=2)
    >>> r.step_time_s, r.mfu

See docs/python.md.
"""

from ._gpuplan import (  # noqa: F401  (the public API)
    CalibrationValidation,
    Catalog,
    CloudsResult,
    CollectiveResult,
    CollectiveValidation,
    CompareResult,
    CostResult,
    EnergyResult,
    Error,
    GpuResult,
    InferResult,
    InferSearchResult,
    InferValidation,
    LaunchConfig,
    MemoryResult,
    Model,
    RecommendResult,
    RooflinesResult,
    SearchResult,
    ServeRecommendResult,
    SweepResult,
    SystemResult,
    TcoResult,
    TrainingCalibration,
    TrainResult,
    TrainValidation,
    builtin_catalog,
    calibrate_training,
    clouds,
    collective,
    compare,
    cost,
    energy,
    gpu,
    gpus,
    import_topology,
    infer,
    infer_search,
    memory,
    model,
    monitor,
    model_from_config,
    models,
    recommend,
    rooflines,
    search,
    sweep,
    system,
    systems,
    tco,
    train,
    train_many,
    validate_calibration,
    validate_collectives,
    validate_inference,
    validate_training,
)

__version__ = "0.1.0"

__all__ = [
    "CalibrationValidation", "Catalog", "CloudsResult", "CollectiveResult", "CollectiveValidation",
    "CompareResult", "CostResult", "EnergyResult", "Error", "GpuResult", "InferResult",
    "InferSearchResult", "InferValidation", "LaunchConfig", "MemoryResult", "Model", "RecommendResult",
    "RooflinesResult", "SearchResult", "ServeRecommendResult", "SweepResult", "SystemResult", "TcoResult", "TrainingCalibration",
    "TrainResult", "TrainValidation", "builtin_catalog", "calibrate_training", "clouds", "collective",
    "compare", "cost", "energy", "gpu", "gpus", "import_topology", "infer", "infer_search", "memory",
    "model", "model_from_config", "models", "monitor", "recommend", "rooflines", "search", "sweep", "system",
    "systems",
    "tco", "train", "train_many", "validate_calibration", "validate_collectives", "validate_inference",
    "validate_training",
]
