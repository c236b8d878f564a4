"""``-t headers`` alone: ``schemac compile -t headers`` against ``torchgen.gen --generate headers``.

The header family is the largest part of the ATen compile (per-operator headers,
Functions.h, NativeFunctions.h...); torchgen can be asked for it alone, so the two sides
are compared on exactly that job (target: at least 5x faster, peak RSS no higher).  It is
:mod:`benchmarks.bench_aten`'s experiment with two other command lines: both sides run as
child processes into fresh directories, alternating, timed with ``os.wait4``, and an
unchanged rerun of schemac must rewrite no file.

    python -m benchmarks.bench_headers [--reps N] [--input DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks import Inputs, Stage
from benchmarks.bench_aten import AtenResult, measure, print_report, stages


def _schemac_argv(inputs: Inputs, out: Path) -> list[str]:
    files = (
        ["--torch"]
        if inputs.is_torch
        else [str(inputs.native_functions), "--tags", str(inputs.tags)]
    )
    return [sys.executable, "-m", "schemac", "compile", *files, "-t", "headers", "-o", str(out)]


def _torchgen_argv(source: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "torchgen.gen", "-s", str(source), "-d", str(out),
        "--per-operator-headers", "--mps", "--xpu", "--generate", "headers",
    ]  # fmt: skip


def measure_headers(inputs: Inputs, reps: int, log: bool = False) -> AtenResult:
    return measure(
        inputs, reps, log, schemac_command=_schemac_argv, torchgen_command=_torchgen_argv
    )


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py)."""
    return stages(measure_headers(inputs, reps), "headers")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("--input", type=Path, help="a library directory like examples/toyops")
    args = parser.parse_args()
    inputs = Inputs.directory(args.input) if args.input else Inputs.torch()
    print_report(measure_headers(inputs, args.reps, log=True), "headers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
