"""Front-end speed: schemac's loader against torchgen's ``parse_native_yaml``.

Both load the installed torch's native_functions.yaml and tags.yaml into their
in-memory model, several times, in one process, alternating so that machine
load affects both alike.  torchgen memoises parses in module-level caches; they
are cleared before each of its runs so every run does the full work.  schemac
has no such caches (a fresh SchemaParser per load).

    PYTHONPATH=src python benchmarks/bench_frontend.py [--reps N] [--profile]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import torch_yaml_paths

if TYPE_CHECKING:
    from benchmarks import Inputs, Stage


def _torchgen_loader(native: str, tags: str) -> Callable[[], object]:
    import torchgen.gen as gen
    import torchgen.model as model

    def run() -> object:
        gen._GLOBAL_PARSE_NATIVE_YAML_CACHE.clear()
        gen._GLOBAL_PARSE_TAGS_YAML_CACHE.clear()
        # FunctionSchema.parse and friends may be functools caches in some versions.
        for name in dir(model):
            obj = getattr(model, name)
            for attr in ("parse",):
                fn = getattr(obj, attr, None)
                if hasattr(fn, "cache_clear"):
                    fn.cache_clear()
        return gen.parse_native_yaml(native, tags)

    return run


def _time(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall time and this process's CPU time (steadier on a shared machine)."""
    gc.collect()
    start, start_cpu = time.perf_counter(), time.process_time()
    result = fn()
    elapsed = time.perf_counter() - start, time.process_time() - start_cpu
    del result  # freeing the model is not part of loading it
    return elapsed


def _measure(
    native: str, tags: str, reps: int
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(wall, cpu) of each rep for schemac and for torchgen, alternating sides."""
    torchgen_run = _torchgen_loader(native, tags)

    def schemac_run() -> object:
        return load_module(native, tags)

    schemac_run()  # warm up: grammar table, imports
    torchgen_run()
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for _ in range(reps):
        ours.append(_time(schemac_run))
        theirs.append(_time(torchgen_run))
    return ours, theirs


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py): wall and CPU medians."""
    from benchmarks import Stage, median

    ours, theirs = _measure(str(inputs.native_functions), str(inputs.tags), reps)
    return [
        Stage(
            "front end (load)",
            median([t[index] for t in ours]),
            median([t[index] for t in theirs]),
            0.5,
            unit=unit,
        )
        for index, unit in ((0, "wall s"), (1, "cpu s"))
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="runs of each loader (default 7)")
    parser.add_argument("--profile", action="store_true", help="cProfile one schemac load")
    args = parser.parse_args()

    paths = torch_yaml_paths()
    native, tags = str(paths.native_functions), str(paths.tags)
    if args.profile:
        import cProfile
        import pstats

        load_module(native, tags)  # warm up: grammar table, imports
        profile = cProfile.Profile()
        profile.runcall(load_module, native, tags)
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
        return 0

    ours, theirs = _measure(native, tags, args.reps)
    print(f"native_functions.yaml + tags.yaml, {args.reps} reps each, median (min):")
    for label, index in (("wall", 0), ("cpu", 1)):
        mine = [t[index] for t in ours]
        ref = [t[index] for t in theirs]
        print(
            f"  {label:4}  schemac {statistics.median(mine):.3f} s ({min(mine):.3f})"
            f"  torchgen {statistics.median(ref):.3f} s ({min(ref):.3f})"
            f"  ratio schemac/torchgen {statistics.median(mine) / statistics.median(ref):.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
