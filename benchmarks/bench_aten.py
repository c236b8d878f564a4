"""ATen backend speed and memory: ``schemac compile -t <ATen targets>`` against ``torchgen.gen``.

Both sides run as they are used, each in its own subprocess, from the YAML to
files on disk: torchgen as ``python -m torchgen.gen -s ATEN -d OUT
--per-operator-headers --mps --xpu --mtia`` (what a PyTorch build runs), schemac as
``python -m schemac compile --torch -t headers,schema,cpu,... -o OUT`` with
every target except autograd and python (those are torchgen's other
generators; see bench_python).  Each rep writes into fresh directories;
the two sides alternate, and swap which goes first every rep, so that the
load of a shared machine hits both alike.

Wall time, CPU time and peak RSS are taken per child from ``os.wait4``
(``getrusage(RUSAGE_CHILDREN)`` only reports the largest child ever reaped,
so deltas of it say nothing once a bigger child has run).  torchgen writes
AOTInductor shims into its working directory, so it runs in a scratch cwd.
schemac's modules are byte-compiled first, as pip does for an installed
package (torchgen's were, when torch was installed).

Finally schemac is run once more over its last output with unchanged input:
every file must keep its inode and mtime (write-if-changed).

    python -m benchmarks.bench_aten [--reps N] [--input DIR]
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks import SRC, Inputs, Stage, median, scratch_dir, settle_file_system
from benchmarks.spawner import spawner
from schemac.backends.registry import NOT_IN_ALL, TARGET_NAMES
from schemac.rebuild.fragments import FRAGMENTS_NAME
from schemac.rebuild.state import STATE_NAME

#: The targets whose outputs torchgen.gen writes: autograd and python come from
#: gen_autograd*, the backend target from gen_backend_stubs (bench_backend_stubs),
#: and the targets outside ``all`` (the extension) lay out another kind of output.
ATEN_TARGETS: tuple[str, ...] = tuple(
    t for t in TARGET_NAMES if t not in ("autograd", "python", "backend") and t not in NOT_IN_ALL
)


@dataclass(frozen=True)
class ChildRun:
    wall: float
    #: User time and system (kernel) time of the child and the processes it
    #: waited for (schemac's -j helper): most of the system time is creating
    #: ~7,700 files, which varies with the file system's state.
    user: float
    system: float
    #: Peak resident set size of the child (the larger of it and its helper), MiB.
    peak_mib: float

    @property
    def cpu(self) -> float:
        return self.user + self.system


@dataclass(frozen=True)
class Rewrites:
    """What a second run over unchanged input did to the files of the first."""

    files: int
    changed: int  # inode or mtime differs
    created: int
    removed: int


def run_child(argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> ChildRun:
    """Run ``argv`` to completion; its own wall time, CPU time and peak RSS
    (started by the bench's spawner: benchmarks/spawner.py says why)."""
    settle_file_system()
    done = spawner().run(argv, cwd, env)
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace")[-2000:]
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{tail}")
    # Linux reports ru_maxrss in KiB.
    return ChildRun(done.wall, done.user, done.system, done.maxrss / 1024)


def _torchgen_source(inputs: Inputs, scratch: Path) -> Path:
    """The ``-s`` directory torchgen.gen wants: native/*.yaml next to templates/."""
    import torchgen

    packaged = Path(torchgen.__file__).parent / "packaged" / "ATen"
    if inputs.is_torch:
        return packaged
    source = scratch / "torchgen_source"
    (source / "native").mkdir(parents=True)
    (source / "native" / "native_functions.yaml").write_bytes(inputs.native_functions.read_bytes())
    (source / "native" / "tags.yaml").write_bytes(inputs.tags.read_bytes())
    (source / "templates").symlink_to(packaged / "templates")
    return source


def torchgen_argv(source: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "torchgen.gen", "-s", str(source), "-d", str(out),
        # --mtia: schemac's ATen targets include mtia's registrations and headers.
        "--per-operator-headers", "--mps", "--xpu", "--mtia",
    ]  # fmt: skip


def schemac_argv(inputs: Inputs, out: Path, jobs: int | None = None) -> list[str]:
    # ``--torch`` is how users compile torch's files: it loads derivatives.yaml
    # and deprecated.yaml too (and runs match-derivatives), which torchgen.gen
    # does not; schemac pays for that here.
    files = (
        ["--torch"]
        if inputs.is_torch
        else [str(inputs.native_functions), "--tags", str(inputs.tags)]
    )
    return [
        sys.executable, "-m", "schemac", "compile", *files,
        "-t", ",".join(ATEN_TARGETS), "-o", str(out),
        *([] if jobs is None else ["-j", str(jobs)]),
    ]  # fmt: skip


def schemac_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    return env


def byte_compile_schemac() -> None:
    """Give schemac's modules their ``.pyc`` files, as installing a package does.

    pip byte-compiles torch (torchgen included) when it installs it; a fresh
    checkout of schemac has no ``__pycache__`` yet, and with
    ``PYTHONDONTWRITEBYTECODE`` set (it is on these machines) every schemac
    child would recompile its ~160 modules from source, about 0.1 s a run
    that no installed copy pays.
    """
    compileall.compile_dir(SRC / "schemac", quiet=1)


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """``relative path -> (inode, mtime_ns)`` of every file under ``root``.

    The no-op check's record (``.schemac-state``) and the fragment cache
    (``.schemac-fragments``) are left out: bookkeeping that a full run writes
    afresh, not outputs (docs/rebuild.md).
    """
    found: dict[str, tuple[int, int]] = {}
    for directory, _, names in os.walk(root):
        for name in names:
            if name in (STATE_NAME, FRAGMENTS_NAME):
                continue
            path = Path(directory, name)
            info = path.stat()
            found[str(path.relative_to(root))] = (info.st_ino, info.st_mtime_ns)
    return found


def compare(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> Rewrites:
    changed = sum(1 for p, s in after.items() if p in before and before[p] != s)
    return Rewrites(
        files=len(after),
        changed=changed,
        created=len(after.keys() - before.keys()),
        removed=len(before.keys() - after.keys()),
    )


@dataclass(frozen=True)
class AtenResult:
    schemac: tuple[ChildRun, ...]
    torchgen: tuple[ChildRun, ...]
    rerun: ChildRun
    rewrites: Rewrites
    schemac_files: frozenset[str]
    torchgen_files: frozenset[str]


#: ``(inputs, out) -> argv`` of a schemac run, ``(torchgen source, out) -> argv`` of torchgen's.
SchemacCommand = Callable[[Inputs, Path], list[str]]
TorchgenCommand = Callable[[Path, Path], list[str]]


def measure(
    inputs: Inputs,
    reps: int,
    log: bool = False,
    jobs: int | None = None,
    *,
    schemac_command: SchemacCommand | None = None,
    torchgen_command: TorchgenCommand = torchgen_argv,
) -> AtenResult:
    """``jobs``: schemac's ``-j`` (default: the CLI's, a helper process on 2+ cores).

    ``schemac_command`` and ``torchgen_command`` replace the two command lines
    (bench_headers compares ``-t headers`` with ``--generate headers``).
    """
    if schemac_command is None:
        schemac_command = lambda inputs, out: schemac_argv(inputs, out, jobs)  # noqa: E731
    ours: list[ChildRun] = []
    theirs: list[ChildRun] = []
    env = schemac_env()
    byte_compile_schemac()
    with scratch_dir("bench_aten_") as tmp:
        scratch = Path(tmp)
        source = _torchgen_source(inputs, scratch)
        last_out = scratch / "none"
        tg_out = scratch / "none"
        for rep in range(reps):
            rep_dir = scratch / f"rep{rep}"
            (rep_dir / "cwd").mkdir(parents=True)
            last_out, tg_out = rep_dir / "schemac", rep_dir / "torchgen"

            def run_schemac(out: Path = last_out, cwd: Path = rep_dir) -> None:
                ours.append(run_child(schemac_command(inputs, out), cwd, env))

            def run_torchgen(out: Path = tg_out, cwd: Path = rep_dir / "cwd") -> None:
                theirs.append(run_child(torchgen_command(source, out), cwd))

            order = (run_schemac, run_torchgen) if rep % 2 == 0 else (run_torchgen, run_schemac)
            for side in order:
                side()
            if log:
                mine, reference = _describe(ours[-1]), _describe(theirs[-1])
                print(f"run {rep + 1}: schemac {mine}  torchgen {reference}", flush=True)
        before = snapshot(last_out)
        # The same command line in the same directory as the last rep: what a build re-runs.
        rerun = run_child(schemac_command(inputs, last_out), last_out.parent, env)
        rewrites = compare(before, snapshot(last_out))
        torchgen_files = frozenset(snapshot(tg_out))
    # schemac nests ATen's files under ATen/ (torchgen's -d is that directory) and keeps a manifest.
    schemac_files = frozenset(
        p.removeprefix("ATen/") for p in before if not p.startswith(".schemac-")
    )
    return AtenResult(tuple(ours), tuple(theirs), rerun, rewrites, schemac_files, torchgen_files)


def _describe(run: ChildRun) -> str:
    return f"{run.wall:.2f}s (user {run.user:.2f}s + sys {run.system:.2f}s, {run.peak_mib:.0f} MiB)"


def stages(result: AtenResult, name: str = "aten") -> list[Stage]:
    """The speed, CPU and memory stages of ``result``, named ``"<name> compile"``..."""
    ours, theirs = result.schemac, result.torchgen
    common = len(result.schemac_files & result.torchgen_files)
    files_note = (
        f"files: schemac {len(result.schemac_files)}, torchgen {len(result.torchgen_files)}, "
        f"same path {common}"
    )
    w = result.rewrites
    rerun_note = (
        f"unchanged rerun {result.rerun.wall:.2f}s: {w.changed} of {w.files} files rewritten, "
        f"{w.created} created, {w.removed} removed"
    )
    return [
        Stage(
            f"{name} compile",
            median([r.wall for r in ours]),
            median([r.wall for r in theirs]),
            0.2,
            notes=(files_note, rerun_note),
        ),
        Stage(
            f"{name} compile (cpu)",
            median([r.cpu for r in ours]),
            median([r.cpu for r in theirs]),
            0.2,
            unit="cpu s",
        ),
        Stage(
            f"{name} peak RSS",
            max(r.peak_mib for r in ours),
            max(r.peak_mib for r in theirs),
            1.0,
            unit="MiB",
        ),
    ]


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py)."""
    return stages(measure(inputs, reps))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument(
        "--input", type=Path, help="a library directory like examples/toyops (default: torch's)"
    )
    parser.add_argument("-j", "--jobs", type=int, help="schemac's -j (default: the CLI's default)")
    args = parser.parse_args()
    inputs = Inputs.directory(args.input) if args.input else Inputs.torch()
    jobs = "" if args.jobs is None else f" -j {args.jobs}"
    print(f"targets: {','.join(ATEN_TARGETS)}{jobs}")
    print_report(measure(inputs, args.reps, log=True, jobs=args.jobs), "aten")
    return 0


def print_report(result: AtenResult, name: str) -> None:
    """The stages of ``result`` with their notes, and the files only one side wrote."""
    for stage in stages(result, name):
        print(
            f"{stage.name:<20} schemac {stage.schemac:8.2f} {stage.unit:<7} torchgen "
            f"{stage.torchgen:8.2f}  ratio {stage.ratio:.2f} "
            f"(speed-up {1 / stage.ratio if stage.ratio else 0:.1f}x)"
        )
        for note in stage.notes:
            print(f"  {note}")
    only_tg = sorted(result.torchgen_files - result.schemac_files)
    only_ours = sorted(result.schemac_files - result.torchgen_files)
    print(f"only torchgen ({len(only_tg)}): {', '.join(only_tg[:10])}")
    print(f"only schemac ({len(only_ours)}): {', '.join(only_ours[:10])}")


if __name__ == "__main__":
    raise SystemExit(main())
