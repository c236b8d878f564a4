"""One side of an in-process comparison, timed in a fresh interpreter.

    python -m benchmarks.side_process BENCH_MODULE SIDE OUT NATIVE TAGS DERIVATIVES DEPRECATED

Prints one JSON line, ``{"wall": seconds, "cpu": seconds, "peak_mib": MiB}``, for one run of
``SIDE`` (a key of :data:`benchmarks.in_process.SIDES`) of the
:class:`~benchmarks.in_process.TargetBench` named ``BENCH`` in
``benchmarks.BENCH_MODULE``.

Why a process per run: a side timed in a process that also holds the other
sides' data pays for that data.  Measured on torchgen's gen_autograd_python,
whose run allocates enough to trigger several full garbage collections: each
full collection walks every object alive in the process, and with schemac's
loaded module and torchgen's warm caches alive beside it the same run took
2.9 s instead of 2.55 s.  A fresh interpreter gives every side the heap a user's
process would have.

What is timed: one call, after the modules it runs are imported (imports are
the same for every run and not what the comparison is about) and after the
warm-up that defines the warm sides (torchgen's parse caches filled, schemac's
module loaded).  Everything else a first call pays (parser tables, templates,
regular expressions) is inside the timing on both sides, as it is for a user.
Freeing the model built is not: torchgen's generators keep theirs in their
parse caches, and schemac's side hands its module back to be freed after the
clocks stop (``in_process.timed``).

Peak memory is the process's whole life (imports, warm-up and the run: what
a user's process would peak at; the larger of it and any helper process it
waited for), so it compares the end-to-end sides like for like; a warm side's
peak includes its warm-up.
"""

from __future__ import annotations

import gc
import importlib
import json
import resource
import sys
from pathlib import Path

# Runnable from anywhere: the checkout's benchmarks package and sources.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import Inputs
from benchmarks.in_process import SIDES, TargetBench, timed


def peak_mib() -> float:
    """Peak RSS of this process or of the largest child it reaped, in MiB (Linux: KiB)."""
    peaks = (
        resource.getrusage(who).ru_maxrss
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return max(peaks) / 1024


def main(argv: list[str]) -> int:
    bench_module, side, out, native, tags, derivatives, deprecated = argv
    bench = importlib.import_module(f"benchmarks.{bench_module}").BENCH
    assert isinstance(bench, TargetBench)
    inputs = Inputs(Path(native), Path(tags), Path(derivatives), Path(deprecated), True)
    run = SIDES[side](bench, inputs, Path(out))
    gc.collect()  # the warm-up's garbage is not the timed run's
    wall, cpu = timed(run)
    print(json.dumps({"wall": wall, "cpu": cpu, "peak_mib": peak_mib()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
