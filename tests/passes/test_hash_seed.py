"""The resolved IR, derivative infos included, must not depend on the hash seed.

Generated files are compared across seeds in tests/backends/test_compile_cli.py;
this checks the IR itself, so an order that leaks from a set is caught even
where no backend prints it.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "toyops"

# Frozensets print in hash order, so the modules are compared with ==, after
# pickling them out of processes that ran with different seeds.
_SCRIPT = """
import pickle, sys
from schemac.frontend.loader import load_module, load_torch_module
from schemac.passes.manager import run_pipeline
if sys.argv[1] == "torch":
    module = load_torch_module()
else:
    d = sys.argv[1]
    module = load_module(d + "/native_functions.yaml", d + "/tags.yaml", d + "/derivatives.yaml")
module = run_pipeline(module).module
with open(sys.argv[2], "wb") as out:
    pickle.dump(module, out)
"""


def _module(source: str, seed: str, directory: Path) -> object:
    path = directory / f"module-{seed}.pickle"
    env = dict(os.environ, PYTHONHASHSEED=seed)
    subprocess.run([sys.executable, "-c", _SCRIPT, source, str(path)], env=env, check=True)
    with path.open("rb") as handle:
        return pickle.load(handle)


def _assert_same_across_seeds(source: str, directory: Path) -> None:
    first, second = (_module(source, seed, directory) for seed in ("1", "2"))
    assert first == second


def test_toy_ir_is_independent_of_the_hash_seed(tmp_path: Path) -> None:
    _assert_same_across_seeds(str(EXAMPLE), tmp_path)


@pytest.mark.torch
def test_torch_ir_is_independent_of_the_hash_seed(tmp_path: Path) -> None:
    _assert_same_across_seeds("torch", tmp_path)
