"""Middle-end speed: schemac's load + whole pass pipeline against torchgen's equivalent.

schemac: ``load_module`` (native_functions, tags, derivatives) followed by every
registered pass (``run_pipeline``; whatever the registry holds, so passes added
later are measured too).  torchgen: ``parse_native_yaml`` (which includes the
synthesis of autogen variants), ``get_grouped_native_functions``,
``get_grouped_by_view_native_functions`` and ``load_derivatives`` (which
matches derivatives to functions).  The two alternate in one process so that
machine load hits both alike; torchgen's module-level caches are cleared
before each of its runs so every run does the full work.

    PYTHONPATH=src python benchmarks/bench_middle_end.py [--reps N] [--verify] [--no-derivatives]

Prints per-run times, the medians, their ratio (target: schemac <= 0.5x), and
schemac's per-pass median times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager

if TYPE_CHECKING:
    from benchmarks import Inputs, Stage


def _schemac(
    native: str, tags: str, derivatives: str | None, verify: bool
) -> Callable[[], dict[str, float]]:
    manager = PassManager.default()

    def run() -> dict[str, float]:
        start = time.perf_counter()
        module = load_module(native, tags, derivatives)
        loaded = time.perf_counter()
        result = manager.run(PassContext(verify=verify), module)
        times = {"load": loaded - start}
        times.update({t.name: t.seconds + t.verify_seconds for t in result.timings})
        return times

    return run


def _torchgen(native: str, tags: str, derivatives: str | None) -> Callable[[], object]:
    import torchgen.gen as gen
    import torchgen.packaged.autograd.load_derivatives as ld

    def run() -> object:
        gen._GLOBAL_PARSE_NATIVE_YAML_CACHE.clear()
        gen._GLOBAL_PARSE_TAGS_YAML_CACHE.clear()
        gen.parse_tags_yaml.cache_clear()
        ld._GLOBAL_LOAD_DERIVATIVE_CACHE.clear()
        parsed = gen.parse_native_yaml(native, tags)
        grouped = gen.get_grouped_native_functions(parsed.native_functions)
        by_view = gen.get_grouped_by_view_native_functions(parsed.native_functions)
        if derivatives is None:
            return parsed, grouped, by_view
        infos = ld.load_derivatives(derivatives, native, tags)
        return parsed, grouped, by_view, infos

    return run


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py): load + passes, with derivatives if any."""
    from benchmarks import Stage, median

    native, tags = str(inputs.native_functions), str(inputs.tags)
    derivatives = str(inputs.derivatives) if inputs.derivatives else None
    ours, theirs = _schemac(native, tags, derivatives, False), _torchgen(native, tags, derivatives)
    ours()
    theirs()
    # (wall, CPU) per run: CPU time is steadier on a shared machine.
    schemac_times: list[tuple[float, float]] = []
    torchgen_times: list[tuple[float, float]] = []
    for _ in range(reps):
        for side, times in ((ours, schemac_times), (theirs, torchgen_times)):
            start, start_cpu = time.perf_counter(), time.process_time()
            side()
            times.append((time.perf_counter() - start, time.process_time() - start_cpu))
    name = "middle end (load+passes)" if derivatives else "middle end (no derivatives)"
    return [
        Stage(
            name,
            median([t[index] for t in schemac_times]),
            median([t[index] for t in torchgen_times]),
            0.5,
            unit=unit,
        )
        for index, unit in ((0, "wall s"), (1, "cpu s"))
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="runs of each side (default 7)")
    parser.add_argument("--verify", action="store_true", help="verify the IR between passes")
    parser.add_argument(
        "--no-derivatives",
        action="store_true",
        help="leave derivatives.yaml out on both sides (compares native-function "
        "resolution, synthesis and grouping alone)",
    )
    args = parser.parse_args()

    paths = torch_yaml_paths()
    native, tags, derivs = (
        str(paths.native_functions),
        str(paths.tags),
        str(paths.derivatives),
    )
    derivatives = None if args.no_derivatives else derivs
    ours = _schemac(native, tags, derivatives, args.verify)
    theirs = _torchgen(native, tags, derivatives)
    ours()  # warm imports and file caches on both sides
    theirs()

    schemac_times: list[float] = []
    torchgen_times: list[float] = []
    per_stage: dict[str, list[float]] = {}
    for rep in range(args.reps):
        start = time.perf_counter()
        stages = ours()
        schemac_times.append(time.perf_counter() - start)
        for name, seconds in stages.items():
            per_stage.setdefault(name, []).append(seconds)
        start = time.perf_counter()
        theirs()
        torchgen_times.append(time.perf_counter() - start)
        print(
            f"run {rep + 1}: schemac {schemac_times[-1]:.3f}s  torchgen {torchgen_times[-1]:.3f}s"
        )

    ours_median = statistics.median(schemac_times)
    theirs_median = statistics.median(torchgen_times)
    print(f"\nmedian schemac  {ours_median:.3f}s  (load + {len(per_stage) - 1} passes)")
    print(f"median torchgen {theirs_median:.3f}s")
    print(f"ratio schemac/torchgen = {ours_median / theirs_median:.2f}x (target <= 0.5x)")
    print("\nschemac median per stage:")
    for name, seconds in per_stage.items():
        print(f"  {name:<20} {statistics.median(seconds):.3f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
