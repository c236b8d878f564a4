"""Autograd speed: ``schemac compile -t autograd`` against torchgen's gen_autograd.

Both sides start from the YAML files of the installed torch and end with the
same family of files on disk (Functions.h/.cpp, VariableType_<n>.cpp,
ADInplaceOrViewType_<n>.cpp, TraceType_<n>.cpp, ViewFuncs.h/.cpp,
variable_factories.h), in one process, alternating run by run so that the
load of a shared machine hits both alike.  Two comparisons:

* end to end: schemac loads the YAML, runs the pass pipeline, emits the
  ``autograd`` target and commits it; torchgen runs ``gen_autograd`` with its
  module-level parse caches cleared (so it parses and loads derivatives.yaml
  every time).
* backend only: the front end and passes are shared costs of every schemac
  target, so schemac emits and commits from a module built once, and
  torchgen runs ``gen_autograd`` with its parse and derivatives caches warm
  (it still matches derivatives to functions and writes every file).

    PYTHONPATH=src python benchmarks/bench_autograd.py [--reps N]

Prints per-run times, the medians and the speed-ups (target: >= 5x).
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


def _load(native: str, tags: str, derivatives: str, deprecated: str) -> Module:
    module = load_for_targets(["autograd"], native, tags, derivatives, deprecated)
    assert isinstance(module, Module)
    return module


def _schemac_full(
    native: str, tags: str, derivatives: str, deprecated: str, out: Path
) -> Callable[[], None]:
    def run() -> None:
        compile_to_directory(_load(native, tags, derivatives, deprecated), ["autograd"], out)

    return run


def _schemac_backend(module: Module, out: Path) -> Callable[[], None]:
    def run() -> None:
        compile_to_directory(module, ["autograd"], out)

    return run


def _torchgen(
    native: str, tags: str, autograd_dir: str, out: Path, *, cold: bool
) -> Callable[[], None]:
    from torchgen.packaged.autograd.gen_autograd import gen_autograd
    from torchgen.selective_build.selector import SelectiveBuilder

    def run() -> None:
        if cold:
            clear_torchgen_caches()
        gen_autograd(native, tags, str(out), autograd_dir, SelectiveBuilder.get_nop_selector())

    return run


def _time(run: Callable[[], None]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _measure(sides: dict[str, Callable[[], None]], reps: int, *, verbose: bool) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in sides}
    for rep in range(reps):
        for name, run in sides.items():
            times[name].append(_time(run))
        if verbose:
            print(f"run {rep + 1}: " + ", ".join(f"{n} {t[-1]:.2f}s" for n, t in times.items()))
    return {name: statistics.median(ts) for name, ts in times.items()}


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
        "torchgen gen_autograd (cold)": _torchgen(
            native, tags, autograd_dir, root / "tg_cold", cold=True
        ),
        "schemac backend only": _schemac_backend(module, root / "backend"),
        "torchgen gen_autograd (warm)": _torchgen(
            native, tags, autograd_dir, root / "tg_warm", cold=False
        ),
    }


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py).

    gen_autograd reads torch's derivatives.yaml and templates from one
    directory and rejects other libraries' types, so only torch's own files
    are compared.
    """
    from benchmarks import Skip, Stage

    if not inputs.is_torch or inputs.derivatives is None or inputs.deprecated is None:
        raise Skip("torchgen's gen_autograd only takes torch's own YAML files")
    with tempfile.TemporaryDirectory() as tmp:
        sides = _sides(
            Path(tmp),
            str(inputs.native_functions),
            str(inputs.tags),
            str(inputs.derivatives),
            str(inputs.deprecated),
        )
        medians = _measure(sides, reps, verbose=False)
    return [
        Stage(
            "autograd end-to-end",
            medians["schemac end-to-end"],
            medians["torchgen gen_autograd (cold)"],
            0.2,
        ),
        Stage(
            "autograd backend only",
            medians["schemac backend only"],
            medians["torchgen gen_autograd (warm)"],
            0.2,
            notes=("front end and passes shared by all targets; torchgen's parse caches warm",),
        ),
    ]


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
    for name, value in medians.items():
        print(f"median {name:30s} {value:7.3f}s")
    full = medians["torchgen gen_autograd (cold)"] / medians["schemac end-to-end"]
    backend = medians["torchgen gen_autograd (warm)"] / medians["schemac backend only"]
    print(f"speed-up end-to-end  (torchgen cold / schemac)      {full:6.2f}x")
    print(f"speed-up backend only (torchgen warm / schemac emit) {backend:6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
