"""Hostile and odd inputs: a positioned error or a one-line message, never a traceback or a hang.

Each case is a defect once found by hand (issue 14): explicit YAML tags that
crashed the constructor, precomputed names that passed ``check`` and broke
``compile``, devices and FIFOs read for ever, control characters and
invalid UTF-8 reported at 1:1, diagnostics echoing ESC and CR raw, an empty
``dump-ir --op`` result, and signals printing a ``KeyboardInterrupt``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from schemac.cli import main

ROOT = Path(__file__).resolve().parents[2]
TOYOPS = ROOT / "examples" / "toyops"
TAGS = str(TOYOPS / "tags.yaml")
TOY = (TOYOPS / "native_functions.yaml").read_text(encoding="utf-8")
_POSITION = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error: ", re.M)


def _run(argv: list[str]) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    return code, stderr.getvalue()


def _both(path: Path, tmp_path: Path) -> list[tuple[int, str]]:
    """``check`` and ``compile -t all`` of one file: the two must agree."""
    out = tmp_path / "out"
    return [
        _run(["check", str(path), "--tags", TAGS]),
        _run(["compile", str(path), "--tags", TAGS, "-t", "all", "-o", str(out)]),
    ]


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    assert old in TOY
    path = tmp_path / "native_functions.yaml"
    path.write_text(TOY.replace(old, new, 1), encoding="utf-8")
    return path


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    "value", ["!!int abc", "!!float abc", "!!timestamp 2001-99-99", "!!bool maybe", "!!null x"]
)
@pytest.mark.parametrize("key", ["variants", "structured"])
def test_explicit_tags_that_do_not_fit_are_positioned_errors(
    value: str, key: str, tmp_path: Path
) -> None:
    old = "  variants: function, method\n" if key == "variants" else "  structured: True\n"
    path = _edited(tmp_path, old, f"  {key}: {value}\n")
    line = _line_of(path.read_text(), f"{key}: {value}")
    for code, err in _both(path, tmp_path):
        assert code == 1, err
        assert "Traceback" not in err
        assert f"native_functions.yaml:{line}:{len(key) + 5}: error: " in err, err
        assert "^" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("replacement", "message", "column"),
    [
        ("kernel_size -> int self, int kW", "'self' has the name of an argument", 20),
        ("kernel_size -> int kH, int kH", "'kH' is declared twice", 28),
    ],
)
def test_bad_precomputed_names_fail_check_as_they_fail_compile(
    replacement: str, message: str, column: int, tmp_path: Path
) -> None:
    path = _edited(tmp_path, "kernel_size -> int kH, int kW", replacement)
    line = _line_of(path.read_text(), replacement)
    for code, err in _both(path, tmp_path):
        assert code == 1, err
        assert "Traceback" not in err
        assert f":{line}:{column}: error: precomputed argument {message}" in err, err


def test_precomputed_may_reuse_the_name_it_replaces(tmp_path: Path) -> None:
    path = _edited(tmp_path, "kernel_size -> int kH, int kW", "kernel_size -> int kernel_size")
    code, err = _run(["check", str(path), "--tags", TAGS])
    assert code == 0, err


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "fifo"])
@pytest.mark.parametrize("where", ["native", "tags", "select"])
def test_special_files_are_refused_without_reading(
    special: str, where: str, tmp_path: Path
) -> None:
    path = str(_fifo(tmp_path)) if special == "fifo" else special
    native, tags = str(TOYOPS / "native_functions.yaml"), TAGS
    argv = ["compile", native, "--tags", tags, "-t", "schema", "-o", str(tmp_path / "out")]
    if where == "native":
        argv[1] = path
    elif where == "tags":
        argv[3] = path
    else:
        argv += ["--select", path]
    start = time.monotonic()
    code, err = _run(argv)
    assert time.monotonic() - start < 10
    assert code == 1, err
    kind = "a FIFO" if special == "fifo" else "a character device"
    assert f":1:1: error: cannot read {'selection file ' if where == 'select' else ''}" in err
    assert f"it is {kind}" in err, err
    assert not (tmp_path / "out").exists()


def test_an_input_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as stream:
        stream.truncate(65 << 20)  # sparse: nothing is written, nothing need be read
    code, err = _run(["check", str(huge)])
    assert code == 1
    assert "inputs may be at most 64 MiB" in err


def test_invalid_utf8_and_control_characters_are_reported_where_they_are(tmp_path: Path) -> None:
    base = "- func: toyops::a(Tensor self) -> Tensor\n  dispatch:\n    CPU: k"
    cases = [
        (base.encode() + b"\xffer\n", 3, 11, "invalid UTF-8"),
        (base.encode() + b"\x1ber\n", 3, 11, "control character U+001B"),
        ("- func: toyops::\u00e9\u00e9(Tensor self) -> Tensor\n\x07".encode(), 2, 1, "U+0007"),
    ]
    for index, (data, line, column, message) in enumerate(cases):
        path = tmp_path / f"bad{index}.yaml"
        path.write_bytes(data)
        code, err = _run(["check", str(path)])
        assert code == 1, err
        assert f"bad{index}.yaml:{line}:{column}: error: " in err, err
        assert message in err, err
        assert "^" in err and "\x1b" not in err and "\x07" not in err


def test_diagnostics_never_print_control_characters(tmp_path: Path) -> None:
    path = _edited(
        tmp_path,
        "CPU: window_sum_out_cpu",
        'CPU: "ker\\x1b[31mnel\\r\\nfake.yaml:1:1: error: forged\\u202e"',
    )
    code, err = _run(["check", str(path), "--tags", TAGS])
    assert code == 1
    assert not any(c in err for c in "\x1b\r\u202e"), repr(err)
    assert not re.search(r"^fake\.yaml", err, re.M), err
    assert "\\x1b[31m" in err and "\\x0d\\x0a" in err


def test_dump_ir_of_an_unknown_operator_is_an_error() -> None:
    code, err = _run(["dump-ir", str(TOYOPS / "native_functions.yaml"), "--op", "nope.x"])
    assert code == 1
    assert "--op 'nope.x': no such operator" in err
    code, _ = _run(["dump-ir", str(TOYOPS / "native_functions.yaml"), "--op", "scale"])
    assert code == 0


def test_out_of_memory_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import schemac.cli_inputs

    def exhausted(*args: object, **kwargs: object) -> object:
        raise MemoryError

    monkeypatch.setattr(schemac.cli_inputs, "load_module_partially", exhausted)
    code, err = _run(["check", str(TOYOPS / "native_functions.yaml")])
    assert (code, err) == (1, "schemac: error: out of memory\n")


@pytest.mark.torch
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_exits_130_with_one_line_and_leaves_nothing(
    signum: int, tmp_path: Path
) -> None:
    # The signal is sent once the first staging directory exists.  On a loaded
    # machine this test may be descheduled long enough for the compile to
    # commit before the signal lands: then the compile won the race (it exits
    # 0 with OUT complete, or 130 after its commit), and the test tries again
    # in a fresh directory.  It must see one interrupt while staging.
    for attempt in range(5):
        where = tmp_path / str(attempt)
        where.mkdir()
        out = where / "out"
        code, err = _interrupt_while_staging(signum, where, out)
        if not out.exists():
            assert (code, err) == (130, "schemac: interrupted\n")
            assert [p.name for p in where.iterdir()] == []
            return
        # Committed before the signal took effect: a whole OUT, nothing beside it.
        assert code in (0, 130), err
        assert (out / "ATen" / "Functions.h").is_file()
        assert [p.name for p in where.iterdir()] == ["out"]
    pytest.fail("every compile committed before its interrupt landed")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_while_staging(signum: int, where: Path, out: Path) -> tuple[int, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "schemac", "compile", "--torch", "-t", "headers", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A test run started in the background by a non-interactive shell
        # (`make test &`) inherits SIGINT ignored, and Python leaves an ignored
        # SIGINT ignored: the compile would rightly run to the end.
        preexec_fn=_default_sigint,
    )
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".out.schemac-stage-") for p in where.iterdir()):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.005)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    return process.returncode, err


# -- escaping and validation ---------------------------------------------------------------------
_STR_DEFAULT = 'str mode="sum"'


@pytest.mark.parametrize(
    ("default", "message"),
    [
        ('"\\x"', "'\\x' in the string default"),
        ('"\\u12"', "'\\u' in the string default"),
        ('"\\0EVIL"', "holds a NUL character"),
        ('"\\000"', "holds a NUL character"),
        ('"a\u202eb"', "U+202E"),
        ('"a\u0007b"', "U+0007"),
    ],
)
def test_bad_string_defaults_fail_check_and_compile_at_the_default(
    default: str, message: str, tmp_path: Path
) -> None:
    path = _edited(tmp_path, _STR_DEFAULT, f"str mode={default}")
    text = path.read_text()
    line = _line_of(text, "str mode=")
    column = text.splitlines()[line - 1].index("mode=") + 1
    for code, err in _both(path, tmp_path):
        assert code == 1, err
        assert f":{line}:" in err and message in err, err
        assert _POSITION.search(err) is not None
        assert not any(c in err for c in "\u202e\u0007"), repr(err)
        assert f":{line}:{column}: " in err or f":{line}:" in err
    assert not (tmp_path / "out").exists()


def test_string_defaults_are_re_escaped_for_cpp(tmp_path: Path) -> None:
    path = _edited(tmp_path, _STR_DEFAULT, 'str mode="a\\nb\\"c\\101\\\\"')
    out = tmp_path / "out"
    code, err = _run(["compile", str(path), "--tags", TAGS, "-t", "all", "-o", str(out)])
    assert code == 0, err
    header = (out / "ATen/ops/stack_weighted.h").read_text()
    assert 'c10::string_view mode="a\\nb\\"cA\\\\"' in header, header


def test_a_file_name_with_line_breaks_cannot_inject_code_through_banners(tmp_path: Path) -> None:
    path = tmp_path / "x\n#error INJECTED\n.yaml"
    path.write_text(TOY, encoding="utf-8")
    out = tmp_path / "out"
    code, err = _run(["compile", str(path), "--tags", TAGS, "-t", "all", "-o", str(out)])
    assert code == 0, err
    generated = [p for p in out.rglob("*") if p.is_file()]
    assert len(generated) > 100
    for file in generated:
        text = file.read_text()
        assert "\n#error INJECTED" not in text, file
    assert "x\\x0a#error INJECTED\\x0a.yaml" in (out / "ATen/Functions.h").read_text()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("toyops::scale_twice(", "class::scale_twice(", "'class' is a C++ keyword"),
        ("python_module: special", "python_module: ../../EVIL", "is not a module name"),
        ("python_module: special", 'python_module: "spe\\ncial"', "is not a module name"),
        ("structured_inherits: TensorIteratorBase", "structured_inherits: A; B", "C++ class"),
    ],
)
def test_names_that_reach_output_fail_check_as_they_fail_compile(
    old: str, new: str, message: str, tmp_path: Path
) -> None:
    path = _edited(tmp_path, old, new)
    line = _line_of(path.read_text(), new.split("(")[0].split(":")[0] if "::" in new else new)
    for code, err in _both(path, tmp_path):
        assert code == 1, err
        assert message in err, err
        assert f"native_functions.yaml:{line}:" in err, err


def test_a_cpp_keyword_tag_fails_check_as_it_fails_compile(tmp_path: Path) -> None:
    tags = tmp_path / "tags.yaml"
    tags.write_text(Path(TAGS).read_text() + "- tag: class\n  desc: a keyword\n")
    native = str(TOYOPS / "native_functions.yaml")
    line = len(tags.read_text().splitlines()) - 1
    for argv in (
        ["check", native, "--tags", str(tags)],
        ["compile", native, "--tags", str(tags), "-t", "all", "-o", str(tmp_path / "out")],
    ):
        code, err = _run(argv)
        assert code == 1, err
        assert f"tags.yaml:{line}:8: error: 'class' is a C++ keyword" in err, err


@pytest.mark.torch
def test_unknown_python_module_and_category_override_of_aten_operators(tmp_path: Path) -> None:
    from schemac.frontend.loader import torch_yaml_paths

    torch = torch_yaml_paths()
    original = Path(torch.native_functions).read_text(encoding="utf-8")
    path = tmp_path / "native_functions.yaml"
    cases = [
        ("python_module: special", "python_module: evil", "python_module 'evil' is not a module"),
        ("category_override: factory", "category_override: ../EVIL", "unknown category_override"),
    ]
    for old, new, message in cases:
        path.write_text(original.replace(old, new, 1), encoding="utf-8")
        code, err = _run(["check", str(path), "--tags", str(torch.tags)])
        assert code == 1
        assert message in err, err
        assert err.count(" error: ") == 1, err


def test_independent_errors_in_three_files_in_one_run(tmp_path: Path) -> None:
    """A load error in each file beside a pass error in two: one run shows all five."""
    native = _edited(
        tmp_path, "structured_delegate: window_sum.out", "structured_delegate: window_sum.outt"
    )
    native.write_text(native.read_text().replace("variants: method\n", "variants: methd\n", 1))
    derivatives = tmp_path / "derivatives.yaml"
    derivatives.write_text(
        (TOYOPS / "derivatives.yaml")
        .read_text()
        .replace("self: grad * factor", "self: grad * facto", 1)
    )
    tags = tmp_path / "tags.yaml"
    tags.write_text(Path(TAGS).read_text() + "- tag: extra\n  bogus: 1\n")
    code, err = _run(["check", str(native), "--tags", str(tags), "--derivatives", str(derivatives)])
    assert code == 1
    # scale_ (methd) is left out alone: scale's derivatives are still checked.
    assert "unknown name 'facto'" in err
    assert "structured delegate 'window_sum.outt' of 'window_sum' does not exist" in err
    assert "unknown key 'bogus'" in err and "unknown variant 'methd'" in err, err
    assert err.rstrip().endswith("5 errors"), err
