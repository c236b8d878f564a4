"""Bad command lines and unusable files: exit 2 (usage) or 1 (input), a message, no traceback.

Every case runs ``schemac.cli.main`` in-process; an exception escaping it
fails the test.  A usage error is caught before anything is loaded or written,
so the output directory must not exist afterwards.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from schemac.cli import main

ROOT = Path(__file__).resolve().parents[1]
TOYOPS = ROOT / "examples" / "toyops"
NATIVE = str(TOYOPS / "native_functions.yaml")


def _run(argv: list[str]) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    return code, stderr.getvalue()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00- func: x\n")
    a_file = tmp_path / "a_file"
    a_file.write_text("not a directory\n", encoding="utf-8")
    return {
        "dir": str(tmp_path),
        "missing": str(tmp_path / "missing.yaml"),
        "binary": str(binary),
        "file": str(a_file),
        "out": str(tmp_path / "out"),
    }


#: (argv with {placeholders} from ``files``, exit code, a piece of the message).
CASES = [
    (["check"], 2, "give NATIVE_YAML or --torch"),
    (["frobnicate"], 2, "invalid choice"),
    (["check", "{missing}"], 1, "no such file"),
    (["check", "{dir}"], 1, "Is a directory"),
    (["check", "{binary}"], 1, "can't decode"),
    (["check", NATIVE, "--tags", "{missing}"], 1, "no such file"),
    (["check", NATIVE, "--derivatives", "{dir}"], 1, "Is a directory"),
    (["check", NATIVE, "--deprecated", "{binary}"], 1, "can't decode"),
    (["dump-ir", "{missing}"], 1, "no such file"),
    (["dump-ir", NATIVE, "--after", "no-such-pass"], 2, "no pass named"),
    (["dump-ir", NATIVE, "--format", "xml"], 2, "invalid choice"),
    (["dump-ir", NATIVE, "--select", "{binary}"], 1, "cannot read selection file"),
    (["compile", NATIVE, "-t", "bogus", "-o", "{out}"], 2, "unknown target 'bogus'"),
    (["compile", NATIVE, "-t", ",", "-o", "{out}"], 2, "no target given"),
    (["compile", NATIVE, "-t", "all"], 2, "-o/--out"),
    (["compile", NATIVE, "-o", "{out}"], 2, "-t/--targets"),
    (["compile", NATIVE, "-t", "all", "-o", ""], 2, "an empty path"),
    (["compile", NATIVE, "-t", "all", "-o", "{file}"], 2, "is not a directory"),
    (["compile", NATIVE, "-t", "all", "-o", "{file}/sub"], 2, "is a file"),
    (["compile", NATIVE, "-t", "all", "-o", "{out}", "--depfile", "{dir}"], 2, "is a directory"),
    (["compile", NATIVE, "-t", "all", "-o", "{out}", "--outputs-list", "{dir}"], 2, "directory"),
    (["compile", NATIVE, "-t", "all", "-o", "{out}", "--depfile", ""], 2, "an empty path"),
    (["compile", NATIVE, "-t", "all", "-o", "{out}", "-j", "0"], 2, "positive number"),
    (["compile", NATIVE, "-t", "all", "-o", "{out}", "-j", "two"], 2, "positive number"),
    (["compile", "{missing}", "-t", "all", "-o", "{out}"], 1, "no such file"),
    (["compile", "{dir}", "-t", "all", "-o", "{out}"], 1, "Is a directory"),
    (["compile", NATIVE, "-t", "all", "-o", "{out}", "--select", "{missing}"], 1, "selection"),
    (["compile", NATIVE, "-t", "all", "-o", "{out}", "--select", "{dir}"], 1, "selection"),
    (["compile", NATIVE, "-t", "all", "-o", "{out}", "--select", "{binary}"], 1, "decode"),
]


@pytest.mark.parametrize(("argv", "code", "message"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_usage_and_file_errors(
    argv: list[str], code: int, message: str, files: dict[str, str], tmp_path: Path
) -> None:
    got, err = _run([arg.format(**files) for arg in argv])
    assert got == code, err
    assert message in err, err
    assert "Traceback" not in err
    if code == 1:  # an input error: positioned at the file it names
        assert ":1:1: error: " in err, err
    assert not (tmp_path / "out").exists(), "a failed run created the output directory"


def test_empty_output_path_writes_nothing_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-o ''`` once meant '.': the compile wrote its tree into the current directory."""
    monkeypatch.chdir(tmp_path)
    code, _ = _run(["compile", NATIVE, "-t", "all", "-o", ""])
    assert code == 2
    assert list(tmp_path.iterdir()) == []


#: Output paths that overlap each other, an input or OUT: (argv, a piece of the message).
OVERLAPS = [
    (["--depfile", "{native}"], "--depfile '{native}' is the same file as NATIVE_YAML"),
    (["--outputs-list", "{native}"], "--outputs-list '{native}' is the same file as NATIVE_YAML"),
    (["--depfile", "{tags}", "--tags", "{tags}"], "is the same file as --tags"),
    (["--depfile", "{x}", "--outputs-list", "{x}"], "is the same file as --depfile"),
    (["--depfile", "{out}/deps.d"], "--depfile '{out}/deps.d' is inside the output directory"),
    (["--outputs-list", "{out}/ATen/Functions.h"], "is inside the output directory"),
]


@pytest.mark.parametrize(("extra", "message"), OVERLAPS, ids=[" ".join(o[0]) for o in OVERLAPS])
def test_overlapping_output_paths_are_usage_errors_naming_both(
    extra: list[str], message: str, tmp_path: Path
) -> None:
    native = tmp_path / "native.yaml"
    native.write_bytes(Path(NATIVE).read_bytes())
    tags = tmp_path / "tags.yaml"
    tags.write_bytes((TOYOPS / "tags.yaml").read_bytes())
    out = tmp_path / "out"
    names = {"native": str(native), "tags": str(tags), "out": str(out), "x": str(tmp_path / "x")}
    before = native.read_bytes()
    code, err = _run(
        ["compile", str(native), "--tags", str(tags), "-t", "schema", "-o", str(out)]
        + [arg.format(**names) for arg in extra]
    )
    assert code == 2, err
    assert message.format(**names) in err, err
    assert native.read_bytes() == before
    assert not out.exists()


def test_a_line_break_in_a_path_the_depfile_names_is_a_usage_error(tmp_path: Path) -> None:
    out = tmp_path / "out\n#injected"
    code, err = _run(["compile", NATIVE, "-t", "schema", "-o", str(out), "--depfile", "deps.d"])
    assert code == 2, err
    assert "contains a line break" in err
    assert not out.exists()


def test_an_output_name_too_long_for_the_file_system_is_a_usage_error(tmp_path: Path) -> None:
    for name in ("o" * 300, "o" * 240):
        code, err = _run(["compile", NATIVE, "-t", "schema", "-o", str(tmp_path / name)])
        assert code == 2, err
        assert "Traceback" not in err
        assert "characters long" in err or "longer than 255" in err, err
    assert list(tmp_path.iterdir()) == []


def test_an_output_over_an_input_is_refused_and_nothing_written(tmp_path: Path) -> None:
    """An input inside OUT is fine (``-o .`` beside the YAML), one at an output's path is not."""
    out = tmp_path / "out"
    (out / "ATen").mkdir(parents=True)
    selection = out / "ATen" / "Functions.h"
    selection.write_text("toyops::scale\n")
    code, err = _run(
        ["compile", NATIVE, "-t", "headers", "-o", str(out), "--select", str(selection)]
    )
    assert code == 1, err
    assert f"the output ATen/Functions.h would overwrite the input {selection}" in err, err
    assert selection.read_text() == "toyops::scale\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert [p.name for p in out.rglob("*")] == ["ATen", "Functions.h"]
