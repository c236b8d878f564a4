"""One schemac target against the torchgen generator that writes the same files, in process.

The autograd and Python-bindings benches (bench_autograd.py, bench_python.py)
are the same experiment with a different target and generator, so they share
this scaffolding.  Four sides run in one process, in turn, rep after rep, so
the load of a shared machine hits all of them alike:

* schemac end to end: load the YAML, run the passes the target needs, emit
  the target and commit it to a directory (what ``schemac compile -t TARGET``
  does);
* torchgen cold: the generator with its module-level parse caches cleared
  first, so it parses the YAML (and loads derivatives.yaml) every run;
* schemac backend only: emit and commit from a module loaded once (the
  front end and the passes are shared by every target);
* torchgen warm: the generator with its parse caches warm (it still matches
  derivatives to functions and writes every file).

Each run is timed in wall and CPU seconds of this process; CPU time is far
less sensitive to other jobs on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks import Inputs, Skip, Stage, clear_torchgen_caches, load_for_targets

#: (wall seconds, CPU seconds) of one run.
Timing = tuple[float, float]

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
    #: Extra notes on the backend-only stage.
    backend_notes: tuple[str, ...] = ()

    @property
    def pairs(self) -> tuple[tuple[str, str, str], ...]:
        """(stage label, schemac side, torchgen side) of the two comparisons."""
        return (
            ("end-to-end", "schemac end-to-end", f"torchgen {self.generator} (cold)"),
            ("backend only", "schemac backend only", f"torchgen {self.generator} (warm)"),
        )


def timed(run: Callable[[], None]) -> Timing:
    start, start_cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - start, time.process_time() - start_cpu


def _load(target: str, inputs: Inputs) -> object:
    assert inputs.derivatives is not None and inputs.deprecated is not None
    return load_for_targets(
        [target],
        str(inputs.native_functions),
        str(inputs.tags),
        str(inputs.derivatives),
        str(inputs.deprecated),
    )


def sides(bench: TargetBench, inputs: Inputs, root: Path) -> dict[str, Callable[[], None]]:
    """The four runs, in the order they alternate; each writes to its own directory."""
    from schemac.backends.driver import compile_to_directory
    from schemac.ir.module import Module

    assert inputs.derivatives is not None
    native, tags = str(inputs.native_functions), str(inputs.tags)
    autograd_dir = str(inputs.derivatives.parent)
    for name in ("full", "backend", "tg_cold", "tg_warm"):
        (root / name).mkdir()
    targets = [bench.target]
    loaded = _load(bench.target, inputs)
    assert isinstance(loaded, Module)
    module: Module = loaded

    def schemac_full() -> None:
        fresh = _load(bench.target, inputs)
        assert isinstance(fresh, Module)
        compile_to_directory(fresh, targets, root / "full")

    def schemac_backend() -> None:
        compile_to_directory(module, targets, root / "backend")

    def torchgen_cold() -> None:
        clear_torchgen_caches()
        bench.torchgen(native, tags, autograd_dir, root / "tg_cold")

    def torchgen_warm() -> None:
        bench.torchgen(native, tags, autograd_dir, root / "tg_warm")

    torchgen_cold()  # warms torchgen's caches, so the warm side starts warm
    full, backend = (label for _, label, _ in bench.pairs)
    cold, warm = (label for _, _, label in bench.pairs)
    return {full: schemac_full, cold: torchgen_cold, backend: schemac_backend, warm: torchgen_warm}


def measure(
    runs: dict[str, Callable[[], None]], reps: int, *, verbose: bool = False
) -> dict[str, Timing]:
    """Median (wall, CPU) of each side over ``reps`` alternating rounds."""
    times: dict[str, list[Timing]] = {name: [] for name in runs}
    for rep in range(reps):
        for name, run in runs.items():
            times[name].append(timed(run))
        if verbose:
            print(
                f"run {rep + 1}: "
                + ", ".join(f"{n} {t[-1][0]:.2f}s (cpu {t[-1][1]:.2f}s)" for n, t in times.items())
            )
    return {
        name: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts))
        for name, ts in times.items()
    }


def _medians(bench: TargetBench, inputs: Inputs, reps: int, *, verbose: bool) -> dict[str, Timing]:
    with tempfile.TemporaryDirectory() as tmp:
        return measure(sides(bench, inputs, Path(tmp)), reps, verbose=verbose)


def stages(bench: TargetBench, inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's stages: both comparisons, in wall and in CPU seconds.

    torchgen's autograd and Python generators read torch's derivatives.yaml,
    deprecated.yaml and templates from one directory (and reject other
    libraries' types), so only torch's own files are compared.
    """
    if not inputs.is_torch or inputs.derivatives is None or inputs.deprecated is None:
        raise Skip(f"torchgen's {bench.generator} only takes torch's own YAML files")
    medians = _medians(bench, inputs, reps, verbose=False)
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
    return result


def main(bench: TargetBench, description: str) -> int:
    """A bench module run as a script: per-run times, the medians and the speed-ups."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--reps", type=int, default=5, help="runs of each side (default 5)")
    args = parser.parse_args()
    medians = _medians(bench, Inputs.torch(), args.reps, verbose=True)
    print()
    for name, (wall, cpu) in medians.items():
        print(f"median {name:38s} wall {wall:7.3f}s  cpu {cpu:7.3f}s")
    for label, ours, theirs in bench.pairs:
        wall = medians[theirs][0] / medians[ours][0]
        cpu = medians[theirs][1] / medians[ours][1]
        print(f"speed-up {label:14s} wall {wall:5.2f}x  cpu {cpu:5.2f}x  (target >= 5x)")
    return 0
