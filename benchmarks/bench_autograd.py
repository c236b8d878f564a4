"""Autograd speed: ``schemac compile -t autograd`` against torchgen's gen_autograd.

Both sides start from the YAML files of the installed torch and end with the
same family of files on disk (Functions.h/.cpp, VariableType_<n>.cpp,
ADInplaceOrViewType_<n>.cpp, TraceType_<n>.cpp, ViewFuncs.h/.cpp,
variable_factories.h); see benchmarks/in_process.py for the four sides and
how they are timed.

    PYTHONPATH=src python benchmarks/bench_autograd.py [--reps N]

Prints per-run times, the medians and the speed-ups (target: >= 5x).
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


def _gen_autograd(native: str, tags: str, autograd_dir: str, out: Path) -> None:
    from torchgen.packaged.autograd.gen_autograd import gen_autograd
    from torchgen.selective_build.selector import SelectiveBuilder

    gen_autograd(native, tags, str(out), autograd_dir, SelectiveBuilder.get_nop_selector())


BENCH = TargetBench(
    "autograd",
    "gen_autograd",
    _gen_autograd,
    module="bench_autograd",
    torchgen_modules=(
        "torchgen.packaged.autograd.gen_autograd",
        "torchgen.selective_build.selector",
    ),
    backend_notes=("front end and passes shared by all targets; torchgen's parse caches warm",),
)


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py)."""
    return stages(BENCH, inputs, reps)


if __name__ == "__main__":
    raise SystemExit(main(BENCH, (__doc__ or "").splitlines()[0]))
