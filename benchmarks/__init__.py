"""Benchmarks: schemac and torchgen side by side, reported as ratios.

Every ``bench_*`` module here measures one stage of the compiler against the
torchgen code that does the same job, on the same input, in the same run,
alternating the two sides so that the load of a shared machine hits both
alike.  Absolute times on such a machine say little; the ratio of medians is
what the targets are stated in, and what ``python -m benchmarks`` prints.

This package holds what the modules and the runner share: the input files
(:class:`Inputs`), one measured stage (:class:`Stage`), and the median
helpers.  Each module exposes ``bench(inputs, reps) -> list[Stage]`` for the
runner (``benchmarks/__main__.py``) and keeps its own ``main()`` for detailed
output when run as a script.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

# The benchmarks measure the checkout they live in, installed or not.
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))


@dataclass(frozen=True)
class Inputs:
    """The YAML files both sides read.  ``is_torch`` is False for a small library like toyops."""

    native_functions: Path
    tags: Path
    derivatives: Path | None
    deprecated: Path | None
    is_torch: bool

    @staticmethod
    def torch() -> Inputs:
        from schemac.frontend.torch_paths import torch_yaml_paths

        paths = torch_yaml_paths()
        return Inputs(paths.native_functions, paths.tags, paths.derivatives, paths.deprecated, True)

    @staticmethod
    def directory(path: Path) -> Inputs:
        """A library laid out like examples/toyops (derivatives/deprecated optional)."""
        path = path.resolve()  # the sides run in other working directories

        def optional(name: str) -> Path | None:
            candidate = path / name
            return candidate if candidate.is_file() else None

        return Inputs(
            path / "native_functions.yaml",
            path / "tags.yaml",
            optional("derivatives.yaml"),
            optional("deprecated.yaml"),
            False,
        )


@dataclass(frozen=True)
class Stage:
    """One measured comparison: the medians of both sides and what the target asks."""

    name: str
    schemac: float
    torchgen: float
    #: Largest acceptable ``schemac / torchgen`` ratio (0.2 means "5x faster").
    target_ratio: float
    #: What is measured ("wall s", "peak MiB"); the table prints it next to the medians.
    unit: str = "wall s"
    notes: tuple[str, ...] = field(default=())

    @property
    def ratio(self) -> float:
        return self.schemac / self.torchgen if self.torchgen else float("inf")

    @property
    def met(self) -> bool:
        return self.ratio <= self.target_ratio


class Skip(Exception):
    """A bench cannot compare on these inputs (say why); the runner lists it as skipped."""


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def target_text(ratio: float) -> str:
    """``<= 0.50x``, or ``>= 5x faster`` for targets stated as a speed-up."""
    if ratio < 0.5 and ratio > 0:
        return f">= {1 / ratio:.0f}x faster"
    return f"<= {ratio:.2f}x"


def load_for_targets(
    targets: Sequence[str], native: str, tags: str, derivatives: str, deprecated: str
) -> object:
    """The module `schemac compile -t TARGETS` lowers: loaded, and run through
    exactly the passes those targets' backends require."""
    from schemac.backends.registry import required_facts
    from schemac.frontend.loader import load_module
    from schemac.passes.base import PassContext
    from schemac.passes.manager import PassManager

    passes = PassManager.for_requirements(required_facts(list(targets)))
    module = load_module(native, tags, derivatives, deprecated)
    return passes.run(PassContext(), module).module


def settle_file_system() -> None:
    """Write back what earlier runs left dirty before the next run's clock starts.

    Each side creates ~7,800 files; without this, the kernel writes the last
    run's pages back during the next run, which then pays system time for
    work that is not its own.  Trees are not deleted between runs either
    (:func:`scratch_dir`).
    """
    os.sync()


#: Where :func:`scratch_dir` directories go while ``python -m benchmarks`` runs
#: (set by ``__main__``, removed when every module is done).
SESSION_SCRATCH: Path | None = None


def scratch_dir(prefix: str) -> contextlib.AbstractContextManager[str]:
    """A scratch directory for one benchmark module's runs.

    Under ``python -m benchmarks`` it is kept until every module has run:
    ext4 (without a journal, as here) avoids reusing an inode deleted in the
    last 60-300 s, so creating thousands of files right after deleting a tree
    costs seconds of system time on either side (docs/performance.md,
    "Creating 7,700 files").  Deleting only at the very end keeps that out of
    every timed run.  A module run alone cleans up after itself.
    """
    if SESSION_SCRATCH is None:
        return tempfile.TemporaryDirectory(prefix=prefix)
    return contextlib.nullcontext(tempfile.mkdtemp(prefix=prefix, dir=SESSION_SCRATCH))
