"""``schemac backend-init NAME``: the starter tree, consistent with itself and with torch.

The YAML it writes compiles with schemac, and ``--impl-path`` finds every
kernel that YAML lists defined in the starter ``kernels.cpp``; the runtime
file compiles against torch's headers.  Names that cannot become a C++
namespace and a Python package are usage errors; existing files are kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.cli import main


def test_tree_and_its_kernels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "npu"
    assert main(["backend-init", "npu", "-o", str(tree)]) == 0
    written = sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file())
    assert written == [
        "backend.yaml",
        "csrc/device.cpp",
        "csrc/device.h",
        "csrc/kernels.cpp",
        "npu/__init__.py",
        "npu/build.py",
    ]
    init = (tree / "npu" / "__init__.py").read_text()
    assert 'NAME = "npu"' in init and "rename_privateuse1_backend(NAME)" in init
    assert "namespace npu {" in (tree / "csrc" / "device.cpp").read_text()
    compile(init, "npu/__init__.py", "exec")
    compile((tree / "npu" / "build.py").read_text(), "npu/build.py", "exec")
    capsys.readouterr()


@pytest.mark.torch
def test_starter_yaml_and_kernels_agree(
    tmp_path: Path,
    torch_include: Path,
    compile_cpp,  # type: ignore[no-untyped-def]
) -> None:
    tree = tmp_path / "npu"
    assert main(["backend-init", "npu", "-o", str(tree)]) == 0
    out = tmp_path / "generated"
    args = ["compile", "--torch", "--backend", str(tree / "backend.yaml"), "-o", str(out)]
    assert main([*args, "--impl-path", str(tree / "csrc" / "kernels.cpp")]) == 0
    assert (out / "RegisterPrivateUse1.cpp").is_file()
    result = compile_cpp(tree / "csrc" / "device.cpp", [torch_include])
    assert result.returncode == 0, result.stderr[-3000:]


def test_bad_name_and_existing_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["backend-init", "My-Dev", "-o", str(tmp_path / "x")]) == 2
    assert "not a lower-case identifier" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "backend.yaml").write_text("mine\n")
    assert main(["backend-init", "dev", "-o", str(tmp_path / "y")]) == 1
    assert "never overwrites" in capsys.readouterr().err
    assert (tmp_path / "y" / "backend.yaml").read_text() == "mine\n"
    assert not (tmp_path / "y" / "csrc").exists()
