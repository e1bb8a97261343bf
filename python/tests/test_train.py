"""train, memory, train_many, search, recommend: the same answers as the CLI."""
import threading

import pytest

import gpuplan
from conftest import FIXTURE_CATALOG, cli_json, run_cli

PLAN = dict(model="llama3.1-70b", gpu="h100-sxm", gpus=64, tp=8, pp=2)
PLAN_FLAGS = ["--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8", "--pp", "2"]


def test_train_is_the_cli_answer():
    r = gpuplan.train(**PLAN)
    cli = cli_json("train", *PLAN_FLAGS)
    # The whole JSON object, not a few fields: to_dict() is report/'s writer.
    assert r.to_dict() == cli
    assert r.step_time_s > 0
    assert repr(r.step_time_s) in run_cli("train", *PLAN_FLAGS, "--json")[0]
    assert str(r) == run_cli("train", *PLAN_FLAGS)[0]


def test_train_typed_fields_agree_with_dict():
    r = gpuplan.train(**PLAN, sp=True, zero=1, global_batch=256, seq_len=8192, recompute="selective")
    d = r.to_dict()
    flat = repr(d)
    assert r.feasible and r.reason == ""
    assert r.gpus == 64
    assert 0 < r.mfu < 1
    assert r.tokens_per_s == pytest.approx(256 * 8192 / r.step_time_s)
    assert r.plan["tp"] == 8 and r.plan["pp"] == 2 and r.plan["dp"] == 4
    assert repr(r.step_time_s) in flat  # the same double, written once
    assert r.memory_bytes <= r.memory_capacity_bytes


def test_elementwise_is_the_cli_answer():
    r = gpuplan.train(**PLAN, elementwise="eager")
    assert r.to_dict() == cli_json("train", *PLAN_FLAGS, "--elementwise", "eager")
    assert r.plan["elementwise"] == "eager"
    assert r.step_time_s > gpuplan.train(**PLAN).step_time_s


def test_infeasible_plan_is_a_value_not_an_error():
    r = gpuplan.train(model="llama3.1-70b", gpu="h100-sxm", gpus=8, tp=8)
    assert not r.feasible
    assert "GiB" in r.reason and "usable" in r.reason


def test_memory_is_the_cli_answer():
    r = gpuplan.memory(**PLAN)
    assert r.to_dict() == cli_json("memory", *PLAN_FLAGS)
    assert r.total_bytes == r.train.memory_bytes


@pytest.mark.parametrize(
    "kwargs, flags",
    [
        (dict(model="llama3.1-70b", gpu="h10"), ["--model", "llama3.1-70b", "--gpu", "h10"]),
        (dict(model="llama3.1-70b", tp=0), ["--model", "llama3.1-70b", "--tp", "0"]),
        (dict(model="llama3.1-70b", gpu="h100-sxm", gpus=64, tp=8, pp=3), [
            "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8", "--pp", "3"]),
    ],
)
def test_errors_carry_the_cli_message(kwargs, flags):
    """The CLI's message, each flag said as its keyword (issue 33: --gpus 64 -> gpus 64)."""
    import re

    with pytest.raises(gpuplan.Error) as e:
        gpuplan.train(**kwargs)
    err = cli_json_error("train", *flags)
    assert str(e.value) == re.sub(r"--([a-z][a-z0-9-]*)", lambda m: m.group(1).replace("-", "_"), err)
    assert isinstance(e.value, ValueError)


def cli_json_error(*args):
    import json

    out, _ = run_cli(*args, "--json", expect_rc=2)
    return json.loads(out)["error"]["message"]


def test_unknown_keyword_suggests_the_near_one():
    with pytest.raises(gpuplan.Error, match=r"train\(\): unknown keyword 'tpp'; did you mean 'tp'\?"):
        gpuplan.train(model="llama3.1-8b", tpp=2)


@pytest.mark.parametrize("value", [True, "8", 8.0])
def test_int_keywords_are_strict(value):
    with pytest.raises(gpuplan.Error, match=r"train\(tp=.*\): expected an integer"):
        gpuplan.train(model="llama3.1-8b", tp=value)


def test_model_is_required():
    with pytest.raises(gpuplan.Error, match=r"train\(\): model is required"):
        gpuplan.train(gpu="h100-sxm")


def grid(n):
    """n train() requests over a grid of plans (tp, pp, dp, micro-batch, ZeRO, recompute)."""
    out = []
    for tp in (1, 2, 4, 8):
        for pp in (1, 2, 4):
            for dp in (1, 2, 4):
                for mb in (1, 2):
                    for zero in (0, 1, 3):
                        for rc in ("none", "selective", "full"):
                            out.append(dict(model="llama3.1-8b", gpu="h100-sxm", tp=tp, pp=pp, dp=dp,
                                            micro_batch=mb, global_batch=dp * mb * 4, zero=zero,
                                            recompute=rc, seq_len=4096))
    return out[:n]


def test_train_many_is_train_in_order_on_any_thread_count():
    reqs = grid(60)
    one = gpuplan.train_many(reqs, threads=1)
    many = gpuplan.train_many(reqs, threads=4)
    assert len(one) == len(many) == len(reqs)
    for req, a, b in zip(reqs, one, many):
        single = gpuplan.train(**req)
        assert a.to_dict() == b.to_dict() == single.to_dict()


def test_train_many_names_the_bad_request():
    reqs = grid(3) + [dict(model="llama3.1-8b", gpu="h10")]
    with pytest.raises(gpuplan.Error, match=r"^requests\[3\]: unknown GPU 'h10'"):
        gpuplan.train_many(reqs)
    with pytest.raises(gpuplan.Error, match=r"^requests\[1\]: train_many\(\): unknown keyword 'tpx'"):
        gpuplan.train_many([grid(1)[0], dict(model="llama3.1-8b", tpx=1)])
    with pytest.raises(gpuplan.Error, match="threads=0"):
        gpuplan.train_many(grid(2), threads=0)


def test_calls_from_python_threads_agree():
    # The GIL is released inside each call: threads run the library at once and must not
    # disturb each other.
    reqs = grid(24)
    expected = [gpuplan.train(**r).step_time_s for r in reqs]
    got = [None] * len(reqs)

    def work(i):
        got[i] = gpuplan.train(**reqs[i]).step_time_s

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(reqs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


SEARCH = dict(model="llama3.1-8b", gpu="h100-sxm", gpus=16, global_batch=64, seq_len=4096, threads=2)
SEARCH_FLAGS = ["--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "16", "--global-batch", "64",
                "--seq-len", "4096", "--threads", "2"]


def strip_timing(d):
    # What depends on the threads' timing: pruning bounds tighten as workers finish plans.
    return {k: v for k, v in d.items() if k not in ("elapsed_s", "evaluated", "feasible", "pruned")}


def test_search_is_the_cli_answer_and_top_is_a_table():
    r = gpuplan.search(**SEARCH)
    cli = cli_json("search", *SEARCH_FLAGS)
    assert strip_timing(r.to_dict()) == strip_timing(cli)
    top = r.top
    pandas = pytest.importorskip("pandas")
    assert isinstance(top, pandas.DataFrame)
    assert len(top) == len(cli["top"]) == 3
    assert "plan.tp" in top.columns
    assert r.best == cli["best"]


def test_tables_are_lists_without_pandas(no_pandas):
    r = gpuplan.search(**SEARCH)
    assert isinstance(r.top, list) and r.top[0] == r.best
    assert isinstance(gpuplan.gpus(), list)


def test_recommend_front_is_a_table():
    r = gpuplan.recommend(model="llama3-8b", tokens="100B", gpus_list=[8, 16], time_limit_s=2, threads=2)
    cli = cli_json("recommend", "--model", "llama3-8b", "--tokens", "100B", "--gpus-list", "8,16",
                   "--threads", "2")
    d, c = r.to_dict(), cli
    for x in (d, c):
        x.pop("elapsed_s", None)
    assert d == c
    front = r.front
    assert len(front) == len(cli["front"]) > 0
    assert gpuplan.recommend(model="llama3-8b", tokens=100e9, gpus_list=[8, 16], threads=2).to_dict()["front"] == cli["front"]


def test_user_catalog_folder():
    cat = gpuplan.Catalog([str(FIXTURE_CATALOG)])
    r = gpuplan.train(model="llama3.1-8b", gpu="fixture-gpu", gpus=8, tp=8, catalog=cat)
    cli = cli_json("--catalog", str(FIXTURE_CATALOG), "train", "--model", "llama3.1-8b", "--gpu", "fixture-gpu",
                   "--gpus", "8", "--tp", "8")
    assert r.to_dict() == cli
    # A path works as well as a Catalog object; the built-in catalog does not know the GPU.
    assert gpuplan.train(model="llama3.1-8b", gpu="fixture-gpu", gpus=8, tp=8, catalog=str(FIXTURE_CATALOG)).step_time_s == r.step_time_s
    with pytest.raises(gpuplan.Error, match="fixture-gpu"):
        gpuplan.train(model="llama3.1-8b", gpu="fixture-gpu", gpus=8, tp=8)
