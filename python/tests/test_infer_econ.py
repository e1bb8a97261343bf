"""infer, infer_search, collective, cost, tco: the same answers as the CLI."""
import pytest

import gpuplan
from conftest import FIXTURE_CATALOG, cli_json


def test_infer_is_the_cli_answer():
    r = gpuplan.infer(model="llama3.1-8b", gpu="h200-sxm", input_len=2048, output_len=256, max_throughput=True)
    cli = cli_json("infer", "--model", "llama3.1-8b", "--gpu", "h200-sxm", "--input-len", "2048",
                   "--output-len", "256", "--max-throughput")
    assert r.to_dict() == cli
    assert r.feasible and r.output_tokens_per_s > 0 and r.tpot_s > 0


def test_infer_serving_features_are_the_cli_answer():
    r = gpuplan.infer(model="llama3.1-70b", gpu="h100-sxm", tp=4, concurrency=8, spec_draft="llama3.1-8b",
                      spec_draft_tokens=4, spec_acceptance=0.8, prefix_hit_rate=0.5, disagg="4:4",
                      slo_ttft_ms=1000, slo_tpot_ms=50, request_rate=2)
    cli = cli_json("infer", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", "4", "--concurrency", "8",
                   "--spec-draft", "llama3.1-8b", "--spec-draft-tokens", "4", "--spec-acceptance", "0.8",
                   "--prefix-hit-rate", "0.5", "--disagg", "4:4", "--slo-ttft-ms", "1000", "--slo-tpot-ms", "50",
                   "--request-rate", "2")
    assert r.to_dict() == cli
    d = r.to_dict()
    # (1 - 0.8^5) / (1 - 0.8) = (1 - 0.32768) / 0.2 = 3.3616 tokens per verify step (Leviathan et al. 2023).
    assert d["speculative_decoding"]["expected_tokens_per_step"] == pytest.approx(3.3616)
    for key in ("prefix_cache", "disaggregated", "slo"):
        assert d[key]["feasible"]
    with pytest.raises(gpuplan.Error, match="^spec_acceptance 1.5"):
        gpuplan.infer(model="llama3.1-8b", gpu="h100-sxm", spec_draft_tokens=2, spec_acceptance=1.5)


def test_infer_attention_dp_is_the_cli_answer():
    r = gpuplan.infer(model="deepseek-v3", gpu="h200-sxm", engine="tensorrt-llm-1.0", tp=8, ep=8, attention_dp=8,
                      weights="fp8", input_len=1024, output_len=2048, concurrency=1024)
    cli = cli_json("infer", "--model", "deepseek-v3", "--gpu", "h200-sxm", "--engine", "tensorrt-llm-1.0", "--tp", "8",
                   "--ep", "8", "--attention-dp", "8", "--weights", "fp8", "--input-len", "1024",
                   "--output-len", "2048", "--concurrency", "1024")
    assert r.to_dict() == cli
    assert r.to_dict()["plan"]["label"] == "DEP8"
    with pytest.raises(gpuplan.Error, match="^attention_dp 3"):
        gpuplan.infer(model="deepseek-v3", gpu="h200-sxm", tp=8, ep=8, attention_dp=3, weights="fp8")


def test_infer_loads_exclude_each_other():
    with pytest.raises(gpuplan.Error, match="exclude each other"):
        gpuplan.infer(model="llama3.1-8b", gpu="h200-sxm", batch=4, concurrency=8)


def test_infer_search_is_the_cli_answer():
    r = gpuplan.infer_search(model="llama3.1-70b", gpu="h100-sxm", input_len=2048, output_len=256, tpot_ms=50)
    cli = cli_json("infer-search", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--input-len", "2048",
                   "--output-len", "256", "--tpot-ms", "50")
    assert r.to_dict() == cli
    assert r.found and r.tpot_s <= 0.050


def test_infer_disaggregated_over_two_gpu_types_is_the_cli_answer():
    r = gpuplan.infer(model="llama3.1-70b", gpu="h200-sxm", tp=4, max_throughput=True, disagg="8:8",
                      disagg_prefill_gpu="b200")
    cli = cli_json("infer", "--model", "llama3.1-70b", "--gpu", "h200-sxm", "--tp", "4", "--max-throughput",
                   "--disagg", "8:8", "--disagg-prefill-gpu", "b200")
    assert r.to_dict() == cli
    d = r.to_dict()["disaggregated"]
    assert (d["prefill_gpu"], d["decode_gpu"], d["fabric"]) == ("b200", "h200-sxm", "network")
    s = gpuplan.infer_search(model="llama3.1-70b", gpu="h200-sxm", input_len=4096, output_len=512, tpot_ms=50,
                             objective="cost", disagg_prefill_gpus=["h200-sxm", "b200"])
    cli = cli_json("infer-search", "--model", "llama3.1-70b", "--gpu", "h200-sxm", "--input-len", "4096",
                   "--output-len", "512", "--tpot-ms", "50", "--objective", "cost",
                   "--disagg-prefill-gpus", "h200-sxm,b200")
    assert s.to_dict() == cli
    best = s.to_dict()["disaggregated"]["best"]
    assert best["tpot_s"] <= 0.050 and best["prefill_gpu"] in ("h200-sxm", "b200")
    with pytest.raises(gpuplan.Error, match="^disagg_prefill_gpus 'h900'"):
        gpuplan.infer_search(model="llama3.1-70b", gpu="h200-sxm", disagg_prefill_gpus=["h900"])


def test_collective_is_the_cli_answer():
    r = gpuplan.collective(op="allreduce", bytes="1GiB", gpus=8, system="dgx-h100")
    cli = cli_json("collective", "--op", "allreduce", "--bytes", "1GiB", "--gpus", "8", "--system", "dgx-h100")
    assert r.to_dict() == cli
    # bytes as a number is the same question
    assert gpuplan.collective(op="allreduce", bytes=1 << 30, gpus=8, system="dgx-h100").to_dict() == cli


def test_cost_and_tco_on_the_fixture_catalog():
    cat = gpuplan.Catalog([str(FIXTURE_CATALOG)])
    c = gpuplan.cost(gpu="fixture-gpu", gpus=8, days=2, catalog=cat)
    assert c.to_dict() == cli_json("--catalog", str(FIXTURE_CATALOG), "cost", "--gpu", "fixture-gpu", "--gpus", "8",
                                   "--days", "2")
    assert len(c.rows) == len(c.to_dict()["rows"])
    t = gpuplan.tco(gpu="h100-sxm", system="dgx-h100", years=5)
    assert t.to_dict() == cli_json("tco", "--gpu", "h100-sxm", "--system", "dgx-h100", "--years", "5")


def test_cost_tokens_as_number_or_text():
    a = gpuplan.cost(gpu="h100-sxm", gpus=64, model="llama3-8b", tokens="100B")
    b = gpuplan.cost(gpu="h100-sxm", gpus=64, model="llama3-8b", tokens=100e9)
    assert a.to_dict() == b.to_dict()


def test_emit_is_the_cli_answer():
    r = gpuplan.infer(model="llama3.1-70b", gpu="h100-sxm", tp=4, weights="fp8", kv="fp8", concurrency=64)
    c = r.emit("vllm")
    assert c.to_dict() == cli_json("infer", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", "4", "--weights", "fp8",
                                   "--kv", "fp8", "--concurrency", "64", "--emit", "vllm")
    assert c.flags["--tensor-parallel-size"] == "4"
    assert "serve_vllm.sh" in c.files
    with pytest.raises(gpuplan.Error, match="--engine sglang"):
        r.emit("sglang")
    t = gpuplan.train(model="llama3.1-70b", gpu="h100-sxm", gpus=64, tp=8, pp=2).emit("megatron")
    assert t.flags["--pipeline-model-parallel-size"] == "2" and "job.sbatch" in t.files
