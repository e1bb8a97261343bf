"""Hostile input through the Python module (issue 34): every bad number is gpuplan.Error naming
the keyword (issue 33: not the CLI's flag), never a NaN in an answer, a silent default or a crash; a FIFO, a device or a
directory given as a config path is refused at once, never read until memory runs out."""
import math
import os
import tempfile
import time

import pytest

import gpuplan

TRAIN = dict(model="llama3.1-8b", gpu="h100-sxm", gpus=8)
INFER = dict(model="llama3.1-8b", gpu="h100-sxm")

BAD_NUMBERS = [float("nan"), float("inf"), float("-inf"), -5.0]

TRAIN_FLOAT_KEYWORDS = ["moe_imbalance", "overhead_gib", "memory_headroom_gib"]
TRAIN_INT_KEYWORDS = ["gpus", "tp", "pp", "vp", "dp", "cp", "ep", "dp_shard", "micro_batch", "global_batch", "seq_len",
                      "zero", "optimizer_state_bits"]
INFER_FLOAT_KEYWORDS = ["batch", "concurrency", "spec_acceptance", "prefix_hit_rate", "shared_prefix_tokens",
                        "slo_ttft_ms", "slo_tpot_ms", "request_rate"]
INFER_SEARCH_FLOAT_KEYWORDS = ["ttft_ms", "tpot_ms", "rate"]


def flag(keyword):
    """The message names the keyword: as the library's field (`tp -5: must be at least 1`, where
    the CLI says --tp; issue 33), or where the module refuses it first (`infer(batch=nan):
    expected a finite number`). Never the CLI's flag."""
    return "(^|[ (])" + keyword + "(=| )"


@pytest.mark.parametrize("keyword", TRAIN_FLOAT_KEYWORDS)
@pytest.mark.parametrize("value", BAD_NUMBERS, ids=repr)
def test_train_bad_float_is_an_error_naming_the_flag(keyword, value):
    with pytest.raises(gpuplan.Error, match=flag(keyword)):
        gpuplan.train(**{**TRAIN, keyword: value})


@pytest.mark.parametrize("keyword", TRAIN_INT_KEYWORDS)
@pytest.mark.parametrize("value", [-5, -1])
def test_train_negative_int_is_an_error_naming_the_flag(keyword, value):
    with pytest.raises(gpuplan.Error, match=flag(keyword)):
        gpuplan.train(**{**TRAIN, keyword: value})


@pytest.mark.parametrize("keyword", INFER_FLOAT_KEYWORDS)
@pytest.mark.parametrize("value", BAD_NUMBERS, ids=repr)
def test_infer_bad_float_is_an_error_naming_the_flag(keyword, value):
    with pytest.raises(gpuplan.Error, match=flag(keyword)):
        gpuplan.infer(**{**INFER, keyword: value})


@pytest.mark.parametrize("keyword", INFER_SEARCH_FLOAT_KEYWORDS)
@pytest.mark.parametrize("value", BAD_NUMBERS + [0.0], ids=repr)
def test_infer_search_bad_target_is_an_error_naming_the_flag(keyword, value):
    if keyword == "rate" and value == 0.0:
        pytest.skip("rate 0 is one replica, documented")
    with pytest.raises(gpuplan.Error, match=flag(keyword)):
        gpuplan.infer_search(**{**INFER, keyword: value})


def test_structural_rules_are_errors_with_the_fix():
    with pytest.raises(gpuplan.Error, match=r"^pp 64 .*use pp 32 or fewer"):
        gpuplan.train(model="llama3.1-8b", gpu="h100-sxm", gpus=64, pp=64)
    with pytest.raises(gpuplan.Error, match=r"^ep 8 on llama3.1-8b, a dense model"):
        gpuplan.train(model="llama3.1-8b", gpu="h100-sxm", gpus=64, ep=8)
    with pytest.raises(gpuplan.Error, match=r"^tp 3: .* use tp 1, 2, 4 or 8"):
        gpuplan.infer(model="llama3.1-8b", gpu="h100-sxm", tp=3)


def test_answers_hold_no_nan():
    r = gpuplan.train(**TRAIN)
    for key, value in r.to_dict().items():
        if isinstance(value, float):
            assert math.isfinite(value), key


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_model_from_config_refuses_what_is_not_a_file_at_once(kind):
    with tempfile.TemporaryDirectory() as d:
        if kind == "fifo":
            path = os.path.join(d, "config.json")
            os.mkfifo(path)
        elif kind == "device":
            path = "/dev/zero"
        else:
            path = os.path.join(d, "folder.json")
            os.mkdir(path)
        t0 = time.monotonic()
        with pytest.raises(gpuplan.Error):
            gpuplan.model_from_config(path)
        assert time.monotonic() - t0 < 5


def test_model_from_config_deep_nesting_is_an_error():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "config.json")
        with open(path, "w") as f:
            f.write("[" * 100000 + "]" * 100000)
        with pytest.raises(gpuplan.Error, match="nest deeper than 64"):
            gpuplan.model_from_config(path)
