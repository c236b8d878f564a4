"""The floor: ``schemac compile -t all`` of a library with no operators, against torchgen.

What every compile pays before its first operator: starting Python, the
imports, the run key, the backends' fixed files (172 of them: the umbrella
headers, registration files, Python binding shells...), the commit and the
state.  Issue #16's target is under 0.3 s of wall time into a fresh output
directory; a small extension library (examples/toyops) pays about the same.

Both sides read one ``native_functions.yaml`` holding an empty list, with
the given tags file (torch's by default) and empty ``derivatives.yaml`` and
``deprecated.yaml`` (torchgen's autograd generators need both files; a
0-byte ``native_functions.yaml`` is rejected by torchgen, "expected a
list", and compiles in schemac exactly as ``[]`` does).  schemac runs
``python -m schemac compile NATIVE --tags --derivatives --deprecated -t all
-o OUT``; torchgen runs its three generators one after the other, as
bench_rebuild does (``torchgen.gen --per-operator-headers --mps --xpu
--mtia``, ``gen_autograd``, ``gen_autograd_python``), their times summed.
Every run writes into a new directory; the sides alternate, and swap which
goes first every rep.  Times are per child from ``os.wait4``.  The table's
target is the absolute 0.3 s (as the no-op row of bench_rebuild states it:
0.3 s over torchgen's time), so the ratio is only there for comparison.

    python -m benchmarks.bench_empty [--reps N] [--input DIR]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmarks import Inputs, Stage, median, scratch_dir
from benchmarks.bench_aten import ChildRun, byte_compile_schemac, run_child, schemac_env
from benchmarks.bench_rebuild import TORCHGEN_AUTOGRAD, output_root

#: Issue #16: an empty compile under 0.3 s (wall, a fresh output directory each run).
EMPTY_LIMIT = 0.3
#: Runs of each side per ``--reps``: a run is a third of a second, and its
#: wall time swings with the load by as much as the target's margin.
RUNS_PER_REP = 3


@dataclass(frozen=True)
class Layout:
    native: Path
    tags: Path
    derivatives: Path
    deprecated: Path
    aten_source: Path  # torchgen.gen's -s: native/*.yaml beside templates/
    autograd_dir: Path  # derivatives.yaml, deprecated.yaml, templates/


def make_layout(inputs: Inputs, scratch: Path) -> Layout:
    import torchgen

    packaged = Path(torchgen.__file__).parent / "packaged"
    aten = scratch / "torchgen_aten"
    (aten / "native").mkdir(parents=True)
    native = aten / "native" / "native_functions.yaml"
    native.write_text("[]\n")
    tags = aten / "native" / "tags.yaml"
    tags.write_bytes(inputs.tags.read_bytes())
    (aten / "templates").symlink_to(packaged / "ATen" / "templates")
    autograd = scratch / "torchgen_autograd"
    autograd.mkdir()
    for name in ("derivatives.yaml", "deprecated.yaml"):
        (autograd / name).write_text("[]\n")
    (autograd / "templates").symlink_to(packaged / "autograd" / "templates")
    return Layout(
        native, tags, autograd / "derivatives.yaml", autograd / "deprecated.yaml", aten, autograd
    )


def schemac_argv(layout: Layout, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "schemac", "compile", str(layout.native),
        "--tags", str(layout.tags), "--derivatives", str(layout.derivatives),
        "--deprecated", str(layout.deprecated), "-t", "all", "-o", str(out),
    ]  # fmt: skip


def run_torchgen(layout: Layout, out: Path, cwd: Path) -> ChildRun:
    """torchgen's three generators on the empty library, one after the other; times summed."""
    aten = [sys.executable, "-m", "torchgen.gen", "-s", str(layout.aten_source)]
    aten += ["-d", str(out / "ATen"), "--per-operator-headers", "--mps", "--xpu", "--mtia"]
    runs = [run_child(aten, cwd)]
    for which in ("autograd", "python"):
        (out / which).mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-c", TORCHGEN_AUTOGRAD, str(layout.native), str(layout.tags)]
        argv += [str(out / which), str(layout.autograd_dir), which]
        runs.append(run_child(argv, cwd))
    return ChildRun(
        sum(r.wall for r in runs),
        sum(r.user for r in runs),
        sum(r.system for r in runs),
        max(r.peak_mib for r in runs),
    )


@dataclass(frozen=True)
class EmptyResult:
    schemac: tuple[ChildRun, ...]
    torchgen: tuple[ChildRun, ...]
    schemac_files: int
    torchgen_files: int


def _count_files(root: Path) -> int:
    return sum(1 for p in root.rglob("*") if p.is_file() and not p.name.startswith(".schemac-"))


def measure(inputs: Inputs, runs: int, log: bool = False) -> EmptyResult:
    env = schemac_env()
    byte_compile_schemac()
    ours: list[ChildRun] = []
    theirs: list[ChildRun] = []
    with scratch_dir("bench_empty_") as tmp:
        scratch = Path(tmp)
        layout = make_layout(inputs, scratch)
        outs = output_root(scratch)
        # torchgen writes AOTInductor shims into its working directory.
        cwd = scratch / "cwd"
        cwd.mkdir()
        counts = [0, 0]
        for rep in range(runs):
            mine, reference = outs / f"schemac{rep}", outs / f"torchgen{rep}"

            def run_schemac(out: Path = mine) -> None:
                ours.append(run_child(schemac_argv(layout, out), cwd, env))
                counts[0] = _count_files(out)

            def run_reference(out: Path = reference) -> None:
                theirs.append(run_torchgen(layout, out, cwd))
                counts[1] = _count_files(out)

            order = (run_schemac, run_reference) if rep % 2 == 0 else (run_reference, run_schemac)
            for side in order:
                side()
            # Trees stay until the end (benchmarks.scratch_dir).
            if log:
                a, b = ours[-1], theirs[-1]
                print(
                    f"run {rep + 1}: schemac {a.wall:.3f}s (user {a.user:.3f} sys {a.system:.3f}) "
                    f"torchgen {b.wall:.3f}s (user {b.user:.3f} sys {b.system:.3f})",
                    flush=True,
                )
    return EmptyResult(tuple(ours), tuple(theirs), counts[0], counts[1])


def stages(result: EmptyResult) -> list[Stage]:
    ours, theirs = result.schemac, result.torchgen
    wall, wall_tg = median([r.wall for r in ours]), median([r.wall for r in theirs])
    cpu, cpu_tg = median([r.cpu for r in ours]), median([r.cpu for r in theirs])
    spread = f"{min(r.wall for r in ours):.3f}-{max(r.wall for r in ours):.3f} s"
    return [
        Stage(
            "empty compile -t all",
            wall,
            wall_tg,
            EMPTY_LIMIT / wall_tg,
            notes=(
                f"target under {EMPTY_LIMIT} s wall; {len(ours)} runs a side, schemac {spread}; "
                f"files: schemac {result.schemac_files}, torchgen {result.torchgen_files} "
                "(its three generators)",
            ),
        ),
        Stage("empty compile -t all (cpu)", cpu, cpu_tg, EMPTY_LIMIT / cpu_tg, unit="cpu s"),
    ]


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py)."""
    return stages(measure(inputs, reps * RUNS_PER_REP))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=10, help="runs of each side (default 10)")
    parser.add_argument(
        "--input", type=Path, help="take the tags file of a library like examples/toyops"
    )
    args = parser.parse_args()
    inputs = Inputs.directory(args.input) if args.input else Inputs.torch()
    for stage in stages(measure(inputs, args.reps, log=True)):
        print(
            f"{stage.name:<28} schemac {stage.schemac:6.3f} {stage.unit:<6} "
            f"torchgen {stage.torchgen:6.3f}  target under {EMPTY_LIMIT} s: "
            f"{'met' if stage.schemac < EMPTY_LIMIT else 'not met'}"
        )
        for note in stage.notes:
            print(f"  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
