"""``schemac coverage``: each operator's class, and what a backend lacks, on small YAML.

The last test runs the report on the hostdev example against the installed
torch: it must name ``sub.Tensor`` among the core operators the device lacks.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from schemac.cli import main

NATIVE = """\
- func: abs(Tensor self) -> Tensor
  dispatch:
    CPU: abs
  tags: core
- func: abs_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: abs_
- func: abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: abs_out
- func: sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  dispatch:
    CPU: sub
  tags: core
- func: square(Tensor self) -> Tensor
  tags: core
- func: ones_like(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: ones_like
- func: _cuda_only(Tensor self) -> Tensor
  dispatch:
    CUDA: cuda_only
  tags: core
- func: resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)
  dispatch:
    CPU: resize_
- func: _local_scalar_dense(Tensor self) -> Scalar
  dispatch:
    CPU: _local_scalar_dense_cpu
"""
TAGS = "- tag: core\n  desc: the core ATen operators\n"
BACKEND = """\
backend: PrivateUse1
cpp_namespace: dev
supported:
- abs
- resize_
symint:
- resize_
"""


def coverage(tmp_path: Path, *extra: str) -> list[str]:
    (tmp_path / "native.yaml").write_text(NATIVE)
    (tmp_path / "tags.yaml").write_text(TAGS)
    (tmp_path / "backend.yaml").write_text(BACKEND)
    return [
        "coverage", str(tmp_path / "native.yaml"), "--tags", str(tmp_path / "tags.yaml"),
        "--backend", str(tmp_path / "backend.yaml"), *extra,
    ]  # fmt: skip


def test_json_classes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(coverage(tmp_path, "--format", "json")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "PrivateUse1"
    assert report["total"] == 9
    assert report["classes"] == {
        # abs_ and abs.out: the wrappers generated from the functional kernel.
        "implemented": ["abs", "abs_", "abs.out", "resize_"],
        "composite": ["square", "ones_like"],
        "cpu_fallback": ["sub.Tensor", "_local_scalar_dense"],
        "unavailable": ["_cuda_only"],
    }
    assert report["missing_core"] == ["sub.Tensor", "_cuda_only"]
    assert report["missing_device_required"] == ["_local_scalar_dense"]


def test_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(coverage(tmp_path)) == 0
    text = capsys.readouterr().out
    assert "9 operators" in text.splitlines()[0]
    assert "  implemented       4" in text
    assert "device operators it must provide but lacks (1):\n  _local_scalar_dense\n" in text
    assert "'core' operators it lacks (2):\n  sub.Tensor\n  _cuda_only\n" in text


def test_bad_backend_yaml_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = coverage(tmp_path)
    (tmp_path / "backend.yaml").write_text(BACKEND.replace("- resize_\nsymint", "- resize\nsymint"))
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "backend.yaml:5:3: error: 'resize' in 'supported' is not an operator" in err
    assert "hint: did you mean 'resize_'?" in err


@pytest.mark.torch
def test_example_device_against_torch(capsys: pytest.CaptureFixture[str]) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "hostdev" / "backend.yaml"
    assert main(["coverage", "--torch", "--backend", str(example), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "sub.Tensor" in report["missing_core"]
    assert "add.Tensor" not in report["missing_core"]
    assert {"abs_", "abs.out", "tanh", "resize_"} <= set(report["classes"]["implemented"])
    assert report["missing_device_required"] == ["set_.source_Tensor", "set_"]


def test_lists_come_from_the_target_release_profile(tmp_path: Path) -> None:
    from schemac.backends.backend_stubs.bind import bind_backend
    from schemac.backends.backend_stubs.coverage import coverage_report
    from schemac.frontend.backend_loader import read_backend_yaml
    from schemac.frontend.loader import load_module
    from schemac.passes.manager import run_pipeline
    from schemac.profiles import load_profile

    coverage(tmp_path)  # writes the files
    module = run_pipeline(load_module(tmp_path / "native.yaml", tmp_path / "tags.yaml")).module
    spec, _ = read_backend_yaml(tmp_path / "backend.yaml")
    assert spec is not None
    bound, _ = bind_backend(module, spec)
    for release in ("2.11", "2.15"):
        profile = load_profile(release)
        assert "_local_scalar_dense" in profile.names("device_required_operators")
        report = coverage_report(module, bound, profile)
        assert report.missing_device_required == ("_local_scalar_dense",)
    # A release whose lists say otherwise gets its own answer.
    profile = attrs.evolve(
        load_profile("2.14"),
        lists={**load_profile("2.14").lists, "device_required_operators": ("abs", "square"),
               "decomposition_target_tags": ()},
    )  # fmt: skip
    report = coverage_report(module, bound, profile)
    assert report.missing_device_required == ("square",)
    assert report.missing_core == ()
