"""String defaults come out as the same value in every C++ and Python output that spells them.

Issue 14: string defaults were copied raw.  Each value below (quotes,
backslashes, line breaks and the other named escapes, non-ASCII text written
raw or as octal bytes, ``??``) is written as a schema default, compiled, and
read back from what schemac wrote, by the reader of each output:

- the C++ headers (``ATen/ops/<op>.h``, the extension's typed API): the
  literals compiled by g++ and printed, byte for byte;
- the PythonArgParser signatures of ``python_torch_functions*.cpp``: the C++
  literal compiled and printed, then parsed at run time by torch's own
  ``torch::PythonArgParser`` (a tiny extension, built once per run) whose
  default for the argument must be the value;
- ``Declarations.yaml``: the ``default`` is a C++ expression, compiled and printed;
- the extension's ``ops.py``: the default read by Python, the docstring
  reading back as the schema.

Values the schema language or torch cannot carry (``\\r`` and ``\\?``, which
torch's schema parser refuses; a ``)``, which ends a PythonArgParser
signature; octal bytes that are not UTF-8) are refused by ``check``.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from schemac.cli import main

#: Name -> the decoded value each default must have.
VALUES = {
    "dquote": 'a"b',
    "squote": "x'y",
    "backslash": "back\\slash\\",
    "named": "l1\nl2\tt\a\b\f\v",
    "torch_mix": "\"'\\",  # native_functions.yaml's own _test_string_default
    "utf8_raw": "é€ 漢",
    "utf8_octal": "é",
    "trigraph": "q??!w??/",
    "control": "\x01\x1b[0m\r",
    "empty": "",
}
#: How each is written in the schema (single-quoted where that is the point).
SPELLED = {
    "dquote": '"a\\"b"',
    "squote": "'x\\'y'",
    "backslash": '"back\\\\slash\\\\"',
    "named": '"l1\\nl2\\tt\\a\\b\\f\\v"',
    "torch_mix": '"\\"\'\\\\"',
    "utf8_raw": '"é€ 漢"',
    "utf8_octal": '"\\303\\251"',
    "trigraph": '"q??!w??/"',
    "control": '"\\001\\033[0m\\015"',
    "empty": "''",
}
NAMES = tuple(VALUES)


def _schema(namespace: str = "") -> str:
    arguments = ", ".join(f"str {name}={SPELLED[name]}" for name in NAMES)
    return f"{namespace}strdef(Tensor self, *, {arguments}) -> Tensor"


def _run(argv: list[str]) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    return code, stdout.getvalue() + stderr.getvalue()


_CPP_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _cpp_values(literals: list[str], tmp_path: Path) -> list[bytes]:
    """What g++ makes of each C++ string literal: its bytes, compiled and printed."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    lines = ["#include <cstdio>", "int main() {"]
    for i, literal in enumerate(literals):
        lines.append(f"  static const char v{i}[] = {literal};")
        lines.append(f"  std::fwrite(v{i}, 1, sizeof v{i} - 1, stdout); std::fputc(0, stdout);")
    lines.append("}")
    source = tmp_path / "literals.cpp"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    binary = tmp_path / "literals"
    subprocess.run(
        [gxx, "-std=c++17", "-Wall", "-Werror", "-Wtrigraphs", str(source), "-o", str(binary)],
        check=True,
        capture_output=True,
    )
    printed = subprocess.run([str(binary)], check=True, capture_output=True).stdout
    return printed.split(b"\0")[:-1]


def _expected() -> list[bytes]:
    return [VALUES[name].encode("utf-8") for name in NAMES]


def _defaults_in_declaration(text: str, function: str) -> list[str]:
    """The default literals of the one ``inline ... function(...)`` declaration in ``text``."""
    line = next(x for x in text.splitlines() if re.search(rf"\b{function}\(const at::Tensor", x))
    return _CPP_LITERAL.findall(line)


@pytest.fixture(scope="module")
def aten_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("strdef")
    native = root / "native_functions.yaml"
    native.write_text(
        f"- func: {_schema()}\n  variants: function\n  dispatch:\n    CPU: strdef\n",
        encoding="utf-8",
    )
    out = root / "out"
    code, text = _run(["compile", str(native), "-t", "headers,python,declarations", "-o", str(out)])
    assert code == 0, text
    return out


def test_check_accepts_every_value() -> None:
    assert set(VALUES) == set(SPELLED)


def test_cpp_headers_spell_each_value(aten_out: Path, tmp_path: Path) -> None:
    header = (aten_out / "ATen" / "ops" / "strdef.h").read_text(encoding="utf-8")
    literals = _defaults_in_declaration(header, "strdef")
    assert _cpp_values(literals, tmp_path) == _expected()
    # The control characters reach the source as escapes, never raw.
    assert all(line.isprintable() for line in header.splitlines())


def _parser_signatures(out: Path) -> list[str]:
    """Every PythonArgParser signature of strdef, as the C++ literals in the generated file."""
    text = "".join(
        p.read_text(encoding="utf-8")
        for p in sorted((out / "python").glob("python_torch_functions*.cpp"))
    )
    return [lit for lit in _CPP_LITERAL.findall(text) if lit.startswith('"strdef(')]


def test_declarations_yaml_default_is_a_cpp_expression_of_the_value(
    aten_out: Path, tmp_path: Path
) -> None:
    records = yaml.safe_load((aten_out / "ATen" / "Declarations.yaml").read_text(encoding="utf-8"))
    (record,) = [r for r in records if r["name"] == "strdef"]
    defaults = {a["name"]: a["default"] for a in record["arguments"] if "default" in a}
    assert _cpp_values([defaults[name] for name in NAMES], tmp_path) == _expected()


_PROBE = r"""
#include <torch/extension.h>
#include <torch/csrc/utils/python_arg_parser.h>

// The string defaults PythonArgParser reads from `signature`: parse a call
// that passes only the tensor, then read each string argument back.
std::vector<std::string> defaults(const std::string& signature, int64_t count) {
  torch::PythonArgParser parser({signature});
  torch::ParsedArgs<16> parsed;
  py::tuple args = py::make_tuple(torch::empty({0}));
  py::dict kwargs;
  auto r = parser.parse(nullptr, args.ptr(), kwargs.ptr(), parsed);
  std::vector<std::string> values;
  for (int64_t i = 1; i <= count; ++i) values.emplace_back(r.stringView(i));
  return values;
}
"""


@pytest.fixture(scope="session")
def arg_parser_probe(
    build_shared_reference: Callable[[str, Callable[[Path], None]], Path],
) -> Callable[[str, int], list[str]]:
    """torch's PythonArgParser, callable from Python (built once per test run)."""
    torch = pytest.importorskip("torch")
    from torch.utils import cpp_extension

    def build(destination: Path) -> None:
        staging = destination.with_name(destination.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        cpp_extension.load_inline(
            "schemac_argparser_probe",
            cpp_sources=[_PROBE],
            functions=["defaults"],
            build_directory=str(staging),
            extra_cflags=["-O0", "-g0"],
        )
        staging.rename(destination)

    directory = build_shared_reference("argparser-probe", build)
    # The built module itself: load_inline would rebuild it (its paths moved).
    library = directory / "schemac_argparser_probe.so"
    spec = importlib.util.spec_from_file_location("schemac_argparser_probe", library)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    del torch
    probe: Callable[[str, int], list[str]] = module.defaults
    return probe


@pytest.mark.torch
def test_python_arg_parser_reads_each_value(
    aten_out: Path, tmp_path: Path, arg_parser_probe: Callable[[str, int], list[str]]
) -> None:
    signatures = _parser_signatures(aten_out)
    assert signatures, "strdef has a Python binding"
    for signature in _cpp_values(signatures, tmp_path):
        read = arg_parser_probe(signature.decode("utf-8"), len(NAMES))
        assert read == [VALUES[name] for name in NAMES], signature


def test_extension_python_api_and_cpp_api_spell_each_value(tmp_path: Path) -> None:
    ops = tmp_path / "ops.yaml"
    ops.write_text(
        f"- func: {_schema('strx::')}\n  dispatch:\n    CPU: strdef_cpu\n    Meta: strdef_meta\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    code, text = _run(["compile", str(ops), "-t", "extension", "-o", str(out)])
    assert code == 0, text
    tree = ast.parse((out / "strx" / "ops.py").read_text(encoding="utf-8"))
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "strdef"]
    defaults = [ast.literal_eval(d) for d in function.args.kw_defaults if d is not None]
    assert defaults == [VALUES[name] for name in NAMES]
    assert ast.get_docstring(function) == f"``{_schema('strx::')}``"
    stub = ast.parse((out / "strx" / "ops.pyi").read_text(encoding="utf-8"))
    (declared,) = [n for n in stub.body if isinstance(n, ast.FunctionDef) and n.name == "strdef"]
    assert [ast.literal_eval(d) for d in declared.args.kw_defaults if d] == defaults
    header = (out / "strx" / "ops" / "strdef.h").read_text(encoding="utf-8")
    assert _cpp_values(_defaults_in_declaration(header, "strdef"), tmp_path) == _expected()


@pytest.mark.parametrize(
    ("spelled", "message"),
    [
        ('"a\\rb"', "'\\r' in the string default"),
        ('"a\\?b"', "'\\?' in the string default"),
        ('"q)r"', "holds a ')'"),
        ('"q\\051"', "holds a ')'"),
        ('"\\303"', "do not form UTF-8"),
    ],
)
def test_values_torch_cannot_read_are_refused_by_check_and_compile(
    spelled: str, message: str, tmp_path: Path
) -> None:
    native = tmp_path / "native_functions.yaml"
    native.write_text(f"- func: bad(Tensor self, str mode={spelled}) -> Tensor\n", encoding="utf-8")
    for argv in (
        ["check", str(native)],
        ["compile", str(native), "-t", "headers", "-o", str(tmp_path / "out")],
    ):
        code, text = _run(argv)
        assert code == 1, text
        assert message in text, text
        assert f"native_functions.yaml:1:{len('- func: bad(Tensor self, ') + 1}: error:" in text
    assert not (tmp_path / "out").exists()
