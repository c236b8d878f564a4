"""Python-bindings speed: ``schemac compile -t python`` against torchgen's gen_autograd_python.

Both sides start from the YAML files of the installed torch and end with files
on disk, in one process, alternating run by run so machine load hits both
alike (torchgen's module-level parse caches are cleared before each of its
runs, so every run does the full work):

* schemac: load native_functions/tags/derivatives/deprecated, run the pass
  pipeline, emit the ``python`` target and commit it to a temporary directory
  (exactly what ``schemac compile -t python`` does).
* torchgen, bindings: ``gen_python_functions.gen`` (parse the YAML, write the
  binding files, return types and Tag enum) - the same outputs schemac writes.
* torchgen, full: ``gen_autograd_python``, which also loads derivatives.yaml
  and writes python_functions*.cpp (autograd nodes' Python accessors, which
  schemac's python target does not emit yet; see docs/python.md).

    PYTHONPATH=src python benchmarks/bench_python.py [--reps N]

Prints per-run times, the medians and the ratios (target: schemac >= 5x faster).
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from schemac.backends.driver import compile_to_directory
from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.passes.manager import run_pipeline

if TYPE_CHECKING:
    from benchmarks import Inputs, Stage


def _schemac(
    native: str, tags: str, derivatives: str, deprecated: str, out: Path
) -> Callable[[], None]:
    def run() -> None:
        module = run_pipeline(load_module(native, tags, derivatives, deprecated)).module
        compile_to_directory(module, ["python"], out)

    return run


def _clear_torchgen_caches() -> None:
    import torchgen.gen as gen
    import torchgen.packaged.autograd.load_derivatives as ld

    gen._GLOBAL_PARSE_NATIVE_YAML_CACHE.clear()
    gen._GLOBAL_PARSE_TAGS_YAML_CACHE.clear()
    gen.parse_tags_yaml.cache_clear()
    ld._GLOBAL_LOAD_DERIVATIVE_CACHE.clear()


def _torchgen_bindings(native: str, tags: str, deprecated: str, out: Path) -> Callable[[], None]:
    import torchgen
    from torchgen.packaged.autograd import gen_python_functions

    templates = str(Path(torchgen.__file__).parent / "packaged/autograd/templates")

    def run() -> None:
        _clear_torchgen_caches()
        gen_python_functions.gen(str(out), native, tags, deprecated, templates)

    return run


def _torchgen_full(native: str, tags: str, autograd_dir: str, out: Path) -> Callable[[], None]:
    from torchgen.packaged.autograd.gen_autograd import gen_autograd_python

    def run() -> None:
        _clear_torchgen_caches()
        gen_autograd_python(native, tags, str(out), autograd_dir)

    return run


def _time(run: Callable[[], None]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process): CPU time is robust to a busy machine."""
    start, start_cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - start, time.process_time() - start_cpu


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py): schemac -t python vs gen_autograd_python.

    gen_autograd_python reads torch's own derivatives.yaml from its template
    directory, and torchgen's bindings reject types the toy library uses, so
    only torch's own files are compared.
    """
    from benchmarks import Skip, Stage, median

    if not inputs.is_torch or inputs.derivatives is None or inputs.deprecated is None:
        raise Skip("torchgen's Python generators only take torch's own YAML files")
    native, tags = str(inputs.native_functions), str(inputs.tags)
    derivatives, deprecated = str(inputs.derivatives), str(inputs.deprecated)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for path in ("schemac", "tg"):
            (root / path).mkdir()
        ours = _schemac(native, tags, derivatives, deprecated, root / "schemac")
        theirs = _torchgen_full(native, tags, str(Path(derivatives).parent), root / "tg")
        schemac_times: list[float] = []
        torchgen_times: list[float] = []
        for _ in range(reps):
            schemac_times.append(_time(ours)[0])
            torchgen_times.append(_time(theirs)[0])
    return [Stage("python bindings", median(schemac_times), median(torchgen_times), 0.2)]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="runs of each side (default 5)")
    args = parser.parse_args()

    paths = torch_yaml_paths()
    native, tags = str(paths.native_functions), str(paths.tags)
    derivatives, deprecated = str(paths.derivatives), str(paths.deprecated)
    autograd_dir = str(Path(derivatives).parent)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sides = {
            "schemac -t python": _schemac(native, tags, derivatives, deprecated, root / "schemac"),
            "torchgen bindings": _torchgen_bindings(native, tags, deprecated, root / "tg_bind"),
            "torchgen gen_autograd_python": _torchgen_full(native, tags, autograd_dir, root / "tg"),
        }
        for path in ("schemac", "tg_bind", "tg"):
            (root / path).mkdir()
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        for rep in range(args.reps):
            for name, run in sides.items():
                times[name].append(_time(run))
            print(
                f"run {rep + 1}: "
                + ", ".join(f"{n} {t[-1][0]:.2f}s (cpu {t[-1][1]:.2f}s)" for n, t in times.items())
            )

    print()
    for kind, index in (("wall", 0), ("cpu", 1)):
        medians = {name: statistics.median(t[index] for t in ts) for name, ts in times.items()}
        for name, median in medians.items():
            print(f"median {kind} {name:32s} {median:7.3f}s")
        ours = medians["schemac -t python"]
        for name in ("torchgen bindings", "torchgen gen_autograd_python"):
            print(f"speed-up ({kind}) vs {name:29s} {medians[name] / ours:6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
