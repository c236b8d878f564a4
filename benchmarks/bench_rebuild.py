"""The edit-one-operator loop: cold ``-t all``, a no-op re-run and four edits, against torchgen.

schemac runs ``python -m schemac compile NATIVE --tags --derivatives --deprecated -t all -o
OUT``; torchgen runs its three generators one after the other, as a PyTorch build does
(``torchgen.gen --per-operator-headers --mps --xpu``, ``gen_autograd``,
``gen_autograd_python``), each side as child processes timed with ``os.wait4``.  Both read
the same copies of torch's YAML, edited in place between runs:

1. cold: an empty output directory (``--reps`` runs, the sides alternating);
2. no-op: schemac again over its own output (target: under 0.3 s, no file touched);
   torchgen has no such path, its re-run is a cold run;
3. then, cumulatively, one operator's default value flipped, one overload added, one
   derivative formula changed, one ``dispatch:`` kernel renamed; after each, schemac
   recompiles its OUT (target: under 1 s each) and torchgen regenerates everything (it
   has no incremental mode), once per edit.  For schemac the row also says how many
   files it rewrote (new inode or mtime) and how many files' bytes changed: the two
   must be equal.

    python -m benchmarks.bench_rebuild [--reps N]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks import Inputs, Skip, Stage, median, scratch_dir
from benchmarks.bench_aten import (
    ChildRun,
    byte_compile_schemac,
    run_child,
    schemac_env,
    snapshot,
)

NO_OP_LIMIT = 0.3
EDIT_LIMIT = 1.0


def _replace_nth(path: Path, pattern: str, make: Callable[[re.Match[str]], str], n: int) -> None:
    text = path.read_text()
    found = list(re.finditer(pattern, text, flags=re.MULTILINE))
    match = found[n % len(found)]
    path.write_text(text[: match.start(1)] + make(match) + text[match.end(1) :])


def flip_default(files: dict[str, Path]) -> None:
    # isclose has no variants and no derivatives.yaml entry whose signatures
    # would have to change with it.
    _replace_nth(
        files["native_functions"],
        r"^- func: isclose\(.*\bbool equal_nan=(False|True)\b",
        lambda m: "True" if m.group(1) == "False" else "False",
        0,
    )


def add_overload(files: dict[str, Path]) -> None:
    path = files["native_functions"]
    path.write_text(
        path.read_text()
        # Its own Python signature: one equal to another overload's is an error.
        + "\n- func: add.schemac_bench(Tensor self, int[] sizes) -> Tensor\n  variants: function\n"
    )


def change_formula(files: dict[str, Path]) -> None:
    _replace_nth(files["derivatives"], r"^  self: (grad[^\n#]*)$", lambda m: f"({m[1]}) * 2", 50)


def change_dispatch(files: dict[str, Path]) -> None:
    _replace_nth(files["native_functions"], r"^    CPU: (\w+)$", lambda m: m[1] + "_edited", 200)


EDITS: tuple[tuple[str, Callable[[dict[str, Path]], None]], ...] = (
    ("default value", flip_default),
    ("new overload", add_overload),
    ("derivative formula", change_formula),
    ("dispatch entry", change_dispatch),
)

TORCHGEN_AUTOGRAD = """
import sys
from torchgen.packaged.autograd.gen_autograd import gen_autograd, gen_autograd_python
from torchgen.selective_build.selector import SelectiveBuilder
native, tags, out, autograd_dir, which = sys.argv[1:]
if which == "autograd":
    gen_autograd(native, tags, out, autograd_dir, SelectiveBuilder.get_nop_selector())
else:
    gen_autograd_python(native, tags, out, autograd_dir)
"""


@dataclass(frozen=True)
class Layout:
    """The YAML copies, and the directories each side reads them through."""

    files: dict[str, Path]
    aten_source: Path  # torchgen.gen's -s: native/*.yaml beside templates/
    autograd_dir: Path  # derivatives.yaml, deprecated.yaml, templates/


def make_layout(inputs: Inputs, scratch: Path) -> Layout:
    import torchgen

    packaged = Path(torchgen.__file__).parent / "packaged"
    yaml = scratch / "yaml"
    yaml.mkdir()
    files = {}
    for name in ("native_functions", "tags", "derivatives", "deprecated"):
        source = getattr(inputs, name)
        files[name] = yaml / source.name
        shutil.copy(source, files[name])
    aten = scratch / "torchgen_aten"
    (aten / "native").mkdir(parents=True)
    for name in ("native_functions", "tags"):
        (aten / "native" / files[name].name).symlink_to(files[name])
    (aten / "templates").symlink_to(packaged / "ATen" / "templates")
    autograd = scratch / "torchgen_autograd"
    autograd.mkdir()
    for name in ("derivatives", "deprecated"):
        (autograd / files[name].name).symlink_to(files[name])
    (autograd / "templates").symlink_to(packaged / "autograd" / "templates")
    return Layout(files, aten, autograd)


def output_root(scratch: Path) -> Path:
    """Where every output tree of a module's runs goes, made before the first run.

    Not ``scratch`` itself: schemac lists the directory above the YAML's
    (``scratch``, looking for PyTorch's template folders) and records that
    listing for its no-op check, so a tree created there by a later run (the
    trees are kept until the end, :func:`benchmarks.scratch_dir`) would make
    the next run's inputs differ from the last.
    """
    outs = scratch / "outs"
    outs.mkdir()
    return outs


def schemac_argv(layout: Layout, out: Path) -> list[str]:
    f = layout.files
    return [
        sys.executable, "-m", "schemac", "compile", str(f["native_functions"]),
        "--tags", str(f["tags"]), "--derivatives", str(f["derivatives"]),
        "--deprecated", str(f["deprecated"]), "-t", "all", "-o", str(out),
    ]  # fmt: skip


def run_torchgen(layout: Layout, out: Path, cwd: Path) -> ChildRun:
    """torchgen's three generators, one after the other; their times summed."""
    f = layout.files
    aten = [sys.executable, "-m", "torchgen.gen", "-s", str(layout.aten_source)]
    aten += ["-d", str(out / "ATen"), "--per-operator-headers", "--mps", "--xpu"]
    runs = [run_child(aten, cwd)]
    for which, where in (("autograd", "autograd"), ("python", "python")):
        (out / where).mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-c", TORCHGEN_AUTOGRAD, str(f["native_functions"])]
        argv += [str(f["tags"]), str(out / where), str(layout.autograd_dir), which]
        runs.append(run_child(argv, cwd))
    return ChildRun(
        sum(r.wall for r in runs),
        sum(r.user for r in runs),
        sum(r.system for r in runs),
        max(r.peak_mib for r in runs),
    )


def _contents(root: Path) -> dict[str, bytes]:
    return {p: (root / p).read_bytes() for p in snapshot(root) if not p.startswith(".schemac-")}


@dataclass(frozen=True)
class EditRun:
    name: str
    schemac: ChildRun
    torchgen: ChildRun
    rewritten: int
    differing: int
    #: False when torchgen's cold run stands in for a run after this edit.
    torchgen_measured: bool = True


def measure(
    inputs: Inputs, reps: int, log: bool = False, torchgen_edits: int | None = None
) -> tuple[list[ChildRun], list[ChildRun], ChildRun, int, list[EditRun]]:
    """``torchgen_edits``: run torchgen after only the first N edits (it regenerates
    everything after any edit, so its cold run stands in for the others; default:
    after each)."""
    env = schemac_env()
    byte_compile_schemac()
    with scratch_dir("bench_rebuild_") as tmp:
        scratch = Path(tmp)
        layout = make_layout(inputs, scratch)
        outs = output_root(scratch)
        cwd = scratch / "cwd"
        cwd.mkdir()
        ours: list[ChildRun] = []
        theirs: list[ChildRun] = []
        out = outs / "none"
        for rep in range(reps):
            out = outs / f"schemac{rep}"
            sides = [
                lambda out=out: ours.append(run_child(schemac_argv(layout, out), cwd, env)),
                lambda rep=rep: theirs.append(run_torchgen(layout, outs / f"tg{rep}", cwd)),
            ]
            for side in sides if rep % 2 == 0 else reversed(sides):
                side()  # trees are kept until the end: benchmarks.scratch_dir
            if log:
                print(
                    f"cold {rep + 1}: schemac {ours[-1].wall:.2f}s torchgen {theirs[-1].wall:.2f}s"
                )
        before = snapshot(out)
        noop = run_child(schemac_argv(layout, out), cwd, env)
        touched = sum(1 for p, s in snapshot(out).items() if before.get(p) != s)
        edits: list[EditRun] = []
        # Not re-run after the first torchgen_edits edits: its cold run stands in.
        reference = theirs[len(theirs) // 2]
        for number, (name, edit) in enumerate(EDITS):
            before, old = snapshot(out), _contents(out)
            edit(layout.files)
            mine = run_child(schemac_argv(layout, out), cwd, env)
            now, new = snapshot(out), _contents(out)
            rewritten = sum(1 for p, s in now.items() if before.get(p) != s and p in new)
            differing = sum(1 for p in new if old.get(p) != new[p])
            measured = torchgen_edits is None or number < torchgen_edits
            if measured:
                reference = run_torchgen(layout, outs / f"tg_edit{number}", cwd)
            edits.append(EditRun(name, mine, reference, rewritten, differing, measured))
            if log:
                print(
                    f"{name}: schemac {mine.wall:.2f}s ({rewritten} rewritten, {differing} "
                    f"differ) torchgen {reference.wall:.2f}s"
                )
    return ours, theirs, noop, touched, edits


def stages(
    ours: list[ChildRun], theirs: list[ChildRun], noop: ChildRun, touched: int, edits: list[EditRun]
) -> list[Stage]:
    cold_tg = median([r.wall for r in theirs])
    found = [
        Stage("rebuild: cold -t all", median([r.wall for r in ours]), cold_tg, 0.1),
        Stage(
            "rebuild: cold -t all (cpu)",
            median([r.cpu for r in ours]),
            median([r.cpu for r in theirs]),
            0.1,
            unit="cpu s",
        ),
        Stage(
            "rebuild: no-op",
            noop.wall,
            cold_tg,
            NO_OP_LIMIT / cold_tg,
            notes=(
                f"target under {NO_OP_LIMIT} s; {touched} files touched; cpu {noop.cpu:.3f} s; "
                "torchgen's re-run is a cold run",
            ),
        ),
    ]
    for run in edits:
        found.append(
            Stage(
                f"rebuild: edit {run.name}",
                run.schemac.wall,
                run.torchgen.wall,
                EDIT_LIMIT / run.torchgen.wall,
                notes=(
                    f"target under {EDIT_LIMIT} s; {run.rewritten} files rewritten, "
                    f"{run.differing} differ; cpu {run.schemac.cpu:.2f} s vs "
                    f"{run.torchgen.cpu:.2f} s"
                    + ("" if run.torchgen_measured else " (torchgen: its cold run)"),
                ),
            )
        )
    return found


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py)."""
    if not inputs.is_torch:
        raise Skip("the edits and torchgen's autograd generators are written for torch's YAML")
    return stages(*measure(inputs, reps))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=1, help="cold runs of each side (default 1)")
    parser.add_argument(
        "--torchgen-edits",
        type=int,
        help="run torchgen after only the first N edits (later rows reuse the last time)",
    )
    args = parser.parse_args()
    measured = measure(Inputs.torch(), args.reps, log=True, torchgen_edits=args.torchgen_edits)
    for stage in stages(*measured):
        print(f"{stage.name:<32} schemac {stage.schemac:7.3f} torchgen {stage.torchgen:7.2f}")
        for note in stage.notes:
            print(f"  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
