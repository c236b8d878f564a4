"""The ``schema`` target (and python_enum_tag.cpp) against torchgen, and through g++.

The reference is torchgen run in this session (``torchgen_aten_dir``).  The
files are compared by what they mean, not byte for byte: the schema strings
and their tags in order, the operator list as a set, the symbol lists and the
tag enumerators in order.  Then the generated files are compiled against the
installed torch headers, with ``-I OUT`` first so our headers are the ones used.
"""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import pytest

from schemac.backends.aten.enum_tag import emit_python_enum_tag
from schemac.backends.aten.schema_backend import BACKEND
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates
from schemac.ir.module import Module

pytestmark = pytest.mark.torch

_STRING = r'"((?:[^"\\]|\\.)*)"'


@pytest.fixture(scope="module")
def schema_out(schemac_module: Module, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The schema target's files plus python_enum_tag.cpp, written to a directory."""
    out = tmp_path_factory.mktemp("schema-out")
    files = [
        *BACKEND.emit(schemac_module, EmitOptions("schema")),
        emit_python_enum_tag(schemac_module, Templates("schemac.backends.aten")),
    ]
    for file in files:
        (out / file.path).parent.mkdir(parents=True, exist_ok=True)
        (out / file.path).write_bytes(file.data)
    return out


def _definitions(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """(schema, tags) of every ``m.def``, tag constants resolved, in file order."""
    constants = {
        name: tuple(sorted(re.findall(r"at::Tag::(\w+)", body)))
        for name, body in re.findall(r"const std::vector<at::Tag> (\w+) = \{([^}]*)\};", text)
    }
    found = []
    for schema, tags in re.findall(r"m\.def\(" + _STRING + r"(?:, (\w+|\{\}))?\)", text):
        found.append((schema, constants.get(tags, ())))
    return found


def test_register_schema_defines_the_same_schemas_with_the_same_tags(
    schema_out: Path, torchgen_aten_dir: Path
) -> None:
    ours = _definitions((schema_out / "ATen/RegisterSchema.cpp").read_text())
    theirs = _definitions((torchgen_aten_dir / "RegisterSchema.cpp").read_text())
    assert len(theirs) > 3000
    assert {s for s, _ in ours} == {s for s, _ in theirs}
    assert dict(ours) == dict(theirs)
    assert ours == theirs  # and in the same order


def test_op_list_names_the_same_operators(schema_out: Path, torchgen_aten_dir: Path) -> None:
    pair = re.compile(r"\{" + _STRING + ", " + _STRING + r"\}")
    ours = pair.findall((schema_out / "ATen/core/ATenOpList.cpp").read_text())
    theirs = set(pair.findall((torchgen_aten_dir / "core/ATenOpList.cpp").read_text()))
    theirs.discard(("", ""))  # torchgen's end-of-list sentinel
    assert len(ours) == len(set(ours))
    assert set(ours) == theirs
    assert ours == sorted(ours, key=lambda p: (p[0].encode(), p[1].encode()))


def _symbols(text: str, macro: str) -> list[tuple[str, str]]:
    body = text.split(f"#define {macro}(_) \\\n", 1)[1]
    lines = []
    for line in body.splitlines():
        match = re.fullmatch(r"_\((\w+), (\w+)\)( \\)?", line)
        if not match:
            break
        lines.append((match[1], match[2]))
        if not match[3]:
            break
    return lines


@pytest.mark.parametrize("macro", ["FORALL_ATEN_BASE_SYMBOLS", "FORALL_ATTR_BASE_SYMBOLS"])
def test_interned_strings_are_the_same(
    schema_out: Path, torchgen_aten_dir: Path, macro: str
) -> None:
    ours = _symbols((schema_out / "ATen/core/aten_interned_strings.h").read_text(), macro)
    theirs = _symbols((torchgen_aten_dir / "core/aten_interned_strings.h").read_text(), macro)
    assert len(theirs) > 700
    assert ours == theirs


def _enumerators(text: str) -> list[str]:
    body = text.split("enum class Tag {", 1)[1].split("};", 1)[0]
    return [word.strip() for word in body.split(",") if word.strip()]


def test_tag_enum_and_python_enum_are_the_same(schema_out: Path, torchgen_aten_dir: Path) -> None:
    theirs = _enumerators((torchgen_aten_dir / "core/enum_tag.h").read_text())
    assert len(theirs) > 10
    ours = _enumerators((schema_out / "torch/headeronly/core/enum_tag.h").read_text())
    assert ours == theirs
    python = (schema_out / "python/python_enum_tag.cpp").read_text()
    values = re.findall(r'\.value\("(\w+)", at::Tag::(\w+)\)', python)
    assert values == [(name, name) for name in theirs]


# -- compiling -------------------------------------------------------------------------
def _check(result) -> None:  # type: ignore[no-untyped-def]
    assert result.returncode == 0, result.stderr[-4000:]


def test_register_schema_compiles(schema_out: Path, torch_include: Path, compile_cpp) -> None:
    _check(compile_cpp(schema_out / "ATen/RegisterSchema.cpp", (schema_out, torch_include)))


def test_op_list_compiles(schema_out: Path, torch_include: Path, compile_cpp) -> None:
    _check(compile_cpp(schema_out / "ATen/core/ATenOpList.cpp", (schema_out, torch_include)))


def test_headers_compile_in_place_of_torchs(
    schema_out: Path, torch_include: Path, compile_cpp, tmp_path: Path
) -> None:
    # -I OUT comes first, so ATen/core/interned_strings.h expands our symbol list
    # and torch's forwarding ATen/core/enum_tag.h reaches our enum.
    probe = tmp_path / "probe.cpp"
    probe.write_text(
        "#include <ATen/core/interned_strings.h>\n"
        "#include <ATen/core/enum_tag.h>\n"
        "c10::Symbol op() { return c10::aten::add; }\n"
        "c10::Symbol attribute() { return c10::attr::alpha; }\n"
        "at::Tag tag() { return at::Tag::view_copy; }\n"
        "#ifndef FORALL_ATEN_BASE_SYMBOLS\n#error no symbols\n#endif\n"
    )
    marker = "// @generated by schemac"
    assert marker in (schema_out / "torch/headeronly/core/enum_tag.h").read_text()
    result = compile_cpp(probe, (schema_out, torch_include), "-H")
    _check(result)
    # -H lists every header opened: ours, not the installed ones.
    opened = result.stderr
    assert str(schema_out / "ATen/core/aten_interned_strings.h") in opened
    assert str(schema_out / "torch/headeronly/core/enum_tag.h") in opened


def test_python_enum_tag_compiles(schema_out: Path, torch_include: Path, compile_cpp) -> None:
    python_include = Path(sysconfig.get_paths()["include"])
    includes = (
        schema_out,
        torch_include,
        torch_include / "torch/csrc/api/include",
        python_include,
    )
    _check(compile_cpp(schema_out / "python/python_enum_tag.cpp", includes))


def test_a_library_of_its_own_namespace_compiles(
    tmp_path: Path, torch_include: Path, compile_cpp
) -> None:
    from schemac.frontend.loader import load_module
    from schemac.passes.manager import run_pipeline

    toy = Path(__file__).resolve().parents[2] / "examples" / "toyops"
    module = run_pipeline(load_module(toy / "native_functions.yaml", toy / "tags.yaml")).module
    for file in BACKEND.emit(module, EmitOptions("schema")):
        (tmp_path / file.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file.path).write_bytes(file.data)
    register = tmp_path / "ATen/RegisterSchema.cpp"
    assert "TORCH_LIBRARY(toyops, m)" in register.read_text()
    assert "get_gradients" not in register.read_text()
    _check(compile_cpp(register, (tmp_path, torch_include)))
    _check(compile_cpp(tmp_path / "ATen/core/ATenOpList.cpp", (tmp_path, torch_include)))
