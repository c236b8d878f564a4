"""``python -m benchmarks`` (``make bench``): every benchmark, then one summary table.

Runs each ``bench_*`` module's ``bench(inputs, reps)`` in turn (front end,
middle end, ATen backend, autograd, Python bindings, the empty compile,
rebuilds) and prints, per stage, schemac's median, torchgen's median, their
ratio, the target and whether it is met.  A module that does not exist yet,
has no ``bench`` function or cannot compare on the given input is listed as
skipped with the reason; a bench that
fails is reported and makes the exit code 1.

    python -m benchmarks [--quick] [--reps N] [--input DIR] [--only NAME,...]

``--quick`` is one rep per side (a smoke run: the numbers are noise);
``--input DIR`` takes a library laid out like examples/toyops instead of the
installed torch's YAML files.
"""

from __future__ import annotations

import argparse
import importlib
import os
import tempfile
import time
import traceback
from pathlib import Path

import benchmarks
from benchmarks import Inputs, Skip, Stage, target_text
from benchmarks.spawner import spawner

#: In pipeline order; each is ``benchmarks.<name>``.
MODULES: tuple[str, ...] = (
    "bench_frontend",
    "bench_middle_end",
    "bench_aten",
    "bench_headers",
    "bench_autograd",
    "bench_python",
    "bench_empty",
    "bench_rebuild",
    "bench_backend_stubs",
)


def _run(name: str, inputs: Inputs, reps: int) -> tuple[list[Stage], str | None, bool]:
    """(stages, why skipped or failed, failed?)."""
    try:
        module = importlib.import_module(f"benchmarks.{name}")
    except ModuleNotFoundError as error:
        if error.name == f"benchmarks.{name}":
            return [], "not written yet", False
        raise
    bench = getattr(module, "bench", None)
    if bench is None:
        return [], "has no bench(inputs, reps) function", False
    try:
        return list(bench(inputs, reps)), None, False
    except Skip as skip:
        return [], str(skip), False
    except Exception:  # a broken bench must not hide the others' numbers
        return [], traceback.format_exc(limit=3).strip().splitlines()[-1], True


def format_table(stages: list[Stage]) -> str:
    header = ("stage", "unit", "schemac", "torchgen", "ratio", "target", "met?")
    rows = [
        (
            s.name,
            s.unit,
            f"{s.schemac:.3f}",
            f"{s.torchgen:.3f}",
            f"{s.ratio:.2f}x",
            target_text(s.target_ratio),
            "yes" if s.met else "NO",
        )
        for s in stages
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="one rep per side (smoke run)")
    parser.add_argument("--reps", type=int, help="reps per side (default 5; 1 with --quick)")
    parser.add_argument(
        "--input", type=Path, help="a library directory like examples/toyops (default: torch's)"
    )
    parser.add_argument("--only", help="comma-separated module names (e.g. bench_aten)")
    args = parser.parse_args(argv)
    # Before any bench grows this process: every timed child starts from it
    # (benchmarks/spawner.py: a child's peak RSS counts its parent's otherwise).
    spawner()
    reps = args.reps or (1 if args.quick else 5)
    inputs = Inputs.directory(args.input) if args.input else Inputs.torch()
    names = tuple(args.only.split(",")) if args.only else MODULES

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"input: {inputs.native_functions.parent}  reps: {reps}  cpus: {os.cpu_count()}  "
        f"load average at start: {load:.1f}",
        flush=True,
    )
    stages: list[Stage] = []
    skipped: list[str] = []
    failures: list[str] = []
    # Output trees are deleted once, after the last module (benchmarks.scratch_dir).
    with tempfile.TemporaryDirectory(prefix="schemac-bench-") as session:
        benchmarks.SESSION_SCRATCH = Path(session)
        try:
            for name in names:
                start = time.perf_counter()
                print(f"running {name} ...", flush=True)
                found, reason, broken = _run(name, inputs, reps)
                stages.extend(found)
                if reason is not None:
                    (failures if broken else skipped).append(f"{name}: {reason}")
                print(f"  done in {time.perf_counter() - start:.1f}s", flush=True)
        finally:
            benchmarks.SESSION_SCRATCH = None

    print()
    print(format_table(stages))
    for stage in stages:
        for note in stage.notes:
            print(f"  {stage.name}: {note}")
    for line in skipped:
        print(f"skipped {line}")
    for line in failures:
        print(f"FAILED {line}")
    end_load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at end: {end_load:.1f} (compare ratios: absolute times follow the load)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
