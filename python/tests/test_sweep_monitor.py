"""sweep and monitor (issue 33: Python covers every question command): the CLI's library calls
and writers, so the same summary, the same result files and the same errors."""
import json

import pytest

import gpuplan
from conftest import SOURCE_DIR, cli_json, run_cli

SPEC = SOURCE_DIR / "tests" / "sweep" / "small_sweep.json"


def without_timings(summary):
    """The summary less what differs between two runs by nature: timings and the files' paths."""
    summary = dict(summary)
    for key in ("elapsed_s", "csv", "json"):
        summary.pop(key)
    summary["per_rank"] = [{k: v for k, v in r.items() if k != "elapsed_s"} for r in summary["per_rank"]]
    return summary


def test_sweep_is_the_cli_answer_and_writes_the_same_files(tmp_path, no_pandas):
    r = gpuplan.sweep(SPEC, out_csv=tmp_path / "py.csv", out_json=tmp_path / "py.json")
    cli = cli_json("sweep", str(SPEC), "--out-csv", str(tmp_path / "cli.csv"), "--out-json", str(tmp_path / "cli.json"))
    assert without_timings(r.to_dict()) == without_timings(cli)
    assert r.to_dict()["cells"] == 12 and r.to_dict()["csv"] == str(tmp_path / "py.csv")
    assert r.written == [str(tmp_path / "py.csv"), str(tmp_path / "py.json")]
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    # .cells: the JSON file's results, one row per cell.
    assert r.cells == json.loads((tmp_path / "py.json").read_text())["results"]


def test_sweep_bad_spec_is_the_cli_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"models": ["llama3-8b"], "gpus": ["h100-sxm"], "gpu_counts": [8], "global_batch": 32, "tpo_k": 2}')
    with pytest.raises(gpuplan.Error) as e:
        gpuplan.sweep(bad, out_csv=tmp_path / "o.csv", out_json=tmp_path / "o.json")
    out, _ = run_cli("sweep", str(bad), "--out-csv", str(tmp_path / "o.csv"), "--out-json", str(tmp_path / "o.json"),
                     "--json", expect_rc=2)
    assert str(e.value) == json.loads(out)["error"]["message"]
    assert not (tmp_path / "o.csv").exists()


def test_monitor_without_nvml_is_the_cli_error():
    missing = "/nonexistent/libnvidia-ml.so.1"
    with pytest.raises(gpuplan.Error) as e:
        gpuplan.monitor(count=1, interval_s=0.1, nvml_library=missing)
    out, _ = run_cli("monitor", "--count", "1", "--nvml-library", missing, "--json", expect_rc=3)
    assert str(e.value) == json.loads(out)["error"]["message"]
    assert str(e.value).startswith("NVML not found")


def test_monitor_refuses_endless_or_bad_rounds():
    with pytest.raises(gpuplan.Error, match=r"monitor\(count=0\): take at least 1 round"):
        gpuplan.monitor(count=0)
    with pytest.raises(gpuplan.Error, match=r"monitor\(interval_s=0\): a positive number"):
        gpuplan.monitor(interval_s=0)


def test_monitor_samples_where_a_gpu_is():
    try:
        rounds = gpuplan.monitor(count=2, interval_s=0.05)
    except gpuplan.Error as e:
        pytest.skip(f"no GPU here: {e}")
    assert len(rounds) == 2
    assert rounds[0]["gpus"] and "memory_used_bytes" in json.dumps(rounds[0])


# Commands whose Python form has another name, and the one that is no question (a web server).
PYTHON_NAMES = {
    "calibrate": ["calibrate_training"],
    "validate": ["validate_training", "validate_inference", "validate_collectives", "validate_calibration"],
}
NOT_A_QUESTION = {"serve"}


def test_every_question_command_has_its_function():
    out, _ = run_cli("--help")
    commands = []
    in_list = False
    for line in out.splitlines():
        if line.startswith("Subcommands:"):
            in_list = True
        elif in_list and line.startswith("  ") and line.strip():
            commands.append(line.split()[0])
        elif in_list and not line.strip():
            break
    assert "train" in commands and "sweep" in commands and "monitor" in commands, commands
    for command in commands:
        if command in NOT_A_QUESTION:
            continue
        for name in PYTHON_NAMES.get(command, [command.replace("-", "_")]):
            assert callable(getattr(gpuplan, name, None)), f"gpuplan {command} has no gpuplan.{name}()"
