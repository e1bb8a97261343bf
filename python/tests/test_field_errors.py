"""Library errors name the field in each interface's words (issue 33): Python says the keyword
where the CLI says the flag, from the same field tables, and gpuplan.Error.field is the keyword."""
import pytest

import gpuplan
from conftest import cli_json, run_cli


def cli_error(*args):
    _, err = run_cli(*args, expect_rc=2)
    return err.strip().removeprefix("gpuplan: error: ")


def python_error(call, **kwargs):
    with pytest.raises(gpuplan.Error) as e:
        call(**kwargs)
    return e.value


def test_train_names_the_keyword_not_the_flag():
    e = python_error(gpuplan.train, model="llama3.1-8b", global_batch=7, gpus=8)
    cli = cli_error("train", "--model", "llama3.1-8b", "--global-batch", "7", "--gpus", "8")
    assert cli.startswith("--global-batch 7: not a multiple of dp 8 × --micro-batch 1")
    assert str(e) == cli.replace("--global-batch", "global_batch").replace("--micro-batch", "micro_batch")
    assert "--" not in str(e)


def test_train_range_check_carries_the_field():
    e = python_error(gpuplan.train, model="llama3.1-8b", tp=0)
    assert str(e).startswith("tp 0: must be at least 1")
    assert e.field == "tp"
    assert cli_error("train", "--model", "llama3.1-8b", "--tp", "0").startswith("--tp 0: must be at least 1")
    e = python_error(gpuplan.memory, model="llama3.1-8b", gpu="h100-sxm", seq_len=-3)
    assert e.field == "seq_len"
    assert str(e).startswith("seq_len -3: must be at least 1")


def test_train_many_names_the_keyword_and_the_index():
    with pytest.raises(gpuplan.Error) as e:
        gpuplan.train_many([{"model": "llama3.1-8b", "gpu": "h100-sxm"},
                            {"model": "llama3.1-8b", "gpu": "h100-sxm", "micro_batch": 0}], threads=1)
    assert str(e.value).startswith("requests[1]: micro_batch 0: must be at least 1")


def test_search_names_the_keyword():
    e = python_error(gpuplan.search, model="llama3.1-8b", gpus=8, global_batch=8, seq_len=0)
    assert cli_error("search", "--model", "llama3.1-8b", "--gpus", "8", "--global-batch", "8", "--seq-len", "0") == (
        "--seq-len 0: must be at least 1; omit --seq-len for the model's pretraining length")
    assert str(e) == "seq_len 0: must be at least 1; omit seq_len for the model's pretraining length"
    assert e.field == "seq_len"


def test_infer_names_the_keyword():
    e = python_error(gpuplan.infer, model="llama3.1-8b", gpu="h100-sxm", input_len=0)
    assert cli_error("infer", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--input-len", "0") == (
        "--input-len 0: a request needs at least 1 prompt token; use --input-len 1 or more")
    assert str(e) == "input_len 0: a request needs at least 1 prompt token; use input_len 1 or more"


def test_infer_search_names_the_keyword():
    e = python_error(gpuplan.infer_search, model="llama3.1-8b", gpu="h100-sxm", ttft_ms=-5.0)
    assert cli_error("infer-search", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--ttft-ms=-5").startswith(
        "--ttft-ms -5: a time target cannot be negative")
    assert str(e).startswith("ttft_ms -5: a time target cannot be negative")


def test_an_error_about_no_one_field_has_field_none():
    e = python_error(gpuplan.train, model="no-such-model")
    assert e.field is None
    assert "unknown model 'no-such-model'" in str(e)


def test_recommend_names_the_keyword():
    # The same rule in the library for every interface: a serving field needs serve=True.
    assert cli_error("recommend", "--model", "llama3-8b", "--tokens", "100B", "--ttft-ms", "500") == (
        "--ttft-ms needs --serve")
    e = python_error(gpuplan.recommend, model="llama3-8b", tokens="100B", ttft_ms=500.0)
    assert str(e) == "ttft_ms needs serve"
    assert e.field == "ttft_ms"
    e = python_error(gpuplan.recommend, model="llama3-8b", serve=True, tokens="100B")
    assert str(e) == "tokens is for training; drop it with serve"
    # An alias of the CLI (--deadline for deadline_days) is said as the keyword.
    e = python_error(gpuplan.recommend, model="llama3-8b", tokens="100B", deadline_days=-1.0)
    assert "--" not in str(e) and "deadline_days" in str(e)


def test_recommend_serve_is_the_cli_answer():
    r = gpuplan.recommend(model="llama3.1-8b", serve=True, tpot_ms=30.0, engine="tensorrt-llm", providers="lambda")
    assert isinstance(r, gpuplan.ServeRecommendResult)
    cli = run_cli("recommend", "--serve", "--model", "llama3.1-8b", "--tpot-ms", "30", "--engine", "tensorrt-llm",
                  "--providers", "lambda", "--json")[0]
    import json
    d, c = r.to_dict(), json.loads(cli)
    for x in (d, c):
        x.pop("elapsed_s", None)
    assert d == c


def test_collective_and_cost_name_the_keyword():
    e = python_error(gpuplan.collective, op="allreduce", gpus=8, bytes="1GiB", system="dgx-h100", node_stride=0)
    assert "--" not in str(e) and "node_stride" in str(e)
    e = python_error(gpuplan.cost, gpu="h100-sxm", gpus=8, days=-2.0)
    assert "--" not in str(e) and "days" in str(e)


def test_econ_and_compare_errors_carry_the_field():
    # Tables for cost, tco, energy and compare: a number beyond 1e12 is refused naming the keyword
    # (gpuplan.Error.field), and compare's training fields need a model.
    e = python_error(gpuplan.tco, gpu="h100-sxm", gpus=8, years=1e13)
    assert e.field == "years" and str(e).startswith("years 1e+13: too large")
    e = python_error(gpuplan.energy, gpu="h100-sxm", gpus=8, hours=1e13)
    assert e.field == "hours" and "--" not in str(e)
    e = python_error(gpuplan.compare, names=["h100-sxm", "h200-sxm"], gpus=8)
    assert e.field == "gpus" and "--" not in str(e) and "add model" in str(e)
    e = python_error(gpuplan.energy, gpus=8, hours=1)
    assert e.field == "gpu" and str(e) == "energy(): gpu is required: a GPU id (see gpuplan.gpus())"
    e = python_error(gpuplan.cost, gpu="h100-sxm", gpus=8, days=2, provider_name="aws")
    assert "provider_name" in str(e)


def test_compare_with_a_model_is_the_cli_answer():
    r = gpuplan.compare(names=["h100-sxm", "h200-sxm"], model="llama3.1-8b", gpus=8, global_batch=64, seq_len=4096)
    assert r.ids == ["h100-sxm", "h200-sxm"]
    d = r.to_dict()
    c = cli_json("compare", "h100-sxm", "h200-sxm", "--model", "llama3.1-8b", "--gpus", "8", "--global-batch", "64",
                 "--seq-len", "4096")
    assert d["training"]["sides"][1]["speed_vs_first"] == c["training"]["sides"][1]["speed_vs_first"]
    assert d == c


def test_rooflines_names_the_keyword_from_its_table():
    # "inf" passed the old `value > 0` check: the CLI's flag now meets the table's number rules, and
    # Python's keyword reader refuses it before the library sees it.
    assert cli_error("rooflines", "--gpu", "h100-sxm", "--ffn", "inf").startswith("--ffn inf: not a finite number")
    assert "ffn=inf" in str(python_error(gpuplan.rooflines, gpu="h100-sxm", ffn=float("inf")))
    e = python_error(gpuplan.rooflines, gpu="h100-sxm", ffn=0)
    assert e.field == "ffn"
    assert str(e) == "ffn 0: must be positive"
    e = python_error(gpuplan.rooflines, gpu="h100-sxm", ep=0)
    assert e.field == "ep"
    assert str(e) == cli_error("rooflines", "--gpu", "h100-sxm", "--ep", "0").replace("--ep", "ep")


def test_gpu_and_system_name_is_the_tables_required_field():
    for call in (gpuplan.gpu, gpuplan.system):
        e = python_error(call)
        assert e.field == "name"
        assert "name is required" in str(e)
        e = python_error(call, name="")
        assert e.field == "name"
