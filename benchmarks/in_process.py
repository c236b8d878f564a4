"""One schemac target against the torchgen generator that writes the same files.

The autograd and Python-bindings benches (bench_autograd.py, bench_python.py)
are the same experiment with a different target and generator, so they share
this scaffolding.  Four sides, each run in a fresh interpreter
(benchmarks/side_process.py says why and what is timed), in turn, rep after
rep, so the load of a shared machine hits all of them alike:

* schemac end to end: load the YAML, run the passes the target needs, emit
  the target and commit it to a directory, as ``schemac compile -t TARGET``
  does with its default ``-j`` (2 on a machine with 2 cores or more: a helper
  process stages the files and, for ``-t python``, match-derivatives runs
  beside the binding files, Note [Late work]);
* torchgen cold: the generator on empty parse caches, so it parses the YAML
  (and loads derivatives.yaml), as a fresh process does;
* schemac backend only: emit and commit from a module loaded and through
  all its passes beforehand (the front end and the passes are shared by
  every target), with the default ``-j``;
* torchgen warm: the generator with its parse caches filled by an earlier
  call (it still matches derivatives to functions and writes every file).

Each run is timed in wall seconds, and in CPU seconds of its process and
of the helper processes it waited for (``os.times``: children's time counts
once they are reaped), which is far less sensitive to other jobs on a shared
machine and shows what the parallel work costs.  The end-to-end pair also
compares peak RSS (the largest of the reps; each process's whole life, imports
included: side_process.py), the target being no more than torchgen's.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks import ROOT, Inputs, Skip, Stage, load_for_targets, scratch_dir, settle_file_system
from benchmarks.spawner import spawner

#: (wall seconds, CPU seconds) of one run.
Timing = tuple[float, float]

#: (wall seconds, CPU seconds, peak RSS in MiB) of one side process.
SideRun = tuple[float, float, float]

#: Runs the torchgen generator: (native_functions, tags, autograd dir, output dir).
TorchgenRun = Callable[[str, str, str, Path], None]

#: The target stated for both comparisons: schemac at least 5x faster.
TARGET_RATIO = 0.2


@dataclass(frozen=True)
class TargetBench:
    """A schemac target and the torchgen generator it replaces."""

    #: The schemac target (``python``); also the stage names' prefix.
    target: str
    #: The torchgen function's name, for the side labels (``gen_autograd_python``).
    generator: str
    torchgen: TorchgenRun
    #: ``benchmarks.<module>`` defines this object as ``BENCH`` (the side processes import it).
    module: str
    #: Modules ``torchgen`` imports, imported before its run is timed.
    torchgen_modules: tuple[str, ...]
    #: Extra notes on the backend-only stage.
    backend_notes: tuple[str, ...] = ()

    @property
    def pairs(self) -> tuple[tuple[str, str, str], ...]:
        """(stage label, schemac side, torchgen side) of the two comparisons."""
        return (
            ("end-to-end", "schemac end-to-end", f"torchgen {self.generator} (cold)"),
            ("backend only", "schemac backend only", f"torchgen {self.generator} (warm)"),
        )

    def side_labels(self) -> dict[str, str]:
        """Side key (of :data:`SIDES`) -> label, in the order the sides alternate."""
        (_, full, cold), (_, backend, warm) = self.pairs
        return {
            "schemac": full,
            "torchgen-cold": cold,
            "schemac-backend": backend,
            "torchgen-warm": warm,
        }


def _cpu_seconds() -> float:
    """CPU time of this process and of its reaped children, user and system."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed(run: Callable[[], object]) -> Timing:
    """Wall and CPU seconds of ``run()``; what it returns is freed after the clocks stop.

    torchgen's generators leave their parsed model in module-level caches, so
    freeing it is never part of their time; the schemac sides return their
    module for the same treatment (about 0.02 s of deallocation).
    """
    start, start_cpu = time.perf_counter(), _cpu_seconds()
    result = run()
    elapsed = time.perf_counter() - start, _cpu_seconds() - start_cpu
    del result
    return elapsed


def _load(target: str, inputs: Inputs) -> object:
    assert inputs.derivatives is not None and inputs.deprecated is not None
    return load_for_targets(
        [target],
        str(inputs.native_functions),
        str(inputs.tags),
        str(inputs.derivatives),
        str(inputs.deprecated),
    )


def _import_schemac(target: str) -> None:
    """What ``schemac compile -t TARGET`` imports before it starts work."""
    import schemac.backends.driver
    import schemac.frontend.loader
    import schemac.passes.manager  # noqa: F401
    from schemac.backends.registry import backends_for

    for entry in backends_for(target):
        entry.load()


#: Prepares one side in this process (imports, warm-up) and returns the run to time.
SidePreparer = Callable[[TargetBench, Inputs, Path], Callable[[], object]]


def _schemac_full(bench: TargetBench, inputs: Inputs, out: Path) -> Callable[[], object]:
    """What ``schemac compile -t TARGET`` does after its imports, with its default ``-j``."""
    _import_schemac(bench.target)
    from schemac.backends.driver import compile_to_directory
    from schemac.cli_pipeline import compile_pass_manager
    from schemac.compile_plan import split_late_work
    from schemac.frontend.loader import load_module
    from schemac.passes.base import PassContext

    assert inputs.derivatives is not None and inputs.deprecated is not None
    files = (inputs.native_functions, inputs.tags, inputs.derivatives, inputs.deprecated)
    targets = [bench.target]

    def run() -> object:
        context = PassContext()
        manager, late = split_late_work(compile_pass_manager(targets, None), targets, context)
        module = manager.run(context, load_module(*files)).module
        compile_to_directory(module, targets, out, jobs=None, late=late)
        return module  # freed after the clocks stop, see timed()

    return run


def _schemac_backend(bench: TargetBench, inputs: Inputs, out: Path) -> Callable[[], object]:
    _import_schemac(bench.target)
    from schemac.backends.driver import compile_to_directory
    from schemac.ir.module import Module

    module = _load(bench.target, inputs)
    assert isinstance(module, Module)
    return lambda: compile_to_directory(module, [bench.target], out, jobs=None)


def _torchgen_args(inputs: Inputs) -> tuple[str, str, str]:
    assert inputs.derivatives is not None
    return str(inputs.native_functions), str(inputs.tags), str(inputs.derivatives.parent)


def _torchgen_cold(bench: TargetBench, inputs: Inputs, out: Path) -> Callable[[], None]:
    for name in bench.torchgen_modules:
        importlib.import_module(name)
    native, tags, autograd_dir = _torchgen_args(inputs)
    return lambda: bench.torchgen(native, tags, autograd_dir, out)


def _torchgen_warm(bench: TargetBench, inputs: Inputs, out: Path) -> Callable[[], None]:
    run = _torchgen_cold(bench, inputs, out)
    with tempfile.TemporaryDirectory() as warm_up:
        bench.torchgen(*_torchgen_args(inputs), Path(warm_up))  # fills the parse caches
    return run


SIDES: dict[str, SidePreparer] = {
    "schemac": _schemac_full,
    "torchgen-cold": _torchgen_cold,
    "schemac-backend": _schemac_backend,
    "torchgen-warm": _torchgen_warm,
}


def run_side(bench: TargetBench, side: str, inputs: Inputs, out: Path) -> SideRun:
    """One timed run of ``side`` in a fresh interpreter (benchmarks/side_process.py)."""
    assert inputs.derivatives is not None and inputs.deprecated is not None
    files = (inputs.native_functions, inputs.tags, inputs.derivatives, inputs.deprecated)
    command = [sys.executable, "-m", "benchmarks.side_process", bench.module, side, str(out)]
    # Started by the spawner, so that its peak RSS is its own (benchmarks/spawner.py).
    result = spawner().run([*command, *map(str, files)], ROOT, capture_stdout=True)
    if result.returncode != 0:
        raise RuntimeError(f"{side} run failed:\n{result.stderr.decode(errors='replace')}")
    timing = json.loads(result.stdout.decode().strip().splitlines()[-1])
    return float(timing["wall"]), float(timing["cpu"]), float(timing["peak_mib"])


def measure(
    bench: TargetBench, inputs: Inputs, reps: int, *, verbose: bool = False
) -> dict[str, SideRun]:
    """Median wall and CPU time and largest peak RSS of each side, by label, over
    ``reps`` alternating rounds."""
    labels = bench.side_labels()
    times: dict[str, list[SideRun]] = {label: [] for label in labels.values()}
    with scratch_dir("bench_in_process_") as tmp:
        for rep in range(reps):
            for side, label in labels.items():
                out = Path(tmp) / f"{side}-{rep}"
                out.mkdir()
                # Trees are kept until the bench ends: benchmarks.scratch_dir.
                settle_file_system()
                times[label].append(run_side(bench, side, inputs, out))
            if verbose:
                print(
                    f"run {rep + 1}: "
                    + ", ".join(
                        f"{n} {t[-1][0]:.2f}s (cpu {t[-1][1]:.2f}s, {t[-1][2]:.0f} MiB)"
                        for n, t in times.items()
                    ),
                    flush=True,
                )
    return {
        name: (
            statistics.median(t[0] for t in ts),
            statistics.median(t[1] for t in ts),
            max(t[2] for t in ts),
        )
        for name, ts in times.items()
    }


def stages(bench: TargetBench, inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's stages: both comparisons, in wall and in CPU seconds.

    torchgen's autograd and Python generators read torch's derivatives.yaml,
    deprecated.yaml and templates from one directory (and reject other
    libraries' types), so only torch's own files are compared.
    """
    if not inputs.is_torch or inputs.derivatives is None or inputs.deprecated is None:
        raise Skip(f"torchgen's {bench.generator} only takes torch's own YAML files")
    medians = measure(bench, inputs, reps)
    result = []
    for label, ours, theirs in bench.pairs:
        notes = bench.backend_notes if label == "backend only" else ()
        for unit, index in (("wall s", 0), ("cpu s", 1)):
            result.append(
                Stage(
                    f"{bench.target} {label}",
                    medians[ours][index],
                    medians[theirs][index],
                    TARGET_RATIO,
                    unit,
                    notes=notes if index == 0 else (),
                )
            )
    (_, full, cold), _ = bench.pairs
    result.append(
        Stage(f"{bench.target} end-to-end peak RSS", medians[full][2], medians[cold][2], 1.0, "MiB")
    )
    return result


def main(bench: TargetBench, description: str) -> int:
    """A bench module run as a script: per-run times, the medians and the speed-ups."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--reps", type=int, default=5, help="runs of each side (default 5)")
    args = parser.parse_args()
    medians = measure(bench, Inputs.torch(), args.reps, verbose=True)
    print()
    for name, (wall, cpu, peak) in medians.items():
        print(f"median {name:38s} wall {wall:7.3f}s  cpu {cpu:7.3f}s  peak {peak:5.0f} MiB")
    for label, ours, theirs in bench.pairs:
        wall = medians[theirs][0] / medians[ours][0]
        cpu = medians[theirs][1] / medians[ours][1]
        print(f"speed-up {label:14s} wall {wall:5.2f}x  cpu {cpu:5.2f}x  (target >= 5x)")
    (_, full, cold), _ = bench.pairs
    ratio = medians[full][2] / medians[cold][2]
    print(f"peak RSS end-to-end {ratio:5.2f}x torchgen's  (target <= 1.00x)")
    return 0
