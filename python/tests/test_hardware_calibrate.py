"""gpu, compare, systems, system, clouds, rooflines, energy, calibrate_training, validate_calibration:
the same answers as the CLI, and bad input as gpuplan.Error naming the keyword."""
import json

import pytest

import gpuplan
from conftest import SOURCE_DIR, cli_json

PROFILE = SOURCE_DIR / "data" / "calibration" / "h100-sxm-2026-11-26.json"
TORCH_RUNS = SOURCE_DIR / "data" / "calibration" / "pytorch" / "pytorch-h100-sxm-2026-11-26.csv"


def test_gpu_is_the_cli_answer():
    r = gpuplan.gpu(name="h100")
    assert r.to_dict() == cli_json("gpu", "h100")
    assert r.id == "h100-sxm" and not r.calibrated


def test_gpu_with_a_profile_is_the_cli_answer():
    r = gpuplan.gpu(name="h100-sxm", calibration=str(PROFILE))
    assert r.to_dict() == cli_json("gpu", "h100-sxm", "--calibration", str(PROFILE))
    assert r.calibrated


def test_compare_is_the_cli_answer():
    r = gpuplan.compare(names=["h100-sxm", "h200-sxm", "b200"])
    assert r.to_dict() == cli_json("compare", "h100-sxm", "h200-sxm", "b200")
    assert r.ids == ["h100-sxm", "h200-sxm", "b200"]


def test_systems_and_system_are_the_cli_answers():
    assert gpuplan.systems() == cli_json("systems")
    r = gpuplan.system(name="dgx-h100")
    assert r.to_dict() == cli_json("system", "dgx-h100")
    assert r.kind == "system" and r.id == "dgx-h100"


def test_clouds_is_the_cli_answer(no_pandas):
    r = gpuplan.clouds(gpu="h100-sxm", provider="aws")
    cli = cli_json("clouds", "--gpu", "h100-sxm", "--provider", "aws")
    assert r.to_dict() == cli
    assert r.rows == cli["offers"] and len(r.rows) > 0


def test_rooflines_is_the_cli_answer():
    r = gpuplan.rooflines(gpu="h100-sxm", ffn=28672, experts=8, topk=2, ep=8)
    assert r.to_dict() == cli_json("rooflines", "--gpu", "h100-sxm", "--ffn", "28672", "--experts", "8",
                                    "--topk", "2", "--ep", "8")


def test_energy_is_the_cli_answer_and_its_arithmetic():
    r = gpuplan.energy(gpu="h100-sxm", gpus=8, hours=10, watts_per_gpu=700, utilization=1, pue=1.5,
                       kg_co2_per_kwh=0.4, usd_per_kwh=0.1)
    cli = cli_json("energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "10", "--watts-per-gpu", "700",
                   "--utilization", "1", "--pue", "1.5", "--kg-co2-per-kwh", "0.4", "--usd-per-kwh", "0.1")
    assert r.to_dict() == cli
    # 8 GPUs × 0.7 kW × 10 h = 56 kWh at the servers; × PUE 1.5 = 84 kWh; × 0.4 kg = 33.6 kg; × $0.1 = $8.40.
    assert r.facility_kwh == pytest.approx(84.0)
    assert r.kg_co2 == pytest.approx(33.6)
    assert r.usd == pytest.approx(8.4)


def test_calibrate_training_is_the_cli_answer(tmp_path):
    cli_out = tmp_path / "cli.json"
    cli = cli_json("calibrate", "training", str(TORCH_RUNS), "--out", str(cli_out))
    py_out = tmp_path / "py.json"
    r = gpuplan.calibrate_training(TORCH_RUNS, out=py_out)
    d = r.to_dict()
    assert d["out"] == str(py_out) and cli["out"] == str(cli_out)
    d["out"] = cli["out"]
    assert d == cli
    # The file written is the calibration the answer carries, and the CLI wrote the same one.
    assert json.loads(py_out.read_text()) == r.calibration == json.loads(cli_out.read_text())
    # Without out= nothing is written and the fit is the same.
    r2 = gpuplan.calibrate_training(str(TORCH_RUNS))
    assert r2.out == "" and r2.calibration == r.calibration


def test_validate_calibration_is_the_cli_answer():
    r = gpuplan.validate_calibration(PROFILE)
    assert r.to_dict() == cli_json("validate", "calibration", str(PROFILE))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: gpuplan.gpu(name="h1000"), "h1000"),
        (lambda: gpuplan.gpu(), "name is required"),
        (lambda: gpuplan.gpu(name="h100", calibrate="x"), "unknown keyword 'calibrate'"),
        (lambda: gpuplan.compare(names=["h100-sxm", "nope-gpu"]), "nope-gpu"),
        (lambda: gpuplan.compare(), "names is required"),
        (lambda: gpuplan.system(name="no-such-system"), "no-such-system"),
        (lambda: gpuplan.clouds(gpu="h100-sxm", provider=3), "provider"),
        (lambda: gpuplan.rooflines(gpu="h100-sxm", ep="8"), "ep"),
        (lambda: gpuplan.energy(gpus=8, hours=1), r"energy\(\): gpu is required"),
        (lambda: gpuplan.energy(gpu="h100-sxm", gpus=8, hours=1, pue=-1), "^pue "),
        (lambda: gpuplan.calibrate_training("/nonexistent/runs.csv"), "/nonexistent/runs.csv"),
        (lambda: gpuplan.calibrate_training(TORCH_RUNS, out="/nonexistent/dir/cal.json"), "--out /nonexistent/dir"),
        (lambda: gpuplan.validate_calibration("/nonexistent/profile.json"), "/nonexistent/profile.json"),
    ],
)
def test_bad_input_is_an_error_naming_it(call, match):
    with pytest.raises(gpuplan.Error, match=match):
        call()
