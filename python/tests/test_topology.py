"""import_topology and TrainResult.nearest_feasible_plans: the CLI's answers from Python."""
import pytest

import gpuplan
from conftest import SOURCE_DIR, cli_json

TOPOLOGY = SOURCE_DIR / "tests" / "fixtures" / "topology"


def _same_but_date(py, cli):
    # The TOML carries the day it was written; both were written today, but a run across
    # midnight would differ only there.
    py, cli = dict(py), dict(cli)
    py.pop("toml"), cli.pop("toml")
    return py == cli


def test_import_topology_nccl_dump_is_the_cli_answer():
    dump = TOPOLOGY / "dgx-h100-nccl-topo.xml"
    r = gpuplan.import_topology(dump, gpu="h100-sxm", id="py-dgx")
    assert _same_but_date(r, cli_json("import-topology", str(dump), "--gpu", "h100-sxm", "--id", "py-dgx", "--json"))
    assert r["format"] == "nccl-xml"
    assert r["sm"] == 90 and "h100-sxm" in r["gpu_candidates"]
    assert r["scaleup_topology"] == "switched" and r["nvswitch"] == "nvswitch3"
    assert r["nics"] == 8 and r["nic_bw_uni_bytes_per_s"] == 50e9  # 400000 Mbit/s
    assert r["rails"][0] == "mlx5_0 -> GPU0"
    assert 'id = "py-dgx"' in r["toml"]


def test_imported_toml_loads_back_as_a_catalog(tmp_path):
    r = gpuplan.import_topology(TOPOLOGY / "8x-l40s-pcie-nccl-topo.xml", gpu="l40s", id="py-l40s")
    path = tmp_path / "py-l40s.toml"
    path.write_text(r["toml"])
    c = gpuplan.collective(op="allreduce", bytes="64MiB", gpus=16, system="py-l40s", catalog=path)
    assert "py-l40s" in str(c)
    t = gpuplan.train(model="llama3-8b", system="py-l40s", gpus=8, global_batch=32, catalog=path)
    assert t.gpus == 8


def test_import_topology_nvidia_smi_and_errors():
    r = gpuplan.import_topology(TOPOLOGY / "8x-l40s-pcie-topo-m.txt", gpu="l40s", nic_gbit=200)
    assert r["format"] == "nvidia-smi" and r["scaleup_topology"] == "pcie" and r["nics"] == 4
    # The L40S dump's PCI id is in no catalog GPU's [pci]: the GPU is asked for, naming the sm.
    with pytest.raises(gpuplan.Error, match="sm=89"):
        gpuplan.import_topology(TOPOLOGY / "8x-l40s-pcie-nccl-topo.xml")
    # The DGX dump's 0x2330 is h100-sxm's: taken without gpu=.
    assert gpuplan.import_topology(TOPOLOGY / "dgx-h100-nccl-topo.xml")["toml"].count('gpu = "h100-sxm"') == 1
    with pytest.raises(gpuplan.Error, match="--format 'csv'"):
        gpuplan.import_topology(TOPOLOGY / "dgx-h100-nccl-topo.xml", gpu="h100-sxm", format="csv")


def test_nearest_feasible_plans_of_a_plan_that_does_not_fit():
    # Llama 3 8B under plain DDP on 8 H100s: 16 bytes per parameter of states on every GPU
    # (128 GB) cannot fit in 80 GB; ZeRO or model parallelism one change away can.
    r = gpuplan.train(model="llama3-8b", gpu="h100-sxm", gpus=8, seq_len=2048, micro_batch=1)
    assert not r.feasible
    near = r.nearest_feasible_plans
    cli = cli_json("train", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--seq-len", "2048",
                   "--micro-batch", "1", "--json")
    assert near == cli["nearest_feasible_plans"]
    assert len(near) > 0
    steps = [p["step_time_s"] for p in near]
    assert steps == sorted(steps)  # fastest first
    assert all(p["change"] and p["memory_bytes"] > 0 for p in near)
    assert any(p["change"].startswith("zero") for p in near)
    # A plan that fits has none (FSDP: 60 GiB of 80 at the default 8,192-token sequence).
    fits = gpuplan.train(model="llama3.1-8b", gpu="h100-sxm", gpus=8, zero=3)
    assert fits.feasible and fits.nearest_feasible_plans == []
