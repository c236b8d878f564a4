"""The no-op path (Note [Up-to-date check]): an unchanged compile stops after a check
that touches nothing; any change to an input, an output or the state sends it the full way,
which repairs OUT to what a cold compile writes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from out_trees import compile_argv, contents, stats
from schemac import launcher
from schemac.backends.output.commit import CommitReport
from schemac.rebuild import fingerprint, noop, state
from schemac.rebuild.fingerprint import STATE_FORMAT

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"
STATE = state.STATE_NAME
#: Enough targets for several backends and a manifest, few enough to keep compiles short.
TARGETS = "schema,cpu"


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    """A private copy of the toy library's YAML (tests edit it)."""
    copy = tmp_path / "toy"
    shutil.copytree(TOY, copy)
    return copy


def _argv(toy: Path, out: Path, *extra: str) -> list[str]:
    return compile_argv(toy, out, TARGETS, *extra, derivatives=True)


@pytest.fixture(scope="module")
def cold(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What a cold compile of the unedited toy library writes."""
    where = tmp_path_factory.mktemp("cold")
    assert launcher.main(_argv(TOY, where / "out")) == 0
    return contents(where / "out")


def _is_noop(argv: list[str]) -> bool:
    return noop.up_to_date(argv)


def test_an_unchanged_compile_is_a_noop_that_touches_nothing(toy: Path, tmp_path: Path, capsys):
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    full = capsys.readouterr().out
    assert (out / STATE).is_file()
    before = stats(out)
    assert launcher.main(argv) == 0
    generated = len(contents(out)) - 1  # all but the manifest
    assert capsys.readouterr().out.strip() == noop.summary(str(out), generated)
    assert f"{generated} created" in full
    assert stats(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "toy"]


def test_the_noop_summary_is_the_commit_summary() -> None:
    report = CommitReport(out_dir="OUT", unchanged=("a", "b", "c"))
    assert noop.summary("OUT", 3) == report.summary()


def test_the_noop_path_imports_no_compiler(toy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    script = (
        "import sys\nfrom schemac import launcher\ncode = launcher.main(sys.argv[1:])\n"
        "heavy = ('schemac.cli', 'schemac.frontend', 'schemac.backends', 'lark', 'mako', 'yaml')\n"
        "print(code, sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "0 []"


@pytest.mark.parametrize("entry", ["python -m schemac", "console script"])
def test_both_entry_points_take_the_noop_path(toy: Path, tmp_path: Path, entry: str) -> None:
    """``python -m schemac compile`` and ``schemac compile`` both stop at the check
    and leave OUT, its state included, untouched."""
    if entry == "console script":
        script = Path(sys.executable).with_name("schemac")
        if not script.is_file():
            pytest.skip("no console script beside this interpreter (package not installed)")
        command = [str(script)]
    else:
        command = [sys.executable, "-m", "schemac"]
    out = tmp_path / "out"
    argv = [*_argv(toy, out), "--time-passes"]
    subprocess.run([*command, *argv], capture_output=True, check=True)
    before = stats(out)
    again = subprocess.run([*command, *argv], capture_output=True, text=True, check=True)
    assert "up-to-date check" in again.stderr
    assert stats(out) == before


def test_a_second_full_run_with_the_same_key_keeps_the_state(toy: Path, tmp_path: Path) -> None:
    from schemac.cli import main

    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert main(argv) == 0
    before = stats(out)
    assert main(argv) == 0  # the full path, in process: it finds nothing to change
    assert stats(out) == before


@pytest.mark.parametrize("fault", ["deleted", "hand-edited", "touched", "same-size edit"])
def test_a_changed_output_is_noticed_and_repaired(
    toy: Path, tmp_path: Path, fault: str, capsys, cold: dict[str, bytes]
) -> None:
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    victim = out / "ATen" / "RegisterSchema.cpp"
    info = victim.stat()
    if fault == "deleted":
        victim.unlink()
    elif fault == "hand-edited":
        victim.write_text(victim.read_text() + "// local change\n")
    elif fault == "touched":
        os.utime(victim)
    else:
        # Same size, same mtime: only ctime (which user space cannot set) tells.
        data = bytearray(victim.read_bytes())
        data[-2] = ord("x") if data[-2] != ord("x") else ord("y")
        victim.write_bytes(bytes(data))
        os.utime(victim, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert not _is_noop(argv)
    capsys.readouterr()
    assert launcher.main(argv) == 0
    assert contents(out) == cold
    assert _is_noop(argv)


def test_a_racy_output_is_checked_by_content(toy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    text = (out / STATE).read_text()
    victim = "ATen/RegisterSchema.cpp"
    info = (out / victim).stat()
    line = next(x for x in text.splitlines() if x.endswith(f"\t{victim}"))
    recorded = f"out {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} {info.st_ino} "
    assert line.startswith(recorded)
    # A racy record (times too close to the check) carries a digest; a wrong one fails.
    good = state._check_body(str(out), f"files 1\n{recorded}-\t{victim}\n")
    bad = state._check_body(str(out), f"files 1\n{recorded}{'0' * 64}\t{victim}\n")
    assert (good, bad) == (1, None)


@pytest.mark.parametrize(
    "damage", ["truncated", "edited", "other format", "other key", "another OUT's state"]
)
def test_a_damaged_or_foreign_state_is_ignored(
    toy: Path, tmp_path: Path, damage: str, capsys, cold: dict[str, bytes]
) -> None:
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    path = out / STATE
    text = path.read_text()
    if damage == "truncated":
        path.write_text(text[: len(text) // 2])
    elif damage == "edited":
        path.write_text(text.replace("files ", "files 1", 1))
    elif damage == "other format":
        path.write_text(text.replace(STATE_FORMAT, "schemac-state 0", 1))
    elif damage == "other key":
        key = text.splitlines()[1]
        path.write_text(text.replace(key, "key " + "0" * 64, 1))
    else:
        # Another target set's OUT, and its state, copied over this one.
        other = tmp_path / "other"
        assert launcher.main([*_argv(toy, other)[:-4], "-t", "schema", "-o", str(other)]) == 0
        shutil.copy(other / STATE, path)
        (out / "ATen" / "RegisterSchema.cpp").write_bytes(
            (other / "ATen" / "RegisterSchema.cpp").read_bytes() + b"\n"
        )
    assert not _is_noop(argv)
    capsys.readouterr()
    assert launcher.main(argv) == 0
    assert contents(out) == cold
    assert _is_noop(argv)


@pytest.mark.parametrize("change", ["native", "derivatives", "option", "cwd"])
def test_a_changed_input_or_option_is_a_full_run(
    toy: Path, tmp_path: Path, change: str, monkeypatch
) -> None:
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    assert _is_noop(argv)
    if change == "native":
        path = toy / "native_functions.yaml"
        path.write_text(path.read_text() + "\n# a comment changes the bytes\n")
    elif change == "derivatives":
        path = toy / "derivatives.yaml"
        path.write_text(path.read_text() + "\n")
    elif change == "option":
        argv = [*argv, "--Werror"]
    else:
        monkeypatch.chdir(tmp_path)
    assert not _is_noop(argv)


def test_an_edited_input_ends_the_check_before_the_state_is_hashed(
    toy: Path, tmp_path: Path, monkeypatch
) -> None:
    """Note [An edited input ends the check early]: the ``in`` lines are read first,
    from the unchecked bytes; the whole state is still checked for "up to date"."""
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    hashed: list[int] = []
    split = state._split
    monkeypatch.setattr(state, "_split", lambda data: hashed.append(len(data)) or split(data))
    assert _is_noop(argv)
    assert len(hashed) == 1
    path = toy / "native_functions.yaml"
    path.write_text(path.read_text() + "\n# a comment changes the bytes\n")
    assert not _is_noop(argv)
    assert len(hashed) == 1  # not hashed: the edited YAML's line said enough
    # A state whose input line lies about an unchanged input is not trusted either.
    assert launcher.main(argv) == 0
    text = (out / STATE).read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("in "))
    digest = line.split(" ")[1].split("\t")[0]
    (out / STATE).write_text(text.replace(digest, "0" * len(digest), 1))
    assert not _is_noop(argv)


@pytest.mark.parametrize(
    "how", [["-j", "1"], ["-j2"], ["--jobs", "2"], ["--jobs=1"], ["--time-passes"]]
)
def test_options_that_only_say_how_to_run_keep_the_noop(
    toy: Path, tmp_path: Path, how: list[str], capsys
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    before = stats(out)
    assert _is_noop(_argv(toy, out, *how))
    assert stats(out) == before


def test_the_run_key_leaves_out_only_exact_how_options() -> None:
    words = ["compile", "x.yaml", "-j", "2", "-o", "out", "--time-passes", "--", "-j", "1"]
    assert fingerprint.keyed_words(words) == ["compile", "x.yaml", "-o", "out", "--", "-j", "1"]
    # An abbreviation or anything else is keyed as written (a cold run, never a wrong one).
    assert fingerprint.keyed_words(["--time", "-jx", "--out=-j"]) == ["--time", "-jx", "--out=-j"]


def test_dry_runs_and_disabled_state_write_none(toy: Path, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    (out / STATE).unlink()
    assert launcher.main(_argv(toy, out, "--dry-run")) == 0
    assert not (out / STATE).exists()
    monkeypatch.setenv("SCHEMAC_NO_STATE", "1")
    assert launcher.main(_argv(toy, out)) == 0
    assert not (out / STATE).exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["compile", "x.yaml", "-o", "OUT"], "OUT"),
        (["compile", "-oOUT", "x.yaml"], "OUT"),
        (["compile", "--out=OUT"], "OUT"),
        (["compile", "--out", "OUT", "-t", "all"], "OUT"),
        (["check", "-o", "OUT"], None),
        (["compile", "x.yaml"], None),
    ],
)
def test_out_dir_of(argv: list[str], expected: str | None) -> None:
    assert noop.out_dir_of(argv) == expected


def test_an_edit_of_derivatives_reuses_the_targets_that_do_not_read_it(
    toy: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "out"
    argv = [*_argv(toy, out)[:-4], "-t", "schema,autograd", "-o", str(out), "--time-passes"]
    assert launcher.main(argv) == 0
    before = stats(out)
    path = toy / "derivatives.yaml"
    path.write_text(path.read_text() + "\n# a comment\n")
    capsys.readouterr()
    assert launcher.main(argv) == 0
    captured = capsys.readouterr()
    emitted = {line.split()[0] for line in captured.err.splitlines() if line}
    assert "autograd" in emitted and "schema" not in emitted
    assert "0 created, 0 updated" in captured.out
    assert {p: s for p, s in stats(out).items() if p != STATE} == {
        p: s for p, s in before.items() if p != STATE
    }


@pytest.mark.parametrize(
    "text", ["out", "./out/", "a//b/./c", "/x/../y", "//net/x", "///x", ".", "a/"]
)
def test_the_noop_summary_spells_out_as_the_full_path_does(text: str) -> None:
    assert noop.path_text(text) == str(Path(text))


def test_yaml_inside_out_is_still_an_input(toy: Path) -> None:
    # ``-o .`` next to the YAML: the outputs are left out of the inputs, the YAML is not.
    argv = _argv(toy, toy)
    assert launcher.main(argv) == 0
    assert _is_noop(argv)
    path = toy / "native_functions.yaml"
    path.write_text(path.read_text() + "\n# edited\n")
    assert not _is_noop(argv)


def test_a_run_with_warnings_leaves_no_state_and_warns_again(tmp_path: Path, capsys) -> None:
    native = tmp_path / "native_functions.yaml"
    native.write_text("- func: neg(Tensor self) -> Tensor\n  dispatch:\n    CPU: neg\n")
    derivatives = tmp_path / "derivatives.yaml"
    derivatives.write_text("- name: neg(Tensor self) -> Tensor\n  self: my_neg_backward(grad)\n")
    out = tmp_path / "out"
    argv = ["compile", str(native), "--derivatives", str(derivatives), "-t", "autograd"]
    argv += ["-o", str(out), "--torch-version", "2.14"]
    for _ in range(2):
        assert launcher.main(argv) == 0
        assert "warning: call to unknown function 'my_neg_backward'" in capsys.readouterr().err
        assert not (out / STATE).exists()


def test_a_pending_commit_beside_out_is_never_a_noop(toy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    assert _is_noop(argv)
    (tmp_path / ".out.schemac-commit").mkdir()  # an interrupted commit's journal directory
    assert not _is_noop(argv)


def test_a_kept_file_edited_while_the_compile_runs_is_not_trusted(
    toy: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    """A per-operator header kept after an edit (Note [File reuse]) but changed
    before the state is written: no state vouches for what it holds now (its record,
    if carried, has its old stat: Note [Kept records are carried]), and the next run
    repairs it."""
    from schemac.backends import driver

    out = tmp_path / "out"
    argv = [*_argv(toy, out)[:-4], "-t", "headers", "-o", str(out)]
    assert launcher.main(argv) == 0
    path = toy / "native_functions.yaml"
    path.write_text(path.read_text() + "\n# a comment: every per-operator header is kept\n")
    victim = out / "ATen" / "ops" / "blend.h"
    assert victim.is_file()
    commit = driver.commit

    def commit_then_edit(*args, **kwargs):  # type: ignore[no-untyped-def]
        report = commit(*args, **kwargs)
        assert ("ATen/ops/blend.h", "headers") in kwargs["kept"]
        victim.write_text(victim.read_text() + "// edited meanwhile\n")
        return report

    monkeypatch.setattr(driver, "commit", commit_then_edit)
    assert launcher.main(argv) == 0
    monkeypatch.undo()
    assert not _is_noop(argv)
    cold = tmp_path / "cold"
    assert launcher.main([*argv[:-1], str(cold)]) == 0
    assert launcher.main(argv) == 0
    capsys.readouterr()
    assert contents(out) == contents(cold)


def test_the_check_and_the_record_share_one_run_key(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # OneCommand: a run the check sends the full way reuses the check's key
    # (hashing schemac's package once), and no key outlives its command.
    out = tmp_path / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    yaml = toy / "native_functions.yaml"
    yaml.write_text(yaml.read_text() + "# an edit\n")
    made: list[object] = []
    real = fingerprint.run_key
    monkeypatch.setattr(fingerprint, "run_key", lambda *a: made.append(a) or real(*a))
    assert launcher.main(argv) == 0
    assert len(made) == 1
    assert fingerprint.command_run_key(argv) == real(argv)
    assert len(made) == 2  # outside a command nothing is remembered
    assert noop.up_to_date(argv)  # the shared key is the one the next check computes


def test_a_rerun_over_a_recorded_out_splits_as_a_cold_compile_does(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SERIAL_BELOW_FUNCTIONS = 0: the default -j forks for a module of any size.
    # A re-run after an edit takes the same default (docs/rebuild.md, "A re-run
    # splits too"); -j 1 given forks nothing.
    from schemac.backends import driver

    monkeypatch.setattr(driver, "SERIAL_BELOW_FUNCTIONS", 0)
    out = tmp_path / "out"
    forks: list[int] = []
    real_fork = os.fork

    def counting_fork() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", counting_fork)
    if not hasattr(os, "fork") or driver.effective_jobs(None, _toy_module()) < 2:
        pytest.skip("needs os.fork and two cores")

    def argv(where: Path) -> list[str]:
        words = _argv(toy, where)
        words[words.index(TARGETS)] = "python,autograd,schema"
        return words

    assert launcher.main(argv(out)) == 0
    assert forks  # the cold compile split
    forks.clear()
    path = toy / "native_functions.yaml"
    path.write_text(path.read_text() + "\n# an edit\n")
    assert launcher.main(argv(out)) == 0
    assert forks  # so does the re-run
    forks.clear()
    path.write_text(path.read_text() + "\n# another edit\n")
    assert launcher.main([*argv(out), "-j", "1"]) == 0
    assert forks == []  # -j given: as asked


def _toy_module():  # type: ignore[no-untyped-def]
    from schemac.frontend.loader import load_module

    return load_module(TOY / "native_functions.yaml", TOY / "tags.yaml")


def test_a_new_sibling_of_out_keeps_the_rerun_a_no_op(toy: Path, tmp_path: Path) -> None:
    # schemac lists OUT's parent for its own leftovers; that listing is not an
    # input (another tool's tree appearing beside OUT changes no output).
    out = tmp_path / "build" / "out"
    argv = _argv(toy, out)
    assert launcher.main(argv) == 0
    (tmp_path / "build" / "other-tool").mkdir()
    (tmp_path / "build" / "notes.txt").write_text("not schemac's\n")
    assert noop.up_to_date(argv)


def _out_line(out: Path, path: str) -> str:
    (line,) = [x for x in (out / STATE).read_text().split("\n") if x.endswith(f"\t{path}")]
    return line


def test_a_kept_files_settled_record_is_carried_unread(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Note [Kept records are carried]: a kept file whose last record is settled is
    recorded by that line, not stat'ed again; a change made meanwhile (a chmod: the
    ctime moves, the size and mtime do not) is not hidden, since the carried line
    keeps the old ctime: the next run is not a no-op and repairs nothing but what
    changed."""
    import time

    from schemac.backends import driver

    out = tmp_path / "out"
    argv = [*_argv(toy, out)[:-4], "-t", "headers", "-o", str(out)]
    path = toy / "native_functions.yaml"
    victim = out / "ATen" / "ops" / "blend.h"
    assert launcher.main(argv) == 0
    # The cold run's files were racy when recorded; settled for the next record.
    time.sleep(0.05)
    path.write_text(path.read_text() + "\n# a comment: every per-operator header is kept\n")
    assert launcher.main(argv) == 0
    settled = _out_line(out, "ATen/ops/blend.h")
    assert settled.split("\t")[0].split(" ")[5] == "-", settled
    time.sleep(0.05)
    path.write_text(path.read_text() + "# another\n")
    commit = driver.commit
    before = victim.stat()

    def commit_then_chmod(*args, **kwargs):  # type: ignore[no-untyped-def]
        report = commit(*args, **kwargs)
        assert ("ATen/ops/blend.h", "headers") in kwargs["kept"]
        time.sleep(0.02)  # the ctime's clock is coarse
        victim.chmod(0o600)
        return report

    monkeypatch.setattr(driver, "commit", commit_then_chmod)
    assert launcher.main(argv) == 0
    monkeypatch.undo()
    after = victim.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ctime_ns != before.st_ctime_ns
    # Recorded as the last run recorded it: the stat it had then.
    assert _out_line(out, "ATen/ops/blend.h") == settled
    _assert_the_next_run_repairs(argv, out, tmp_path, capsys)


def test_write_state_carries_only_settled_records_of_the_same_unit_and_key(
    tmp_path: Path,
) -> None:
    """Note [Kept records are carried], at the record: a settled line of the same
    unit and file key is written as it was (here its stat no longer matches: the next
    check will say so); a racy line, or one of another key, is checked against the
    file, and a mismatch records nothing."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.h").write_text("int a;\n")
    digest = "0" * 64

    def record(unchanged: dict[str, str], key: str = "k") -> bool:
        return state.write_state(
            out,
            "key",
            inputs=[],
            directories=[],
            generated=[("a.h", "headers/h", key)],
            bookkeeping=[],
            auxiliary=[],
            expected=lambda path: b"int a;\n",
            unchanged=unchanged,
        )

    stale = "out 7 1 2 3 - headers/h k"
    assert record({"a.h": stale})
    assert f"\n{stale}\ta.h\n" in (out / STATE).read_text()
    assert state.up_to_date_files(str(out), lambda: "key") is None
    assert not record({"a.h": f"out 7 1 2 3 {digest} headers/h k"})
    assert not (out / STATE).exists()
    assert not record({"a.h": stale}, key="other")
    assert record({})
    assert state.up_to_date_files(str(out), lambda: "key") == 1


def test_a_compared_file_edited_before_the_record_is_not_recorded_as_intact(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Note [Compared files are recorded as compared]: a file the commit found
    unchanged (not a kept one) and someone edits before the record, over a tick
    before it (so it is not racy), is not recorded with its new stat: the next run
    is not a no-op and repairs it.  (Until session 14 it was: a no-op over a wrong file.)"""
    import time

    from schemac.backends import driver

    out = tmp_path / "out"
    argv = [*_argv(toy, out)[:-4], "-t", "headers", "-o", str(out)]
    assert launcher.main(argv) == 0
    path = toy / "native_functions.yaml"
    path.write_text(path.read_text() + "\n# a comment\n")
    commit = driver.commit
    victims: list[Path] = []

    def commit_then_edit(*args, **kwargs):  # type: ignore[no-untyped-def]
        report = commit(*args, **kwargs)
        kept = {p for p, _ in kwargs["kept"]}
        compared = sorted(p for p in report.unchanged if p not in kept)
        assert compared, "a rendered file found unchanged"
        victims.append(out / compared[0])
        victims[0].write_text(victims[0].read_text() + "// edited after the compare\n")
        time.sleep(0.05)  # settled when the record is made
        return report

    monkeypatch.setattr(driver, "commit", commit_then_edit)
    assert launcher.main(argv) == 0
    monkeypatch.undo()
    _assert_the_next_run_repairs(argv, out, tmp_path, capsys)


def _assert_the_next_run_repairs(
    argv: list[str], out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The next run of ``argv`` is not a no-op, leaves OUT as a cold compile of
    the same input into another directory would, and the run after it is one."""
    assert not _is_noop(argv)
    assert launcher.main(argv) == 0
    assert _is_noop(argv)
    cold = tmp_path / "cold"
    assert launcher.main([*argv[:-1], str(cold)]) == 0
    capsys.readouterr()
    assert contents(out) == contents(cold)
