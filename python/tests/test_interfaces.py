"""The module against the CLI it mirrors (issue 33): a function for every question command, and
each question's keywords exactly its field table's.

The keywords are read from the module itself (an unknown keyword's error lists every keyword the
binding read), not from the stubs, and compared with the stubs' parameters, which
tests/cli/field_tables_test.cpp compares with the tables: so a keyword bound by hand beside a
table, or a table field the binding skips, fails here.
"""
import re

import pytest

import gpuplan

from conftest import SOURCE_DIR, run_cli

# `gpuplan serve` runs the web server: a process, not a question with an answer.
NOT_QUESTIONS = {"serve"}

# The questions whose keywords come from a field table (core/field_spec.h).
TABLE_FUNCTIONS = ["train", "search", "infer", "infer_search", "recommend", "collective", "cost", "tco", "energy",
                   "compare", "gpus", "gpu", "system", "clouds", "rooflines"]


def subcommands(*words):
    """The subcommands `gpuplan WORDS --help` lists (none for a command without any)."""
    out, _ = run_cli(*words, "--help")
    names = []
    listing = False
    for line in out.splitlines():
        if line.startswith("Subcommands:"):
            listing = True
        elif listing and line.startswith("  ") and line.strip():
            names.append(line.split()[0])
        elif listing:
            break
    return names


def test_every_question_command_has_a_function():
    commands = subcommands()
    assert "train" in commands and "infer-search" in commands, commands
    wanted = []
    for command in commands:
        if command in NOT_QUESTIONS:
            continue
        # calibrate and validate are groups: calibrate_training, validate_inference, ...
        subs = subcommands(command)
        wanted += [f"{command}_{s}" for s in subs] if subs else [command.replace("-", "_")]
    missing = [name for name in wanted if not callable(getattr(gpuplan, name, None))]
    assert missing == [], f"CLI commands with no Python function: {missing}"
    assert set(wanted) <= set(gpuplan.__all__)


def module_keywords(function):
    """Every keyword FUNCTION reads, from its answer to an unknown one."""
    given = {"no_such_keyword_of_any_table": 1}
    if function == "compare":
        given["names"] = ["h100-sxm", "h200-sxm"]  # checked before the keywords are read
    with pytest.raises(gpuplan.Error) as e:
        getattr(gpuplan, function)(**given)
    found = re.search(r"unknown keyword 'no_such_keyword_of_any_table'.*\(keywords: ([^)]*)\)", str(e.value))
    assert found, str(e.value)
    return set(found.group(1).split(", "))


def stub_parameters(function):
    """The parameters of `def FUNCTION(` in gpuplan/__init__.pyi (one a line), without catalog."""
    text = (SOURCE_DIR / "python" / "gpuplan" / "__init__.pyi").read_text()
    found = re.search(r"\ndef " + function + r"\((.*?)\n\) ->", text, re.S)
    assert found, function
    names = set()
    for line in found.group(1).splitlines():
        name = line.split(":")[0].strip()
        if ":" in line and name != "catalog":
            names.add(name)
    return names


@pytest.mark.parametrize("function", TABLE_FUNCTIONS)
def test_keywords_are_the_field_table(function):
    assert module_keywords(function) == stub_parameters(function)

