"""Emission split across two processes: the same outcome as one process.

See Note [Split emission] in schemac.backends.split and Note [Late work] in
schemac.backends.late_work.  Compiles run the CLI on the toy library
(examples/toyops) with ``-j 1`` and ``-j 2`` and compare everything a user
sees: files, exit code, messages.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from out_trees import BOOKKEEPING
from schemac.backends import driver
from schemac.backends.forked import can_fork
from schemac.backends.late_work import LateWork
from schemac.backends.output.staging import InlineStager, Staged, merge_staged
from schemac.backends.registry import TARGET_NAMES, fragment_unit
from schemac.backends.split import EARLY_UNITS, UnitQueue, emission_units, plan_split
from schemac.cli_pipeline import compile_pass_manager
from schemac.compile_plan import split_late_work
from schemac.frontend.loader import load_module
from schemac.passes.base import PassContext

ROOT = Path(__file__).resolve().parents[2]
TOYOPS = ROOT / "examples" / "toyops"


def _split(
    targets: list[str], select: Path | None = None
) -> tuple[tuple[str, ...], LateWork | None]:
    manager = compile_pass_manager(targets, select)
    early, late = split_late_work(manager, targets, PassContext())
    return early.names(), late


def test_python_leaves_matching_derivatives_to_the_node_getters() -> None:
    early, late = _split(["python"])
    assert early == ("resolve-dispatch", "autogen-variants")
    assert late is not None
    assert late.pass_names == ("match-derivatives",)
    assert late.backends == {"python-autograd-nodes"}


@pytest.mark.parametrize(
    "targets",
    [
        ["autograd"],  # every backend needs the late facts: nothing to overlap
        ["headers", "cpu"],  # no pass provides only derived tables
    ],
)
def test_no_split_without_both_kinds_of_backend(targets: list[str]) -> None:
    manager = compile_pass_manager(targets, None)
    early, late = split_late_work(manager, targets, PassContext())
    assert late is None
    assert early is manager


def test_no_split_when_an_early_pass_needs_a_late_fact(tmp_path: Path) -> None:
    # selective-build reads the autograd infos, so matching them cannot wait.
    selection = tmp_path / "selected.yaml"
    selection.write_text("- aten::scale\n")
    _, late = _split(["python"], selection)
    assert late is None


def _late(backends: set[str]) -> LateWork:
    return LateWork(lambda m: (m, (), ()), ("match-derivatives",), frozenset(backends))


@pytest.mark.parametrize("targets", [list(TARGET_NAMES), ["python"], ["cpu", "cuda", "headers"]])
def test_the_plan_holds_every_emit_call_once_the_queue_largest_first(targets: list[str]) -> None:
    units = emission_units(targets)
    plan = plan_split(units, None)
    assert plan is not None and not plan.child_first and not plan.late
    assert sorted(plan.queued, key=lambda u: u.position) == list(units)
    # Note [Operators.cpp queued first]: the early units, then largest first.
    early = [fragment_unit(u.target, u.backend.name) in EARLY_UNITS for u in plan.queued]
    assert early == sorted(early, reverse=True)
    costs = [u.cost for u, first in zip(plan.queued, early, strict=True) if not first]
    assert costs == sorted(costs, reverse=True)


def test_the_late_backends_are_the_childs_own() -> None:
    late = _late({"autograd", "autograd-kernels", "python-autograd-nodes"})
    plan = plan_split(emission_units(list(TARGET_NAMES)), late)
    assert plan is not None and plan.late
    assert {u.backend.name for u in plan.child_first} == late.backends
    assert not {u.backend.name for u in plan.queued} & late.backends


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_two_processes_take_every_queued_unit_exactly_once() -> None:
    units = emission_units(list(TARGET_NAMES))
    queue = UnitQueue([(u,) for u in units])
    taken_r, taken_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: takes what it can, reports the positions
        try:
            os.close(taken_r)
            os.write(taken_w, bytes(u.position for u in queue.take()))
        finally:
            os._exit(0)
    os.close(taken_w)
    mine = []
    for unit in queue.take():
        mine.append(unit.position)
        time.sleep(0.002)  # let the child take some
    queue.close()
    theirs = list(os.read(taken_r, 1024))
    os.close(taken_r)
    os.waitpid(pid, 0)
    assert sorted(mine + theirs) == [u.position for u in units]
    assert not set(mine) & set(theirs)


def test_one_emit_call_is_not_split() -> None:
    assert plan_split(emission_units(["declarations"]), None) is None
    # Every call reads the late facts: all of them wait for the late passes.
    every = {"autograd", "autograd-kernels", "autograd-factories"}
    assert plan_split(emission_units(["autograd"]), _late(every)) is None


def test_autograd_alone_is_made_in_two_halves() -> None:
    # Without late work (every backend of -t autograd waits for the autograd
    # table: the passes run first), its backends can go to either process.
    plan = plan_split(emission_units(["autograd"]), None)
    assert plan is not None
    assert sorted(u.backend.name for u in plan.queued) == [
        "autograd",
        "autograd-factories",
        "autograd-kernels",
    ]


def test_merged_staging_moves_the_second_tree_into_the_first(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "ops").mkdir(parents=True)
    (first / "ops" / "a.h").write_text("a")
    (second / "ops").mkdir(parents=True)
    (second / "ops" / "b.h").write_text("b")
    (second / "autograd").mkdir()
    (second / "autograd" / "c.cpp").write_text("c")
    merged = merge_staged(
        Staged(str(first), {"ops/a.h": "c"}, {"ops/a.h": "1"}),
        Staged(str(second), {"ops/b.h": "c", "autograd/c.cpp": "u"}, {"ops/b.h": "2"}),
    )
    assert merged.staging == str(first)
    assert merged.status == {"ops/a.h": "c", "ops/b.h": "c", "autograd/c.cpp": "u"}
    assert merged.digests == {"ops/a.h": "1", "ops/b.h": "2"}
    assert sorted(str(p.relative_to(first)) for p in first.rglob("*") if p.is_file()) == [
        "autograd/c.cpp",
        "ops/a.h",
        "ops/b.h",
    ]
    assert not second.exists()


def test_nothing_staged_in_one_share_takes_the_other_whole(tmp_path: Path) -> None:
    staged = merge_staged(Staged(None, {"x.h": "="}), Staged(str(tmp_path), {"y.h": "c"}))
    assert staged.staging == str(tmp_path)
    assert staged.status == {"x.h": "=", "y.h": "c"}


def _compile(
    out: Path,
    jobs: int,
    *,
    derivatives: Path = TOYOPS / "derivatives.yaml",
    native: Path | None = None,
    targets: str = "python,schema,autograd",
) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable, "-m", "schemac", "compile", str(native or TOYOPS / "native_functions.yaml"),
        "--tags", str(TOYOPS / "tags.yaml"), "--derivatives", str(derivatives),
        "-t", targets, "-o", str(out), "-j", str(jobs),
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)


def _tree(root: Path) -> dict[str, bytes]:
    """Every output file's bytes; the no-op check's record (``.schemac-state``)
    names the command line, which differs by ``-j`` on purpose, and the fragment
    cache holds the child's pieces after the parent's."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name not in BOOKKEEPING
    }


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_same_files_in_one_or_two_processes(tmp_path: Path) -> None:
    one = _compile(tmp_path / "one", 1)
    two = _compile(tmp_path / "two", 2)
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    files = _tree(tmp_path / "one")
    assert any(path.startswith("python/python_functions_") for path in files)
    assert files == _tree(tmp_path / "two")


def _broken_derivatives(tmp_path: Path) -> Path:
    text = (TOYOPS / "derivatives.yaml").read_text()
    broken = text.replace("self: grad * factor", "self: grad * no_such_name", 1)
    assert broken != text
    path = tmp_path / "derivatives.yaml"
    path.write_text(broken)
    return path


def _output_before(tmp_path: Path, name: str) -> Path:
    """An output directory holding an earlier, successful compile."""
    out = tmp_path / name
    assert _compile(out, 1).returncode == 0
    return out


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_an_error_of_the_late_passes_is_reported_as_in_one_process(tmp_path: Path) -> None:
    derivatives = _broken_derivatives(tmp_path)
    outs = [_output_before(tmp_path, f"out{jobs}") for jobs in (1, 2)]
    before = _tree(outs[0])
    one = _compile(outs[0], 1, derivatives=derivatives)
    two = _compile(outs[1], 2, derivatives=derivatives)
    assert one.returncode == two.returncode == 1
    assert "unknown name 'no_such_name'" in one.stderr
    assert two.stderr == one.stderr
    assert _tree(outs[0]) == _tree(outs[1]) == before  # nothing written


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_a_late_pass_error_is_reported_with_the_names_problems(tmp_path: Path) -> None:
    # Both inputs are bad: an argument named like a C++ keyword (found by the
    # name check) and a derivative formula (found by the late pass, in the
    # worker with -j 2).  Both are reported, in one report whatever -j is, and
    # as -t autograd alone (whose pass pipeline runs match-derivatives) reports
    # them: Note [Every error in one run].
    native = tmp_path / "native_functions.yaml"
    text = (TOYOPS / "native_functions.yaml").read_text()
    native.write_text(text + "\n- func: keyword_arg(Tensor self, int default) -> Tensor\n")
    derivatives = _broken_derivatives(tmp_path)
    one = _compile(tmp_path / "one", 1, derivatives=derivatives, native=native)
    two = _compile(tmp_path / "two", 2, derivatives=derivatives, native=native)
    alone = _compile(
        tmp_path / "alone", 1, derivatives=derivatives, native=native, targets="autograd"
    )
    assert one.returncode == two.returncode == alone.returncode == 1
    assert "no_such_name" in one.stderr and "'default'" in one.stderr
    assert two.stderr == one.stderr == alone.stderr
    assert not any((tmp_path / name).exists() for name in ("one", "two", "alone"))


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_a_crashing_child_fails_the_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from schemac.backends.driver import compile_to_directory

    def crash(*_: object) -> object:
        raise ZeroDivisionError("boom in the worker")

    monkeypatch.setattr(driver, "_child_share", crash)  # the forked child inherits it
    module = load_module(
        TOYOPS / "native_functions.yaml", TOYOPS / "tags.yaml", TOYOPS / "derivatives.yaml"
    )
    manager = compile_pass_manager(["python"], None)
    early, late = split_late_work(manager, ["python"], PassContext())
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="boom in the worker"):
        compile_to_directory(
            early.run(PassContext(), module).module, ["python"], out, jobs=2, late=late
        )
    assert not out.exists()


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_a_bad_name_found_by_the_child_is_reported_as_in_one_process(tmp_path: Path) -> None:
    # With late work in the child the C++ names are checked there (after the
    # late passes), while the parent already emits the binding files.
    native = tmp_path / "native_functions.yaml"
    text = (TOYOPS / "native_functions.yaml").read_text()
    native.write_text(text + "\n- func: keyword_arg(Tensor self, int default) -> Tensor\n")
    one = _compile(tmp_path / "one", 1, native=native)
    two = _compile(tmp_path / "two", 2, native=native)
    assert one.returncode == two.returncode == 1
    assert "'default'" in one.stderr
    assert two.stderr == one.stderr
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()


def test_headers_alone_is_two_queued_halves_of_about_equal_cost() -> None:
    # Operators.cpp first (Note [Operators.cpp queued first]), then its two halves
    # (the rest, and the per-operator headers).
    plan = plan_split(emission_units(["headers"]), None)
    assert plan is not None and not plan.child_first
    assert [[u.backend.name for u in lot] for lot in plan.lots] == [
        ["aten-operators"],
        ["aten-aggregate-headers"],
        ["aten-headers"],
    ]
    # What the process that took the aggregate headers may still take.
    aggregate = plan.lots[1][0]
    assert [u.backend.name for u in plan.after(aggregate)] == ["aten-headers"]


def test_the_headers_halves_are_one_entry_among_other_targets() -> None:
    # Apart they would compute the views both read twice (JOINT_UNITS).
    aten = [t for t in TARGET_NAMES if t not in ("autograd", "python")]
    for targets in (list(TARGET_NAMES), aten):
        plan = plan_split(emission_units(targets), None)
        assert plan is not None
        names = [[u.backend.name for u in lot] for lot in plan.lots]
        assert ["aten-aggregate-headers", "aten-headers"] in names


def test_a_first_compiles_child_stages_into_the_parents_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    parent = InlineStager(str(out))
    child = parent.sibling()
    parent.add_text("ops/a.h", "a")
    child.add_text("ops/b.h", "b")
    first, second = parent.result(), child.result()
    assert first.staging is not None and second.staging == first.staging
    merged = merge_staged(first, second)
    assert merged.staging == first.staging
    assert merged.status == {"ops/a.h": "c", "ops/b.h": "c"}
    assert sorted(p.name for p in Path(first.staging, "ops").iterdir()) == ["a.h", "b.h"]
    child.discard()  # the owner's to remove
    assert Path(first.staging).is_dir()
    parent.discard()
    assert not Path(first.staging).exists()


def test_a_later_compiles_child_stages_apart(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    parent = InlineStager(str(out))
    child = parent.sibling()
    parent.add_text("a.h", "a")
    child.add_text("b.h", "b")
    first, second = parent.result(), child.result()
    assert first.staging is not None and second.staging not in (None, first.staging)
    merged = merge_staged(first, second)
    assert sorted(p.name for p in Path(str(merged.staging)).iterdir()) == ["a.h", "b.h"]
    parent.discard()
