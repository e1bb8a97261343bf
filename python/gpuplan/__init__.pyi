# Type stubs for gpuplan (the compiled module gpuplan._gpuplan, re-exported here).
# Keyword arguments are the CLI flags of the same command with '-' as '_' (docs/cli.md).
from os import PathLike
from typing import Any, Mapping, Optional, Sequence, Union

__version__: str

Path = Union[str, "PathLike[str]"]
CatalogArg = Union["Catalog", Path, Sequence[Path], None]
Table = Any  # pandas.DataFrame where pandas is installed, else list[dict[str, Any]]

class Error(ValueError):
    """Bad input: the message names the keyword, the value and the fix."""
    field: Optional[str]  # the keyword the error is about (train(tp=0): "tp"); None when no one field

class Catalog:
    paths: list[str]
    embedded: bool
    def __init__(self, paths: Sequence[str] = ..., embedded: bool = True) -> None: ...

def builtin_catalog() -> Catalog: ...

class _Result:
    def to_dict(self) -> dict[str, Any]: ...
    def to_json(self, indent: int = 2) -> str: ...

class LaunchConfig(_Result):
    framework: str
    version: str
    flags: dict[str, str]
    files: dict[str, str]

class TrainResult(_Result):
    def emit(self, framework: str) -> LaunchConfig: ...
    feasible: bool
    reason: str
    step_time_s: float
    tokens_per_s: float
    tokens_per_s_per_gpu: float
    mfu: float
    hfu: float
    tflops_per_gpu: float
    gpus: int
    bubble_fraction: float
    tensor_clock_factor: float
    gemm_clock_factor: float
    memory_bytes: float
    memory_capacity_bytes: float
    bottleneck: str
    plan: dict[str, Any]
    nearest_feasible_plans: list[dict[str, Any]]

class MemoryResult(_Result):
    total_bytes: float
    capacity_bytes: float
    fits: bool
    train: TrainResult

class SearchResult(_Result):
    top: Table
    best: Optional[dict[str, Any]]
    evaluated: int

class RecommendResult(_Result):
    front: Table
    pick: Optional[dict[str, Any]]

class ServeRecommendResult(_Result):
    front: Table
    pick: Optional[dict[str, Any]]

class InferResult(_Result):
    def emit(self, framework: str) -> LaunchConfig: ...
    feasible: bool
    reason: str
    ttft_s: float
    tpot_s: float
    output_tokens_per_s: float
    output_tokens_per_s_per_gpu: float
    requests_per_s: float
    running_batch: float

class InferSearchResult(InferResult):
    found: bool

class CollectiveResult(_Result):
    rows: Table

class GpuResult(_Result):
    id: str
    calibrated: bool

class CompareResult(_Result):
    ids: list[str]

class SystemResult(_Result):
    id: str
    kind: str  # "system" or "fabric"

class CloudsResult(_Result):
    rows: Table

class RooflinesResult(_Result): ...

class EnergyResult(_Result):
    facility_kwh: float
    kg_co2: float
    usd: float

class TrainingCalibration(_Result):
    calibration: dict[str, Any]
    out: str
    runs: Table

class CalibrationValidation(_Result): ...

class SweepResult(_Result):
    written: list[str]
    cells: Table

class CostResult(_Result):
    rows: Table

class TcoResult(_Result):
    rows: Table

class Model(_Result):
    id: str
    name: str
    family: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    vocab: int
    max_seq_len: int
    seq_len: int

class TrainValidation(_Result):
    rows: Table

class InferValidation(_Result):
    rows: Table

class CollectiveValidation(_Result):
    rows: Table

def train(
    *,
    model: Path,
    gpu: str = ...,
    system: str = ...,
    fabric: str = ...,
    gpus: Optional[int] = None,
    tp: int = 1,
    pp: int = 1,
    vp: int = 1,
    dp: Optional[int] = None,
    cp: int = 1,
    ep: int = 1,
    sp: bool = False,
    zero: int = 0,
    dp_shard: Optional[int] = None,
    micro_batch: int = 1,
    global_batch: int = 0,
    seq_len: Optional[int] = None,
    allow_longer_context: bool = False,
    recompute: str = "none",
    recompute_modules: str = "",
    cuda_graphs: str = "",
    precision: str = "bf16",
    tp_overlap: bool = True,
    moe_overlap: str = "none",
    moe_dispatcher: str = "alltoall",
    moe_imbalance: float = 1.0,
    framework: str = ...,
    overhead_gib: Optional[float] = None,
    memory_headroom_gib: float = 0,
    pp_embedding_head_slots: bool = False,
    pp_layout: str = "",
    mtp_layers: int = 0,
    optimizer_state_bits: int = 32,
    fp8_recipe: str = "",
    fp8_activation_cache: bool = False,
    fp8_params: bool = False,
    nvfp4_rht: bool = True,
    offload_optimizer: bool = False,
    offload_activation_layers: int = 0,
    elementwise: str = "fused",
    calibration: Path = ...,
    catalog: CatalogArg = None,
) -> TrainResult: ...
def memory(*, model: Path, catalog: CatalogArg = None, **plan: Any) -> MemoryResult: ...
def train_many(
    requests: Sequence[Mapping[str, Any]], *, threads: Optional[int] = None, catalog: CatalogArg = None
) -> list[TrainResult]: ...
def search(
    *,
    model: Path,
    gpus: int,
    global_batch: int,
    gpu: str = ...,
    system: str = ...,
    fabric: str = ...,
    seq_len: Optional[int] = None,
    allow_longer_context: bool = False,
    precision: str = "bf16",
    framework: str = ...,
    top: int = 3,
    objective: str = "time",
    threads: Optional[int] = None,
    usd_per_gpu_hour: float = 0,
    no_prune: bool = False,
    time_limit_s: float = 0,
    calibration: Path = ...,
    memory_headroom_gib: float = 0,
    optimizer_state_bits: int = 32,
    fp8_recipe: str = "",
    fp8_activation_cache: bool = False,
    fp8_params: bool = False,
    offload_optimizer: bool = False,
    elementwise: str = "fused",
    catalog: CatalogArg = None,
) -> SearchResult: ...
def recommend(
    *,
    model: str,
    tokens: Union[str, float, None] = None,
    deadline_days: Optional[float] = None,
    budget_usd: Optional[float] = None,
    cost_tolerance: float = 0.05,
    gpus_max: Optional[int] = None,
    gpus_list: Sequence[int] = ...,
    providers: Union[str, Sequence[str]] = ...,
    global_batch: int = 1024,
    seq_len: int = 0,
    precision: str = "bf16",
    time_limit_s: float = 2,
    threads: int = 0,
    serve: bool = False,
    input_len: int = 1024,
    output_len: int = 256,
    rate_rps: Optional[float] = None,
    ttft_ms: Optional[float] = None,
    tpot_ms: Optional[float] = None,
    engine: str = "vllm",
    weights: str = "",
    catalog: CatalogArg = None,
) -> Union[RecommendResult, ServeRecommendResult]: ...
def infer(
    *,
    model: Path,
    gpu: str,
    engine: str = "vllm",
    system: str = ...,
    weights: str = "bf16",
    kv: str = ...,
    input_len: int = 1024,
    output_len: int = 256,
    calibration: Path = ...,
    allow_longer_context: bool = False,
    router_imbalance: float = 1.0,
    gpus: Optional[int] = None,
    tp: Optional[int] = None,
    pp: int = 1,
    ep: int = 1,
    attention_dp: int = 1,
    batch: Optional[float] = None,
    concurrency: Optional[float] = None,
    max_throughput: bool = False,
    spec_draft_tokens: int = 0,
    spec_acceptance: Optional[float] = None,
    spec_draft: str = "mtp",
    prefix_hit_rate: Optional[float] = None,
    shared_prefix_tokens: Optional[float] = None,
    disagg: str = "",
    disagg_prefill_tp: Optional[int] = None,
    disagg_decode_tp: Optional[int] = None,
    disagg_prefill_gpu: str = "",
    slo_ttft_ms: Optional[float] = None,
    slo_tpot_ms: Optional[float] = None,
    request_rate: Optional[float] = None,
    max_batch_size: Optional[float] = None,
    max_num_tokens: Optional[float] = None,
    chunked_prefill: str = "",
    sim_requests: Optional[int] = None,
    sim_seed: int = 0,
    sim_warmup: int = 0,
    input_spread: float = 0.0,
    output_spread: float = 0.0,
    random_range_ratio: float = 1.0,
    lengths_csv: str = "",
    catalog: CatalogArg = None,
) -> InferResult: ...
def infer_search(
    *,
    model: Path,
    gpu: str,
    engine: str = "vllm",
    system: str = ...,
    weights: Optional[str] = None,
    kv: str = ...,
    input_len: int = 1024,
    output_len: int = 256,
    calibration: Path = ...,
    allow_longer_context: bool = False,
    router_imbalance: float = 1.0,
    gpus_max: int = 8,
    ttft_ms: Optional[float] = None,
    tpot_ms: Optional[float] = None,
    rate: float = 0,
    slo_percentile: Optional[float] = None,
    objective: str = "throughput",
    disagg_prefill_gpus: Union[str, Sequence[str]] = ...,
    catalog: CatalogArg = None,
) -> InferSearchResult: ...
def collective(
    *,
    op: str,
    gpus: int,
    bytes: Union[str, int, None] = None,
    system: str = ...,
    nodes: Optional[int] = None,
    node_stride: int = 1,
    fabric: str = ...,
    algorithm: str = "auto",
    dtype: str = "bf16",
    concurrent: int = 1,
    ideal: bool = False,
    sweep: bool = False,
    calibration: Path = ...,
    catalog: CatalogArg = None,
) -> CollectiveResult: ...
def cost(
    *,
    gpu: str,
    gpu_hours: Optional[float] = None,
    gpus: Optional[int] = None,
    days: Optional[float] = None,
    hours: Optional[float] = None,
    model: str = ...,
    tokens: Union[str, float, None] = None,
    rule_of_thumb: bool = False,
    mfu: float = 0.4,
    system: str = ...,
    seq_len: Optional[int] = None,
    global_batch: Optional[int] = None,
    provider: str = ...,
    instance: str = ...,
    all: bool = False,
    usd_per_hour: Optional[float] = None,
    usd_per_gpu_hour: Optional[float] = None,
    spot_overhead: Optional[float] = None,
    spot_discount: Optional[float] = None,
    interruptions_per_day: Optional[float] = None,
    restart_hours: Optional[float] = None,
    checkpoint_hours: Optional[float] = None,
    catalog: CatalogArg = None,
) -> CostResult: ...
def tco(
    *,
    gpu: str,
    gpus: Optional[int] = None,
    system: str = ...,
    years: Optional[float] = None,
    capex: Optional[float] = None,
    power_kw: Optional[float] = None,
    pue: Optional[float] = None,
    usd_per_kwh: Optional[float] = None,
    ops_usd_per_year: Optional[float] = None,
    cloud_usd_per_hour: Optional[float] = None,
    provider: str = ...,
    all: bool = False,
    catalog: CatalogArg = None,
) -> TcoResult: ...
def gpus(
    *,
    vendor: str = "",
    gpus_only: bool = False,
    catalog: CatalogArg = None,
) -> Table: ...
def models(*, catalog: CatalogArg = None) -> Table: ...
def model(name: Path, *, seq_len: Optional[int] = None, catalog: CatalogArg = None) -> Model: ...
def model_from_config(config: Union[Path, Mapping[str, Any]], *, seq_len: Optional[int] = None) -> Model: ...
def validate_training(
    file: Path, *, leave_one_source_out: bool = False, fit: bool = False, catalog: CatalogArg = None
) -> TrainValidation: ...
def validate_inference(file: Path, *, catalog: CatalogArg = None) -> InferValidation: ...
def validate_collectives(
    file: Path,
    *,
    leave_one_source_out: bool = False,
    leave_one_gpu_out: bool = False,
    fit: bool = False,
    catalog: CatalogArg = None,
) -> CollectiveValidation: ...
def import_topology(
    file: Path,
    *,
    gpu: str = ...,
    format: str = ...,
    id: str = ...,
    nic: str = ...,
    nic_gbit: float = ...,
    catalog: CatalogArg = None,
) -> dict[str, Any]: ...
def gpu(
    *,
    name: str,
    calibration: Path = ...,
    catalog: CatalogArg = None,
) -> GpuResult: ...
def compare(
    *,
    names: Sequence[str],
    model: str = ...,
    gpus: int = 0,
    global_batch: int = 0,
    seq_len: Optional[int] = None,
    precision: str = "bf16",
    catalog: CatalogArg = None,
) -> CompareResult: ...
def systems(*, catalog: CatalogArg = None) -> dict[str, Any]: ...
def system(
    *,
    name: str,
    catalog: CatalogArg = None,
) -> SystemResult: ...
def clouds(
    *,
    gpu: str = "",
    provider: str = "",
    all: bool = False,
    catalog: CatalogArg = None,
) -> CloudsResult: ...
def rooflines(
    *,
    gpu: str = ...,
    system: str = ...,
    fabric: str = ...,
    precision: str = "bf16",
    ffn: float = ...,
    experts: float = ...,
    topk: float = ...,
    ep: int = ...,
    catalog: CatalogArg = None,
) -> RooflinesResult: ...
def energy(
    *,
    gpu: str,
    gpus: int,
    hours: Optional[float] = None,
    days: Optional[float] = None,
    utilization: Optional[float] = None,
    watts_per_gpu: Optional[float] = None,
    pue: Optional[float] = None,
    kg_co2_per_kwh: Optional[float] = None,
    usd_per_kwh: Optional[float] = None,
    catalog: CatalogArg = None,
) -> EnergyResult: ...
def calibrate_training(runs: Path, *, out: Optional[Path] = None, catalog: CatalogArg = None) -> TrainingCalibration: ...
def validate_calibration(file: Path, *, system: str = "", catalog: CatalogArg = None) -> CalibrationValidation: ...
def sweep(
    spec: Path, *, out_csv: Optional[Path] = None, out_json: Optional[Path] = None, catalog: CatalogArg = None
) -> SweepResult: ...
def monitor(*, count: int = 1, interval_s: float = 1.0, nvml_library: str = "libnvidia-ml.so.1") -> list[dict[str, Any]]: ...
