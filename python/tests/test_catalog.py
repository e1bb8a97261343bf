"""Catalog and model access, config dicts, validation tables, the stubs."""
import json
from pathlib import Path

import pytest

import gpuplan
from conftest import DATA, SOURCE_DIR, cli_json

LLAMA_CONFIG = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
}


def test_model_is_the_cli_answer():
    m = gpuplan.model("llama3.1-70b")
    assert m.to_dict() == cli_json("model", "llama3.1-70b")
    assert (m.layers, m.hidden, m.heads, m.kv_heads) == (80, 8192, 64, 8)


def test_gpus_table_lists_the_catalog():
    rows = gpuplan.gpus()
    cli = cli_json("gpus")["gpus"]
    ids = list(rows["id"]) if hasattr(rows, "columns") else [r["id"] for r in rows]
    assert ids == [g["id"] for g in cli]
    assert "h100-sxm" in ids


def test_model_from_config_dict_and_file_agree(tmp_path):
    path = tmp_path / "Llama-3.1-8B" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(LLAMA_CONFIG))
    from_file = gpuplan.model_from_config(path)
    from_dict = gpuplan.model_from_config(LLAMA_CONFIG)
    a, b = from_file.to_dict(), from_dict.to_dict()
    for d in (a, b):
        d.pop("id", None)
        d.pop("name", None)
        d.pop("provenance")
    assert a == b
    assert from_file.id == "Llama-3.1-8B"
    # The same shape as the zoo's Llama 3.1 8B, so the same parameter count.
    zoo = gpuplan.model("llama3.1-8b").to_dict()
    assert a["total_params"] == zoo["total_params"] == 8030261248.0
    # A config path works for train() too.
    assert gpuplan.train(model=str(path), gpu="h100-sxm", gpus=8, tp=8, seq_len=4096).feasible


def test_model_from_config_errors_name_the_field():
    bad = dict(LLAMA_CONFIG)
    del bad["num_attention_heads"]
    with pytest.raises(gpuplan.Error, match="num_attention_heads"):
        gpuplan.model_from_config(bad)
    with pytest.raises(gpuplan.Error, match="not a JSON value"):
        gpuplan.model_from_config({"model_type": "llama", "hidden_size": object()})
    with pytest.raises(gpuplan.Error, match="unknown model"):
        gpuplan.model("llama-99b")


def test_validation_rows_are_a_table():
    csv = DATA / "training-runs-sample.csv"
    v = gpuplan.validate_training(csv)
    cli = cli_json("validate", "training", str(csv))
    assert v.to_dict() == cli
    rows = v.rows
    assert len(rows) == len(cli["rows"]) > 0


def test_collective_folds_match_the_cli(tmp_path):
    csv = tmp_path / "coll.csv"
    lines = ["source,system,num_gpus,op,bytes,measured_time_us"]
    for source, system, scale in (("a", "dgx-h100", 1.0), ("b", "dgx-a100", 1.6)):
        for size, us in ((1 << 20, 40.0), (1 << 24, 130.0), (1 << 27, 600.0), (1 << 30, 4100.0)):
            lines.append(f"{source},{system},8,allreduce,{size},{us * scale}")
    csv.write_text("\n".join(lines) + "\n")
    v = gpuplan.validate_collectives(csv, leave_one_source_out=True, leave_one_gpu_out=True)
    cli = cli_json("validate", "collectives", str(csv), "--leave-one-source-out", "--leave-one-gpu-out")
    assert v.to_dict() == cli
    folds = cli["leave_one_source_out"]["folds"]
    assert [f["held_out"] for f in folds] == ["a", "b"]
    # Without the A100 rows the NVLink 3 hop scale has no row: it keeps its prior.
    by_name = {c["name"]: c for c in folds[1]["constants"]}
    assert by_name["hop_scale nvlink3"]["refitted"] is False
    assert by_name["hop_scale nvlink3"]["value"] == by_name["hop_scale nvlink3"]["prior"]
    assert len(cli["leave_one_gpu_out"]["folds"]) == 2


def test_stub_names_every_public_function():
    stub = (Path(gpuplan.__file__).parent / "__init__.pyi").read_text()
    for name in gpuplan.__all__:
        assert f"def {name}(" in stub or f"class {name}(" in stub or f"class {name}:" in stub, name
    for name in gpuplan.__all__:
        obj = getattr(gpuplan, name)
        assert obj.__doc__, name
