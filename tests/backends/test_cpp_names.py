"""YAML names that would become invalid C++ are positioned errors before any output."""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from schemac import parse_schema
from schemac.backends.cpp_names import CleanFunctions, cpp_name_diagnostics, function_diagnostics
from schemac.cli import main
from schemac.diagnostics import Diagnostic, SchemacError, Span
from schemac.frontend.loader import load_module
from schemac.ir.module import Module, SourceFiles
from schemac.ir.native import DispatchEntry, NativeFunction, UfuncInnerLoop

TAGS = "- tag: core\n  desc: core\n"

BAD = """\
- func: toyops::f(Tensor self, int default=1) -> (Tensor new, Tensor b)
  dispatch:
    CPU: f_cpu
- func: toyops::template(Tensor self) -> Tensor
  dispatch:
    CPU: other::template
"""


def _write(tmp_path: Path, text: str) -> tuple[Path, Path]:
    native, tags = tmp_path / "native_functions.yaml", tmp_path / "tags.yaml"
    native.write_text(text)
    tags.write_text(TAGS)
    return native, tags


def test_every_bad_name_is_reported_at_its_position(tmp_path: Path) -> None:
    native, tags = _write(tmp_path, BAD)
    found = sorted(
        (d.span.line, d.span.column, d.message)
        for d in cpp_name_diagnostics(load_module(native, tags))
    )
    assert [(line, column) for line, column, _ in found] == [(1, 32), (1, 51), (4, 9), (6, 10)]
    messages = [m for _, _, m in found]
    assert messages[0] == "argument name 'default' is a C++ keyword and cannot name a C++ entity"
    assert messages[1].startswith("return name 'new' is a C++ keyword")
    assert messages[2].startswith("operator name 'template' is a C++ keyword")
    assert messages[3].startswith("kernel name 'template' is a C++ keyword")


def test_compile_refuses_before_writing_anything(tmp_path: Path, capsys) -> None:
    native, tags = _write(tmp_path, BAD)
    out = tmp_path / "out"
    assert main(["compile", str(native), "--tags", str(tags), "-t", "headers", "-o", str(out)]) == 1
    assert "4 errors" in capsys.readouterr().err
    assert not out.exists()


def test_good_names_pass(tmp_path: Path) -> None:
    native, tags = _write(tmp_path, BAD.replace("default", "dflt").replace("template", "tmpl")
                          .replace("Tensor new", "Tensor fresh"))  # fmt: skip
    assert cpp_name_diagnostics(load_module(native, tags)) == ()


def test_torchs_own_names_all_pass(schemac_module) -> None:  # type: ignore[no-untyped-def]
    assert cpp_name_diagnostics(schemac_module) == ()


# -- the one-pass check agrees with the diagnostics ---------------------------------

# Each generated function may go wrong in one place (``fault``) and is built
# from usable parts elsewhere, so that many are clean and a check that
# ignores one kind of fault meets functions with only that fault.
_NAMES = ("self", "x", "other", "out", "_y1", "alpha", "beta", "dim", "k", "weight", "eps")
_BAD_NAMES = ("default", "template", "NULL", "errno", "new", "1x")
_TYPES = ("Tensor", "Tensor?", "int", "int[]", "int[2]", "float", "bool", "str", "Scalar",
          "ScalarType?", "Tensor[]", "SymInt", "MemoryFormat?")  # fmt: skip
_DEFAULTS = ("1", "-2", "1.5", "None", "[1, 2]", "[]", "True", "'a'", "Mean", "long",
             "contiguous_format", "[1.5]", "[None]")  # fmt: skip
_KERNELS = ("k", "ns::k", "k2", "a::b::c")
_FAULTS = (None, "name", "default", "write", "twice", "operator", "return", "kernel",
           "inherits", "ufunc")  # fmt: skip


def _pool(
    fault: str | None, kind: str, good: tuple[str, ...], bad: tuple[str, ...]
) -> SearchStrategy[str]:
    return st.sampled_from(good + bad if fault == kind else good)


@st.composite
def _argument(draw: st.DrawFn, fault: str | None) -> str:
    if fault == "write":  # only Tensor(a!)? is refused
        ty = draw(st.sampled_from(("Tensor(a!)", "Tensor(a!)?", "Tensor(a!)[]", "int")))
    else:
        ty = draw(st.sampled_from(_TYPES))
    text = f"{ty} {draw(_pool(fault, 'name', _NAMES, _BAD_NAMES))}"
    if fault == "default" and draw(st.booleans()):
        text += f"={draw(st.sampled_from(_DEFAULTS))}"
    return text


@st.composite
def _function(draw: st.DrawFn) -> NativeFunction:
    fault = draw(st.sampled_from(_FAULTS))
    name = draw(_pool(fault, "operator", ("f", "g", "h"), ("template", "NULL", "x" * 121)))
    arguments = draw(st.lists(_argument(fault), max_size=4))
    if fault != "twice":
        assume(len({a.rsplit(" ", 1)[-1] for a in arguments}) == len(arguments))
    returns = draw(
        _pool(fault, "return", ("Tensor", "Tensor y", "(Tensor a, Tensor b)"), ("Tensor new",))
    )
    try:
        schema = parse_schema(f"{name}({', '.join(arguments)}) -> {returns}")
    except SchemacError:
        assume(False)
        raise
    kernels = draw(st.lists(_pool(fault, "kernel", _KERNELS, ("template", "ns::NULL")), max_size=3))
    inherits = draw(_pool(fault, "inherits", ("Base", "at::Base"), ("class", "at::NULL")))
    loops = draw(st.lists(_pool(fault, "ufunc", ("add", "mul"), ("do", "NULL")), max_size=1))
    return NativeFunction(
        schema,
        dispatch=tuple(DispatchEntry(("CPU",), k) for k in kernels) or None,
        structured_inherits=inherits if fault in ("inherits", None) else None,
        ufunc_inner_loop=tuple(UfuncInnerLoop("Generic", loop, ()) for loop in loops),
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(_function(), min_size=1, max_size=4))
def test_the_one_pass_check_agrees_with_the_diagnostics(functions: list[NativeFunction]) -> None:
    # What cpp_name_diagnostics reported before it had the one-pass check:
    # every function through the diagnostics, in order, one shared memo of
    # usable names.
    expected: dict[tuple[Span, str], Diagnostic] = {}
    usable: set[str] = set()
    clean = CleanFunctions()
    for function in functions:
        bad = list(function_diagnostics(function, usable))
        event("clean" if not bad else "not clean")
        assert clean(function) == (not bad)
        for diagnostic in bad:
            expected.setdefault((diagnostic.span, diagnostic.message), diagnostic)
    module = Module(SourceFiles(native_functions="n.yaml"), tuple(functions))
    assert cpp_name_diagnostics(module) == tuple(expected.values())
