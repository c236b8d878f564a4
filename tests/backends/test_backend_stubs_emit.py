"""What ``compile --backend`` writes for a tiny native YAML (no torch needed).

Which operators get copy-back wrappers (``use_out_as_primary``, families whose
functional variant returns more, list-valued in-place variants), what
``device_guard: true`` adds, and the kernel class's name and namespace.
"""

from __future__ import annotations

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
- func: _foreach_neg(Tensor[] self) -> Tensor[]
  device_check: NoCheck
  dispatch:
    CPU: foreach_neg
- func: _foreach_neg_(Tensor(a!)[] self) -> ()
  device_check: NoCheck
  dispatch:
    CPU: foreach_neg_
- func: _foreach_neg.out(Tensor[] self, *, Tensor(a!)[] out) -> ()
  device_check: NoCheck
  dispatch:
    CPU: foreach_neg_out
- func: _scale_(Tensor(a!) self, Tensor(b!) tracker) -> Tensor(a!)
  dispatch:
    CPU: scale_
  autogen: _scale, _scale.out
"""


def generate(tmp_path: Path, backend: str) -> dict[str, str]:
    (tmp_path / "native.yaml").write_text(NATIVE)
    (tmp_path / "backend.yaml").write_text(backend)
    out = tmp_path / "out"
    args = ["compile", str(tmp_path / "native.yaml"), "--backend", str(tmp_path / "backend.yaml")]
    assert main([*args, "-o", str(out)]) == 0
    return {p.name: p.read_text() for p in out.iterdir() if not p.name.startswith(".")}


def registered(text: str) -> list[str]:
    return [line.split('"')[1] for line in text.splitlines() if "m.impl(" in line]


BACKEND = (
    "backend: XLA\ncpp_namespace: a::b\nclass_name: K\nsupported: [abs, _foreach_neg, _scale]\n"
)


def test_copy_back_wrappers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = generate(tmp_path, BACKEND)
    source = files["RegisterXLA.cpp"]
    # _scale_ and _scale.out return one tensor of the functional's two: no wrapper.
    assert registered(source) == [
        "abs", "abs.out", "abs_", "_foreach_neg", "_foreach_neg.out", "_foreach_neg_", "_scale",
    ]  # fmt: skip
    assert "at::_copy_from(wrapper_XLA__abs__tmp, self);\n  return self;" in source
    assert (
        "for (int64_t i = 0; i < wrapper_XLA___foreach_neg__tmp.size(); ++i) {\n"
        "    at::_copy_from(wrapper_XLA___foreach_neg__tmp[i], self[i]);\n  }\n  return;"
    ) in source
    assert "return a::b::K::abs(self);" in source
    assert "// No device check" in source and "device_guard(" not in source
    header = files["XLANativeFunctions.h"]
    assert "namespace a::b {\n\nstruct K {" in header
    assert "static at::Tensor abs(const at::Tensor & self);" in header
    capsys.readouterr()


def test_use_out_as_primary_and_device_guard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = generate(tmp_path, BACKEND + "use_out_as_primary: true\ndevice_guard: true\n")
    source = files["RegisterXLA.cpp"]
    assert registered(source) == ["abs", "_foreach_neg", "_scale"]
    assert "const OptionalDeviceGuard device_guard(device_of(self));" in source
    check = 'check_and_update_common_device(common_device, self, "wrapper_XLA__abs", "self");'
    assert check in source
    capsys.readouterr()


def test_no_supported_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As torchgen: a YAML without kernels yet is valid and produces no files."""
    assert generate(tmp_path, "backend: XLA\ncpp_namespace: dev\nsupported:\n") == {}
    capsys.readouterr()
