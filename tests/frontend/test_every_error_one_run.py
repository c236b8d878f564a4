"""Every independent mistake across the input files in one run, and nothing that follows from one.

Issue 14: "six independent mistakes across the three files take three runs".
A load error in one file (a schema that does not parse, an unknown dispatch
key, a tag definition without its ``desc``) no longer stops the passes from
reporting what they find in another (a derivative formula naming an unknown
variable, a structured delegate that does not exist): ``check``, ``dump-ir``
and ``compile`` print them all, sorted by file and position, each with its
caret and hint (Note [Every error in one run]).  What depends on an entry
that failed (its family's other variants, its derivative entry, the entries
carrying a tag whose definition failed) is left out of the passes, so no
error is reported twice or as a consequence of another.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from schemac.cli import main

ROOT = Path(__file__).resolve().parents[2]
TOYOPS = ROOT / "examples" / "toyops"
_HEADLINE = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$")


def _run(argv: list[str]) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    return code, stderr.getvalue()


def _library(tmp_path: Path, edits: dict[str, list[tuple[str, str]]]) -> dict[str, Path]:
    """toyops' three files with each ``(old, new)`` edit made once in the named file."""
    paths = {}
    for name in ("native_functions.yaml", "tags.yaml", "derivatives.yaml"):
        text = (TOYOPS / name).read_text(encoding="utf-8")
        for old, new in edits.get(name, []):
            assert text.count(old) >= 1, (name, old)
            text = text.replace(old, new, 1)
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        paths[name] = path
    return paths


def _commands(paths: dict[str, Path], out: Path) -> dict[str, list[str]]:
    inputs = [
        str(paths["native_functions.yaml"]),
        "--tags",
        str(paths["tags.yaml"]),
        "--derivatives",
        str(paths["derivatives.yaml"]),
    ]
    return {
        "check": ["check", *inputs],
        "dump-ir": ["dump-ir", *inputs],
        "compile": ["compile", *inputs, "-t", "all", "-o", str(out)],
    }


def _errors(err: str) -> list[tuple[str, int, int, str]]:
    found = []
    for line in err.splitlines():
        match = _HEADLINE.match(line)
        if match:
            file = Path(match["file"]).name
            found.append((file, int(match["line"]), int(match["col"]), match["msg"]))
    return found


def _position(path: Path, needle: str, offset: int = 0) -> tuple[int, int]:
    """1-based line and column of ``needle`` (plus ``offset`` characters) in the file."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1 + offset
    raise AssertionError(f"{needle!r} not in {path}")


SIX_MISTAKES = {
    "native_functions.yaml": [
        # a schema that does not parse (load)
        ("scale_twice(Tensor self, Scalar factor)", "scale_twice(Tensor self,, Scalar factor)"),
        # an unknown dispatch key (load)
        ("    Meta: blend_meta\n", "    Metaa: blend_meta\n"),
        # a structured delegate that does not exist (pass: check-structured)
        (
            "  structured_delegate: scale.out\n  variants: method\n",
            "  structured_delegate: scale.outt\n  variants: method\n",
        ),
    ],
    "tags.yaml": [("- tag: core\n  desc: Part", "- tag: core\n  dsc: Part")],  # load
    "derivatives.yaml": [
        ("  other: grad * weight\n", "  otherr: grad * weight\n"),  # load: no such variable
        ("  self: grad.flip(dim)", "  self: grad.flip(dimm)"),  # pass: match-derivatives
    ],
}


@pytest.mark.parametrize("command", ["check", "dump-ir", "compile"])
def test_six_mistakes_in_three_files_are_reported_in_one_run(command: str, tmp_path: Path) -> None:
    paths = _library(tmp_path, SIX_MISTAKES)
    native, tags, derivatives = (
        paths["native_functions.yaml"],
        paths["tags.yaml"],
        paths["derivatives.yaml"],
    )
    out = tmp_path / "out"
    code, err = _run(_commands(paths, out)[command])
    assert code == 1, err
    assert "Traceback" not in err
    expected = [
        ("derivatives.yaml", *_position(derivatives, "otherr:"), "no argument or output named"),
        ("derivatives.yaml", *_position(derivatives, "dimm"), "unknown name 'dimm'"),
        ("native_functions.yaml", *_position(native, "scale.outt"), "'scale.outt'"),
        ("native_functions.yaml", *_position(native, ",, Scalar"), "invalid schema"),
        ("native_functions.yaml", *_position(native, "Metaa"), "unknown dispatch key"),
        ("tags.yaml", *_position(tags, "dsc:"), "unknown key 'dsc'"),
    ]
    found = _errors(err)
    # Exactly these: nothing twice, nothing that follows from one of them.
    assert [f[:3] for f in found] == [e[:3] for e in expected], err
    for (*_, message), (*_, fragment) in zip(found, expected, strict=True):
        assert fragment in message, err
    assert err.count("^") >= 6 and err.count("  hint: ") == 6, err
    assert err.rstrip().endswith("6 errors"), err
    assert not out.exists()


@pytest.mark.parametrize("command", ["check", "dump-ir", "compile"])
def test_a_failed_entry_brings_no_follow_on_errors_from_its_family_or_derivatives(
    command: str, tmp_path: Path
) -> None:
    """scale.out does not parse: scale and scale_ delegate to it and derivatives.yaml
    names scale, yet only the schema error is reported, beside an independent one."""
    paths = _library(
        tmp_path,
        {
            "native_functions.yaml": [
                (
                    "toyops::scale.out(Tensor self, Scalar factor,",
                    "toyops::scale.out(Tensor self Scalar factor,",
                )
            ],
            "derivatives.yaml": [("  self: grad.flip(dim)", "  self: grad.flip(dimm)")],
        },
    )
    code, err = _run(_commands(paths, tmp_path / "out")[command])
    assert code == 1
    found = _errors(err)
    assert [(f[0], f[3].split(":")[0]) for f in found] == [
        ("derivatives.yaml", "unknown name 'dimm' in a derivative formula"),
        ("native_functions.yaml", "invalid schema"),
    ], err


def test_an_entry_with_a_bad_field_is_not_checked_again_by_the_passes(tmp_path: Path) -> None:
    """``structured: maybe`` is one error, not also 'delegates to an unstructured kernel'."""
    paths = _library(
        tmp_path,
        {
            "native_functions.yaml": [
                (
                    "  structured: True\n  structured_inherits",
                    "  structured: maybe\n  structured_inherits",
                )
            ]
        },
    )
    code, err = _run(_commands(paths, tmp_path / "out")["check"])
    assert code == 1
    assert len(_errors(err)) == 1, err
    assert "'structured'" in err or "True or False" in err or "boolean" in err, err


def test_a_tag_whose_definition_failed_is_not_unknown_where_it_is_used(tmp_path: Path) -> None:
    paths = _library(
        tmp_path,
        {
            "tags.yaml": [("- tag: core\n", "- tag: fast-path\n  desc: Quick.\n- tag: core\n")],
            "native_functions.yaml": [
                ("tags: [reduction, core]", "tags: [reduction, core, fast-path]")
            ],
            "derivatives.yaml": [("  self: grad.flip(dim)", "  self: grad.flip(dimm)")],
        },
    )
    code, err = _run(_commands(paths, tmp_path / "out")["check"])
    assert code == 1
    assert [(f[0], f[3]) for f in _errors(err)] == [
        ("derivatives.yaml", "unknown name 'dimm' in a derivative formula"),
        ("tags.yaml", "tag name 'fast-path' is not an identifier"),
    ], err


def test_a_file_that_is_not_yaml_stops_before_the_passes(tmp_path: Path) -> None:
    """Nothing says what depends on entries that never loaded: no flood of misses."""
    paths = _library(
        tmp_path,
        {
            "native_functions.yaml": [
                ("- func: toyops::scale_twice", "- func: [toyops::scale_twice")
            ],
            "tags.yaml": [("- tag: core\n  desc: Part", "- tag: core\n  dsc: Part")],
        },
    )
    code, err = _run(_commands(paths, tmp_path / "out")["check"])
    assert code == 1
    found = _errors(err)
    assert [f[0] for f in found] == ["native_functions.yaml", "tags.yaml"], err
    assert "derivatives.yaml" not in err


def test_derivative_and_native_pass_errors_with_a_load_error_in_one_run(tmp_path: Path) -> None:
    """A pass error in each file (check-structured, match-derivatives) and a load error."""
    paths = _library(
        tmp_path,
        {
            "native_functions.yaml": [
                (
                    "  structured_delegate: scale.out\n  variants: method\n",
                    "  structured_delegate: scale.outt\n  variants: method\n",
                ),
                (
                    "Scalar factor) -> Tensor\n  variants: function, method",
                    "Scalar factor) -> Tensor\n  variants: function, methd",
                ),
            ],
            "derivatives.yaml": [("  self: grad.flip(dim)", "  self: grad.flip(dimm)")],
        },
    )
    code, err = _run(_commands(paths, tmp_path / "out")["compile"])
    assert code == 1
    messages = [f[3] for f in _errors(err)]
    assert len(messages) == 3, err
    assert any("unknown variant 'methd'" in m for m in messages), err
    assert any("'scale.outt'" in m for m in messages), err
    assert any("'dimm'" in m for m in messages), err


def test_check_and_compile_give_the_same_diagnostics(tmp_path: Path) -> None:
    paths = _library(tmp_path, SIX_MISTAKES)
    commands = _commands(paths, tmp_path / "out")
    _, checked = _run(commands["check"])
    _, compiled = _run(commands["compile"])
    assert checked == compiled


def test_backend_yaml_problems_join_load_and_pass_errors(tmp_path: Path) -> None:
    paths = _library(
        tmp_path,
        {
            "native_functions.yaml": [
                (
                    "scale_twice(Tensor self, Scalar factor)",
                    "scale_twice(Tensor self,, Scalar factor)",
                ),
                (
                    "  structured_delegate: scale.out\n  variants: method\n",
                    "  structured_delegate: scale.outt\n  variants: method\n",
                ),
            ]
        },
    )
    backend = tmp_path / "backend.yaml"
    backend.write_text("backend: XLA\ncpp_namespace: torch_xla\nsupported:\n- scale\nbogus: 1\n")
    native, tags = str(paths["native_functions.yaml"]), str(paths["tags.yaml"])
    out = tmp_path / "out"
    code, err = _run(["compile", native, "--tags", tags, "--backend", str(backend), "-o", str(out)])
    assert code == 1
    assert [(f[0], f[1], f[2]) for f in _errors(err)] == [
        ("backend.yaml", 5, 1),
        ("native_functions.yaml", *_position(paths["native_functions.yaml"], "scale.outt")),
        ("native_functions.yaml", *_position(paths["native_functions.yaml"], ",, Scalar")),
    ], err
    assert not out.exists()


def test_backend_yaml_naming_an_unknown_operator_beside_a_load_error(tmp_path: Path) -> None:
    """Binding is checked against what loaded; the operator whose entry failed is not 'unknown'."""
    paths = _library(
        tmp_path,
        {
            "native_functions.yaml": [
                (
                    "scale_twice(Tensor self, Scalar factor)",
                    "scale_twice(Tensor self,, Scalar factor)",
                )
            ]
        },
    )
    backend = tmp_path / "backend.yaml"
    backend.write_text(
        "backend: XLA\ncpp_namespace: torch_xla\nsupported:\n- scale\n- scale_twice\n- nope\n"
    )
    native, tags = str(paths["native_functions.yaml"]), str(paths["tags.yaml"])
    out = tmp_path / "out"
    code, err = _run(["compile", native, "--tags", tags, "--backend", str(backend), "-o", str(out)])
    assert code == 1
    assert [(f[0], f[1], f[2]) for f in _errors(err)] == [
        ("backend.yaml", 6, 3),
        ("native_functions.yaml", *_position(paths["native_functions.yaml"], ",, Scalar")),
    ], err
    assert "'nope' in 'supported' is not an operator" in err
    assert not out.exists()


def test_backend_yaml_naming_an_unknown_operator_beside_a_pass_error(tmp_path: Path) -> None:
    """The passes fail (no load error): the backend YAML's unknown operators are still
    reported, and an ``autogen:`` variant the passes would make is not unknown."""
    paths = _library(
        tmp_path,
        {
            "native_functions.yaml": [
                (
                    "  structured_delegate: scale.out\n  variants: method\n",
                    "  structured_delegate: scale.outt\n  variants: method\n",
                )
            ]
        },
    )
    backend = tmp_path / "backend.yaml"
    backend.write_text(
        "backend: XLA\ncpp_namespace: torch_xla\nsupported:\n- scale\n- clamp_range.out\n- nope\n"
    )
    native, tags = str(paths["native_functions.yaml"]), str(paths["tags.yaml"])
    out = tmp_path / "out"
    code, err = _run(["compile", native, "--tags", tags, "--backend", str(backend), "-o", str(out)])
    assert code == 1
    assert [(f[0], f[1], f[2]) for f in _errors(err)] == [
        ("backend.yaml", 6, 3),
        ("native_functions.yaml", *_position(paths["native_functions.yaml"], "scale.outt")),
    ], err
    assert "'nope' in 'supported' is not an operator" in err
    assert not out.exists()


def _entry_starts(name: str, prefix: str) -> list[int]:
    lines = (TOYOPS / name).read_text(encoding="utf-8").splitlines()
    return [i for i, line in enumerate(lines) if line.startswith(prefix)]


def _one_mistake(name: str, index: int, kind: str) -> str:
    lines = (TOYOPS / name).read_text(encoding="utf-8").splitlines(keepends=True)
    if kind == "schema":
        lines[index] = lines[index].replace("(", "((", 1)
    elif kind == "key":
        lines.insert(index + 1, "  bogus: 1\n")
    else:  # a tag name that is not an identifier
        lines[index] = lines[index].rstrip("\n") + "-x\n"
    return "".join(lines)


_CASES = [
    *(
        ("native_functions.yaml", i, kind)
        for i in _entry_starts("native_functions.yaml", "- func:")
        for kind in ("schema", "key")
    ),
    *(("derivatives.yaml", i, "schema") for i in _entry_starts("derivatives.yaml", "- name:")),
    *(("tags.yaml", i, "tag") for i in _entry_starts("tags.yaml", "- tag:")),
]


@pytest.mark.parametrize(("name", "index", "kind"), _CASES, ids=lambda x: str(x))
def test_one_mistake_in_any_entry_is_one_error(
    name: str, index: int, kind: str, tmp_path: Path
) -> None:
    """Whatever entry fails, what depends on it reports nothing more (toyops has
    structured families, autogen, views with their copies, derivatives of each)."""
    paths = _library(tmp_path, {})
    paths[name].write_text(_one_mistake(name, index, kind), encoding="utf-8")
    code, err = _run(_commands(paths, tmp_path / "out")["check"])
    assert code == 1
    found = _errors(err)
    assert len(found) == 1, err
    assert found[0][0] == name and found[0][1] == index + 1 + (kind == "key"), err


def test_a_formula_calling_an_operator_whose_entry_failed_is_not_reported(tmp_path: Path) -> None:
    paths = _library(
        tmp_path,
        {
            "native_functions.yaml": [
                (
                    "scale_twice(Tensor self, Scalar factor)",
                    "scale_twice(Tensor self,, Scalar factor)",
                )
            ],
            "derivatives.yaml": [
                ('  self: not_implemented("window_sum backward")', "  self: scale_twice(grad, 2)")
            ],
        },
    )
    code, err = _run(_commands(paths, tmp_path / "out")["check"])
    assert code == 1
    assert [f[3] for f in _errors(err)] == ["invalid schema: unexpected ','"], err
    assert "scale_twice' in a derivative formula" not in err, err
