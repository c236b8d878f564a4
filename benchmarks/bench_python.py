"""Python-bindings speed: ``schemac compile -t python`` against torchgen's gen_autograd_python.

Both sides start from the YAML files of the installed torch
(native_functions, tags, derivatives, deprecated) and end with the binding
files on disk (bindings, return types, the Tag enum, python_functions for the
autograd nodes); see benchmarks/in_process.py for the four sides and how
they are timed (each run in a fresh interpreter).

    PYTHONPATH=src python benchmarks/bench_python.py [--reps N]

Prints per-run wall and CPU times, medians and ratios (target: schemac >= 5x
faster).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

# Runnable as a script: the checkout's sources and the benchmarks package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.in_process import TargetBench, main, stages

if TYPE_CHECKING:
    from benchmarks import Inputs, Stage


def _gen_autograd_python(native: str, tags: str, autograd_dir: str, out: Path) -> None:
    from torchgen.packaged.autograd.gen_autograd import gen_autograd_python

    gen_autograd_python(native, tags, str(out), autograd_dir)


BENCH = TargetBench(
    "python",
    "gen_autograd_python",
    _gen_autograd_python,
    module="bench_python",
    torchgen_modules=("torchgen.packaged.autograd.gen_autograd",),
)


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py)."""
    return stages(BENCH, inputs, reps)


if __name__ == "__main__":
    raise SystemExit(main(BENCH, (__doc__ or "").splitlines()[0]))
