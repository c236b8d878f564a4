"""YAML names that would become invalid C++ are positioned errors before any output."""

from __future__ import annotations

from pathlib import Path

from schemac.backends.cpp_names import cpp_name_diagnostics
from schemac.cli import main
from schemac.frontend.loader import load_module

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
