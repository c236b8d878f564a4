"""A re-run with ``-j 2`` over a recorded OUT: what the child's copy of the record
learnt reaches the parent's (Note [Split emission], ``split.replay``).

The child asks its copy of the record whether OUT still holds its deferred
files, renders or reuses its fragments and reads files; it hands the file
keys, its file of fragments and its reads to the parent's record
(``Recording.child_handover`` / ``adopt_handover``).  If that handover lost
anything, the next run would re-render (slower, still right) or, worse,
keep a file whose key was never recorded.  So: cold, edit, re-run, edit back,
re-run, each with ``-j 2`` split on the toy library, and every tree equal to
a cold compile of the same YAML, with only the files that differ rewritten.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from schemac import compile_record, launcher
from schemac.backends import driver, reuse, split
from schemac.backends.forked import can_fork
from schemac.backends.output.files import GeneratedFile
from schemac.rebuild import fingerprint, fragments, state
from schemac.rebuild.fragments import FRAGMENTS_NAME, TAIL_NAME, StoredFragments
from schemac.rebuild.reuse import read_previous

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"
BOOKKEEPING = frozenset({state.STATE_NAME, FRAGMENTS_NAME, TAIL_NAME})
#: Deferred files (headers), fragments (cpu's registrations, declarations, the
#: Python bindings) and late work (autograd, the Python node getters).
TARGETS = "headers,schema,cpu,autograd,python,declarations"

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs os.fork")


@pytest.fixture
def split_toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the toy library, compiled in two shares however small,
    with the per-operator headers (deferred files) in the child's share."""
    monkeypatch.setattr(driver, "SERIAL_BELOW_FUNCTIONS", 0)
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: unit.backend.name == "aten-headers")
    copy = tmp_path / "toy"
    shutil.copytree(TOY, copy)
    return copy


@pytest.fixture
def render_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every deferred file rendered, one path a line, by either process."""
    log = tmp_path / "rendered.log"
    made = reuse.Deferred.made

    def logged(self: reuse.Deferred) -> GeneratedFile:
        handle = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            os.write(handle, f"{self.path}\n".encode())
        finally:
            os.close(handle)
        return made(self)

    monkeypatch.setattr(reuse.Deferred, "made", logged)
    return log


def _rendered(log: Path) -> list[str]:
    text = log.read_text() if log.exists() else ""
    log.unlink(missing_ok=True)
    return text.splitlines()


def _argv(toy: Path, out: Path) -> list[str]:
    return [
        "compile", str(toy / "native_functions.yaml"),
        "--tags", str(toy / "tags.yaml"), "--derivatives", str(toy / "derivatives.yaml"),
        "-t", TARGETS, "-o", str(out), "-j", "2",
    ]  # fmt: skip


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in BOOKKEEPING
    }


def _stamps(root: Path) -> dict[str, tuple[int, int]]:
    return {
        path: (os.stat(root / path).st_ino, os.stat(root / path).st_mtime_ns)
        for path in _files(root)
    }


def test_split_reruns_equal_cold_compiles_and_rewrite_only_what_differs(
    split_toy: Path, render_log: Path, tmp_path: Path
) -> None:
    plan = split.plan_split(split.emission_units(TARGETS.split(",")), None)
    assert plan is not None
    assert "aten-headers" in {u.backend.name for u in plan.queued}
    out = tmp_path / "out"
    yaml = split_toy / "native_functions.yaml"
    original = yaml.read_text()
    edited = original.replace("float high=1.0", "float high=2.0", 1)
    assert edited != original
    assert launcher.main(_argv(split_toy, out)) == 0
    every = _rendered(render_log)
    assert len(every) > 50  # the child rendered every per-operator header
    for number, text in enumerate((edited, original)):
        before, old = _stamps(out), _files(out)
        yaml.write_text(text)
        assert launcher.main(_argv(split_toy, out)) == 0
        # Only the edited operator's headers: the child's keys were recorded.
        assert 0 < len(_rendered(render_log)) < len(every) // 4
        cold = tmp_path / f"cold{number}"
        assert launcher.main(_argv(split_toy, cold)) == 0
        _rendered(render_log)
        new = _files(out)
        assert new == _files(cold)
        differing = {p for p in new if old.get(p) != new[p]}
        assert differing  # the edit shows in the headers and the bindings
        rewritten = {p for p, stamp in _stamps(out).items() if before.get(p) != stamp}
        assert rewritten == differing
    # The record the replayed questions made is complete: a no-op touches nothing.
    before = _stamps(out)
    assert launcher.main(_argv(split_toy, out)) == 0
    assert _stamps(out) == before


def _spy_on_fragment_lookups(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """(unit, found?) of every fragment lookup this process's record makes from now on."""
    lookups: list[tuple[str, bool]] = []
    fragment = compile_record.Recording.fragment

    def spied(self: compile_record.Recording, unit: str, local: str) -> str | None:
        found = fragment(self, unit, local)
        lookups.append((unit, found is not None))
        return found

    monkeypatch.setattr(compile_record.Recording, "fragment", spied)
    return lookups


def test_the_fragments_the_child_rendered_are_kept_for_the_next_run(
    split_toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child writes its fragments to a file of its own, which the parent
    appends to the run's: they are in OUT's fragments file, nothing is left
    beside OUT, and the next run renders none of them again."""
    child_units = {"declarations", "python-bindings"}
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: unit.backend.name in child_units)
    out = tmp_path / "out"
    assert launcher.main(_argv(split_toy, out)) == 0
    previous = read_previous(str(out), lambda: fingerprint.run_key(_argv(split_toy, out)))
    assert previous is not None and len(previous.fragments) == 1
    units = dict(previous.fragments[0].contexts)
    assert {"declarations/declarations", "headers/aten-aggregate-headers"} <= set(units)
    stored = StoredFragments(str(out), previous.fragments)
    assert stored.valid
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "toy"]

    lookups = _spy_on_fragment_lookups(monkeypatch)
    yaml = split_toy / "native_functions.yaml"
    yaml.write_text(yaml.read_text().replace("float high=1.0", "float high=2.0", 1))
    # Every queued unit in this process, where the lookups are seen.
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: False)
    assert launcher.main(_argv(split_toy, out)) == 0
    found = [hit for unit, hit in lookups if unit == "declarations/declarations"]
    assert len(found) > 10 and found.count(False) <= 2  # the edited operator's pieces


def _inputs(out: Path) -> list[str]:
    return sorted(
        line.partition("\t")[2]
        for line in (out / state.STATE_NAME).read_text().splitlines()
        if line.startswith(("in ", "dir "))
    )


def test_the_files_the_child_read_are_inputs_of_the_run(
    split_toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's reads reach the record: a -j 2 run lists the inputs a -j 1 run
    lists (the torch headers the autograd backends check, when they emit there)."""
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: True)
    two = tmp_path / "two"
    assert launcher.main(_argv(split_toy, two)) == 0
    one = tmp_path / "one"
    assert launcher.main([*_argv(split_toy, one)[:-1], "1"]) == 0
    assert _inputs(two) == _inputs(one)
    assert any(path.endswith(".yaml") for path in _inputs(two))


def test_a_compaction_keeps_every_fragment_either_process_used(
    split_toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [Fragment segments]: a compaction keeps the records used in this run,
    the child's included (they reach the parent as offsets), so the run after
    it finds every piece of unchanged operators."""
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: unit.backend.name == "declarations")
    out = tmp_path / "out"
    assert launcher.main(_argv(split_toy, out)) == 0
    yaml = split_toy / "native_functions.yaml"
    yaml.write_text(yaml.read_text().replace("float high=1.0", "float high=2.0", 1))
    # Any garbage at all compacts (the edit left the old pieces of one operator).
    monkeypatch.setattr(fragments, "COMPACT_FROM_BYTES", 0)
    monkeypatch.setattr(fragments, "COMPACT_ABOVE", 0.0)
    assert launcher.main(_argv(split_toy, out)) == 0
    key = lambda: fingerprint.run_key(_argv(split_toy, out))  # noqa: E731
    previous = read_previous(str(out), key)
    assert previous is not None and len(previous.fragments) == 1  # compacted
    lookups = _spy_on_fragment_lookups(monkeypatch)
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: False)  # lookups seen here
    yaml.write_text(yaml.read_text().replace("float high=2.0", "float high=3.0", 1))
    assert launcher.main(_argv(split_toy, out)) == 0
    found = [hit for unit, hit in lookups if unit == "declarations/declarations"]
    assert len(found) > 10 and found.count(False) <= 2


def _file_keys(out: Path) -> dict[str, str]:
    """path -> the file key the state records, of every deferred file."""
    keys = {}
    for line in (out / state.STATE_NAME).read_text().splitlines():
        record, _, path = line.partition("\t")
        fields = record.split(" ")
        if fields[0] == "out" and len(fields) == 8 and fields[7] != "-":
            keys[path] = fields[7]
    return keys


def test_the_child_keys_with_the_parents_digests_as_one_process_would(
    split_toy: Path, tmp_path: Path
) -> None:
    """Note [Digests shared with the child]: the child keys its files with its
    copy of the parent's remembered digests (the functions and resolutions,
    encoded before the fork).  Its keys must be the ones a run in one process
    computes: a digest remembered for the wrong value would keep a stale
    header after an edit.  The per-operator headers are the child's
    (``split_toy``); the same cold compile and edit run in one process and in
    two, over the same OUT (the run key names it), record the same keys."""
    out = tmp_path / "out"
    yaml = split_toy / "native_functions.yaml"
    original = yaml.read_text()
    # What is read once per process (the grammar) is read here, before both:
    # the keys' contexts hold the files each run read.
    assert launcher.main([*_argv(split_toy, tmp_path / "warm")[:-1], "1"]) == 0
    recorded = []
    for jobs in ("2", "1"):
        shutil.rmtree(out, ignore_errors=True)
        yaml.write_text(original)
        assert launcher.main([*_argv(split_toy, out)[:-1], jobs]) == 0
        yaml.write_text(original.replace("float high=1.0", "float high=2.0", 1))
        assert launcher.main([*_argv(split_toy, out)[:-1], jobs]) == 0
        recorded.append((_file_keys(out), _files(out)))
    assert len(recorded[0][0]) > 50
    assert recorded[0] == recorded[1]
