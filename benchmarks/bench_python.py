"""Python-bindings speed: ``schemac compile -t python`` against torchgen's gen_autograd_python.

Both sides start from the YAML files of the installed torch and end with files
on disk, in one process, alternating run by run so machine load hits both
alike.  Four sides:

* schemac end-to-end: load native_functions/tags/derivatives/deprecated, run
  the passes the python target needs, emit the ``python`` target and commit it to a temporary
  directory (exactly what ``schemac compile -t python`` does).
* torchgen gen_autograd_python (cold): its module-level parse caches are
  cleared first, so it parses the YAML and loads derivatives.yaml every run
  and writes the same files (bindings, return types, Tag enum,
  python_functions for the autograd nodes).
* schemac backend only: the python target on an already-loaded module.
* torchgen gen_autograd_python (warm): the same with its parse caches warm.

    PYTHONPATH=src python benchmarks/bench_python.py [--reps N]

Prints per-run wall and CPU times, medians and ratios (target: schemac >= 5x
faster).  CPU time (of this process) is reported next to wall time because
it is far less sensitive to other jobs on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

# Runnable as a script: the checkout's sources and the benchmarks package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import clear_torchgen_caches, load_for_targets
from schemac.backends.driver import compile_to_directory
from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.ir.module import Module

if TYPE_CHECKING:
    from benchmarks import Inputs, Stage

#: (wall seconds, CPU seconds) of one run.
Timing = tuple[float, float]


def _load(native: str, tags: str, derivatives: str, deprecated: str) -> Module:
    module = load_for_targets(["python"], native, tags, derivatives, deprecated)
    assert isinstance(module, Module)
    return module


def _schemac_full(
    native: str, tags: str, derivatives: str, deprecated: str, out: Path
) -> Callable[[], None]:
    def run() -> None:
        compile_to_directory(_load(native, tags, derivatives, deprecated), ["python"], out)

    return run


def _schemac_backend(module: Module, out: Path) -> Callable[[], None]:
    def run() -> None:
        compile_to_directory(module, ["python"], out)

    return run


def _torchgen(
    native: str, tags: str, autograd_dir: str, out: Path, *, cold: bool
) -> Callable[[], None]:
    from torchgen.packaged.autograd.gen_autograd import gen_autograd_python

    def run() -> None:
        if cold:
            clear_torchgen_caches()
        gen_autograd_python(native, tags, str(out), autograd_dir)

    return run


def _time(run: Callable[[], None]) -> Timing:
    start, start_cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - start, time.process_time() - start_cpu


def _sides(
    root: Path, native: str, tags: str, derivatives: str, deprecated: str
) -> dict[str, Callable[[], None]]:
    autograd_dir = str(Path(derivatives).parent)
    for name in ("full", "backend", "tg_cold", "tg_warm"):
        (root / name).mkdir()
    module = _load(native, tags, derivatives, deprecated)
    # Warm torchgen's caches once so the "warm" side starts warm.
    _torchgen(native, tags, autograd_dir, root / "tg_warm", cold=True)()
    return {
        "schemac end-to-end": _schemac_full(native, tags, derivatives, deprecated, root / "full"),
        "torchgen gen_autograd_python (cold)": _torchgen(
            native, tags, autograd_dir, root / "tg_cold", cold=True
        ),
        "schemac backend only": _schemac_backend(module, root / "backend"),
        "torchgen gen_autograd_python (warm)": _torchgen(
            native, tags, autograd_dir, root / "tg_warm", cold=False
        ),
    }


def _measure(
    sides: dict[str, Callable[[], None]], reps: int, *, verbose: bool
) -> dict[str, Timing]:
    times: dict[str, list[Timing]] = {name: [] for name in sides}
    for rep in range(reps):
        for name, run in sides.items():
            times[name].append(_time(run))
        if verbose:
            print(
                f"run {rep + 1}: "
                + ", ".join(f"{n} {t[-1][0]:.2f}s (cpu {t[-1][1]:.2f}s)" for n, t in times.items())
            )
    return {
        name: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts))
        for name, ts in times.items()
    }


_PAIRS = (
    ("end-to-end", "schemac end-to-end", "torchgen gen_autograd_python (cold)"),
    ("backend only", "schemac backend only", "torchgen gen_autograd_python (warm)"),
)


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py).

    gen_autograd_python reads torch's derivatives.yaml, deprecated.yaml and
    templates from one directory, so only torch's own files are compared.
    """
    from benchmarks import Skip, Stage

    if not inputs.is_torch or inputs.derivatives is None or inputs.deprecated is None:
        raise Skip("torchgen's gen_autograd_python only takes torch's own YAML files")
    with tempfile.TemporaryDirectory() as tmp:
        sides = _sides(
            Path(tmp),
            str(inputs.native_functions),
            str(inputs.tags),
            str(inputs.derivatives),
            str(inputs.deprecated),
        )
        medians = _measure(sides, reps, verbose=False)
    stages = []
    for label, ours, theirs in _PAIRS:
        for unit, index in (("wall s", 0), ("cpu s", 1)):
            stages.append(
                Stage(f"python {label}", medians[ours][index], medians[theirs][index], 0.2, unit)
            )
    return stages


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="runs of each side (default 5)")
    args = parser.parse_args()

    paths = torch_yaml_paths()
    with tempfile.TemporaryDirectory() as tmp:
        sides = _sides(
            Path(tmp),
            str(paths.native_functions),
            str(paths.tags),
            str(paths.derivatives),
            str(paths.deprecated),
        )
        medians = _measure(sides, args.reps, verbose=True)

    print()
    for name, (wall, cpu) in medians.items():
        print(f"median {name:38s} wall {wall:7.3f}s  cpu {cpu:7.3f}s")
    for label, ours, theirs in _PAIRS:
        wall = medians[theirs][0] / medians[ours][0]
        cpu = medians[theirs][1] / medians[ours][1]
        print(f"speed-up {label:14s} wall {wall:5.2f}x  cpu {cpu:5.2f}x  (target >= 5x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
