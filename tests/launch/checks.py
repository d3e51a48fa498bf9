"""Shared by the check_*.py drivers: running the pplan CLI, and comparing a config with the
values a plan asks for."""

import json
import os
import subprocess
import tempfile


def run(cli, scenario, *args):
    """`pplan <args[0]> FILE <args[1:]>` with the scenario in a temporary file."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
    try:
        return subprocess.run([cli, args[0], f.name, *args[1:]], capture_output=True, text=True)
    finally:
        os.unlink(f.name)


def compare(fail, where, result, base, expected):
    """Every expected path has its value; every other path kept its base value.
    result, base and expected map dotted paths to values."""
    for path, value in expected.items():
        if path not in result:
            fail(where, f"{path} does not exist")
        elif result[path] != value:
            fail(where, f"{path} = {result[path]!r}, expected {value!r}")
    for path, value in result.items():
        if path not in expected and base.get(path) != value:
            fail(where, f"{path} changed to {value!r} (base {base.get(path)!r}) but the plan does not ask for it")
