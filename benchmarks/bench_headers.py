"""``-t headers`` alone: ``schemac compile -t headers`` against ``torchgen.gen --generate headers``.

The header family is the largest part of the ATen compile (per-operator headers,
Functions.h, NativeFunctions.h...); torchgen can be asked for it alone, so the two sides
are compared on exactly that job (target: at least 5x faster, peak RSS no higher).  Both
run as child processes into fresh directories, alternating, timed with ``os.wait4`` as in
:mod:`benchmarks.bench_aten`.

    python -m benchmarks.bench_headers [--reps N] [--input DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from benchmarks import Inputs, Stage, median
from benchmarks.bench_aten import (
    ChildRun,
    _torchgen_source,
    byte_compile_schemac,
    run_child,
    schemac_env,
)


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


def measure(inputs: Inputs, reps: int) -> tuple[list[ChildRun], list[ChildRun]]:
    env = schemac_env()
    byte_compile_schemac()
    ours: list[ChildRun] = []
    theirs: list[ChildRun] = []
    with tempfile.TemporaryDirectory(prefix="bench_headers_") as tmp:
        scratch = Path(tmp)
        source = _torchgen_source(inputs, scratch)
        for rep in range(reps):
            rep_dir = scratch / f"rep{rep}"
            (rep_dir / "cwd").mkdir(parents=True)
            sides = [
                lambda d=rep_dir: ours.append(
                    run_child(_schemac_argv(inputs, d / "schemac"), d, env)
                ),
                lambda d=rep_dir: theirs.append(
                    run_child(_torchgen_argv(source, d / "torchgen"), d / "cwd")
                ),
            ]
            for side in sides if rep % 2 == 0 else reversed(sides):
                side()
    return ours, theirs


def stages(ours: list[ChildRun], theirs: list[ChildRun]) -> list[Stage]:
    return [
        Stage(
            "headers compile", median([r.wall for r in ours]), median([r.wall for r in theirs]), 0.2
        ),
        Stage(
            "headers compile (cpu)",
            median([r.cpu for r in ours]),
            median([r.cpu for r in theirs]),
            0.2,
            unit="cpu s",
        ),
        Stage(
            "headers peak RSS",
            max(r.peak_mib for r in ours),
            max(r.peak_mib for r in theirs),
            1.0,
            unit="MiB",
        ),
    ]


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py)."""
    return stages(*measure(inputs, reps))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("--input", type=Path, help="a library directory like examples/toyops")
    args = parser.parse_args()
    inputs = Inputs.directory(args.input) if args.input else Inputs.torch()
    for stage in bench(inputs, args.reps):
        print(
            f"{stage.name:<22} schemac {stage.schemac:8.3f} "
            f"torchgen {stage.torchgen:8.3f} {stage.unit}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
