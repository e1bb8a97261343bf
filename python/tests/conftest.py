"""Shared fixtures: the CLI binary (GPUPLAN_CLI, set by ctest) to compare answers against."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("GPUPLAN_SOURCE_DIR", Path(__file__).resolve().parents[2]))
CLI = Path(os.environ.get("GPUPLAN_CLI", SOURCE_DIR / "build" / "gpuplan"))
FIXTURE_CATALOG = SOURCE_DIR / "tests" / "fixtures" / "catalog"
DATA = Path(__file__).resolve().parent / "data"

try:
    import gpuplan  # noqa: F401
except ImportError as e:  # pragma: no cover - the ctest sets PYTHONPATH to build/python
    sys.exit(f"python tests: cannot import gpuplan ({e}); build it and set PYTHONPATH=build/python")


def run_cli(*args, expect_rc=0):
    """Runs `gpuplan ARGS`; returns (stdout, stderr)."""
    if not CLI.exists():
        pytest.skip(f"the CLI is not built at {CLI}")
    p = subprocess.run([str(CLI), *args], capture_output=True, text=True, check=False)
    assert p.returncode == expect_rc, (p.returncode, p.stderr)
    return p.stdout, p.stderr


def cli_json(*args):
    out, _ = run_cli(*args, "--json")
    return json.loads(out)


@pytest.fixture
def no_pandas(monkeypatch):
    """Makes `import pandas` fail, as on a machine without it."""
    monkeypatch.setitem(sys.modules, "pandas", None)
