"""Bad backend YAML: every problem at ``file:line:col`` with a caret and a hint, all in one run.

Each case is a backend YAML (against a small native_functions.yaml) and the
``(line, column, message fragment)`` of every error ``schemac compile
--backend`` must report.  The cases cover every assertion of torchgen's
``parse_backend_yaml`` and ``error_on_missing_kernels`` (no mapping, no
``backend``, no ``cpp_namespace``, a non-bool ``use_out_as_primary`` or
``device_guard``, a non-list ``supported``/``symint``/``autograd``, unknown
keys, an unknown operator, a key that is not a dispatch key, a missing
``Autograd<Backend>`` key, a key native_functions.yaml already uses, a
family split between ``supported`` and ``autograd``, a ``symint`` kernel
without SymInt, a missing kernel definition) and schemac's own rules.  No
traceback ever reaches the user.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from schemac.cli import main

NATIVE = """\
- func: abs(Tensor self) -> Tensor
  dispatch:
    CPU: abs
- func: abs_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: abs_
- func: abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: abs_out
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  structured_delegate: add.out
- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  structured_delegate: add.out
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: add_out
- func: view(Tensor(a) self, SymInt[] size) -> Tensor(a)
  dispatch:
    CPU: view
- func: relu(Tensor self) -> Tensor
  dispatch:
    CPU: relu
"""


@pytest.fixture
def native(tmp_path: Path) -> Path:
    path = tmp_path / "native_functions.yaml"
    path.write_text(NATIVE)
    return path


def compile_backend(tmp_path: Path, native: Path, text: str, *extra: str) -> tuple[int, str]:
    backend = tmp_path / "backend.yaml"
    backend.write_text(textwrap.dedent(text))
    out = tmp_path / "out"
    code = main(["compile", str(native), "--backend", str(backend), "-o", str(out), *extra])
    return code, str(out)


CASES: dict[str, tuple[str, list[tuple[int, int, str]]]] = {
    "not a mapping": ("- abs\n", [(1, 1, "must be a mapping")]),
    "no backend": ("cpp_namespace: dev\nsupported: [abs]\n", [(1, 1, "has no 'backend'")]),
    "no cpp_namespace": ("backend: XLA\nsupported: [abs]\n", [(1, 1, "has no 'cpp_namespace'")]),
    "flags not booleans": (
        """\
        backend: XLA
        cpp_namespace: dev
        use_out_as_primary: yes please
        device_guard: 1
        supported: [abs]
        """,
        [(3, 21, "True or False for 'use_out_as_primary'"), (4, 15, "True or False")],
    ),
    "lists not lists": (
        """\
        backend: XLA
        cpp_namespace: dev
        supported: abs
        symint: {view: 1}
        autograd: relu
        """,
        [
            (3, 12, "a list of operator names for 'supported'"),
            (4, 9, "a list of operator names for 'symint'"),
            (5, 11, "a list of operator names for 'autograd'"),
        ],
    ),
    "unknown key": (
        "backend: XLA\ncpp_namespace: dev\nsuported: [abs]\n",
        [(3, 1, "unknown key 'suported'")],
    ),
    "unknown operator": (
        "backend: XLA\ncpp_namespace: dev\nsupported:\n- abs\n- ad.Tensor\n- relu.foo\n",
        [(5, 3, "'ad.Tensor' in 'supported' is not an operator"), (6, 3, "'relu.foo'")],
    ),
    "not a dispatch key": (
        "backend: XLB\ncpp_namespace: dev\nsupported: [abs]\n",
        [(1, 10, "'XLB' is not one")],
    ),
    "no autograd key": (
        "backend: FPGA\ncpp_namespace: dev\nsupported: [abs]\nautograd: [relu]\n",
        [(4, 1, "'AutogradFPGA', which does not exist")],
    ),
    "in-tree key": (
        "backend: CPU\ncpp_namespace: dev\nsupported: [abs]\n",
        [(1, 10, "'CPU' already has kernels")],
    ),
    "family split": (
        "backend: XLA\ncpp_namespace: dev\nsupported:\n- abs\nautograd:\n- abs_\n",
        [(6, 3, "'abs_' is listed under 'autograd' but its variant 'abs'")],
    ),
    "both lists": (
        "backend: XLA\ncpp_namespace: dev\nsupported: [relu]\nautograd: [relu]\n",
        [(4, 12, "'relu' is listed in both 'supported' and 'autograd'")],
    ),
    "listed twice": (
        "backend: XLA\ncpp_namespace: dev\nsupported:\n- abs\n- relu\n- abs\n",
        [(6, 3, "'abs' is listed twice in 'supported'")],
    ),
    "symint without SymInt": (
        "backend: XLA\ncpp_namespace: dev\nsupported: [abs, view]\nsymint: [abs, view]\n",
        [(4, 10, "'abs' is listed under 'symint' but its schema has no SymInt")],
    ),
    "lazy tensor keys": (
        "backend: XLA\ncpp_namespace: dev\nsupported: [abs]\nfull_codegen: [relu]\nir_gen: []\n",
        [(4, 1, "'full_codegen' (lazy-tensor IR codegen) is not supported yet"), (5, 1, "ir_gen")],
    ),
    "bad names": (
        "backend: XLA\ncpp_namespace: my-dev\nclass_name: 2Kernels\nsupported: [abs]\n",
        [(2, 16, "must be a C++ namespace"), (3, 13, "must be a C++ identifier")],
    ),
    "structured not structured": (
        "backend: XLA\ncpp_namespace: dev\nstructured: [abs.out]\n",
        [(3, 14, "'abs.out' is not part of a structured operator family")],
    ),
    "structured and supported": (
        "backend: XLA\ncpp_namespace: dev\nsupported: [add.Tensor]\nstructured: [add.out]\n",
        [(4, 14, "its variant 'add.Tensor' is also listed")],
    ),
    "yaml syntax": ("backend: XLA\ncpp_namespace: [dev\n", [(2, 16, "invalid YAML")]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_reported_at_position_with_hint(
    case: str, tmp_path: Path, native: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expected = CASES[case]
    code, out = compile_backend(tmp_path, native, text)
    err = capsys.readouterr().err
    assert code == 1, err
    assert "Traceback" not in err
    assert not Path(out).exists(), "a failed compile writes nothing"
    headlines = [line for line in err.splitlines() if ": error: " in line]
    assert len(headlines) == len(expected), err
    for (line, column, fragment), headline in zip(expected, headlines, strict=True):
        assert f"backend.yaml:{line}:{column}: error: " in headline, err
        assert fragment in headline, err
    assert err.count("^") >= len(expected), "each error shows a caret"
    assert err.count("hint: ") == len(expected), err


def test_many_problems_in_one_run(
    tmp_path: Path, native: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shape problems and problems against the module come out together, sorted."""
    code, _ = compile_backend(
        tmp_path,
        native,
        """\
        backend: XLA
        cpp_namespace: dev
        device_guard: maybe
        supported:
        - abs
        - nope
        autograd:
        - abs_
        """,
    )
    err = capsys.readouterr().err
    assert code == 1
    lines = [line.split(": error: ")[0] for line in err.splitlines() if ": error: " in line]
    assert [line.rsplit(":", 2)[1] for line in lines] == ["3", "6", "8"], err


def test_missing_kernels(tmp_path: Path, native: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl = tmp_path / "kernels.cpp"
    impl.write_text(
        textwrap.dedent(
            """\
            at::Tensor DevKernels::abs(const at::Tensor& self) { return self; }
            at::Tensor other() { return dev::DevKernels::relu(x); }  // a call, not a definition
            at::Tensor DevKernels::view_symint(const at::Tensor& self, c10::SymIntArrayRef s) {}
            """
        )
    )
    text = (
        "backend: XLA\ncpp_namespace: dev\nclass_name: DevKernels\n"
        "supported: [abs, relu, view]\nsymint: [view]\n"
    )
    code, out = compile_backend(tmp_path, native, text, "--impl-path", str(impl))
    err = capsys.readouterr().err
    assert code == 1
    assert "backend.yaml:4:18: error: DevKernels is missing a kernel definition for 'relu'" in err
    assert "hint: define: at::Tensor relu(const at::Tensor & self)" in err
    assert err.count(": error: ") == 1, err
    missing = tmp_path / "missing.cpp"
    code, _ = compile_backend(tmp_path, native, text, "--impl-path", str(missing))
    assert code == 1
    assert "missing.cpp:1:1: error: cannot read the --impl-path file" in capsys.readouterr().err
    impl.write_text(impl.read_text() + "at::Tensor DevKernels::relu(const at::Tensor& s) {}\n")
    code, out = compile_backend(tmp_path, native, text, "--impl-path", str(impl))
    assert code == 0, capsys.readouterr().err
    assert sorted(p.name for p in Path(out).iterdir() if not p.name.startswith(".")) == [
        "RegisterXLA.cpp",
        "XLANativeFunctions.h",
    ]
