"""``schemac check`` / ``dump-ir --after load`` on real and small inputs, and the torch locator."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from schemac.cli import main
from schemac.diagnostics import InputError
from schemac.frontend import torch_paths
from schemac.frontend.loader import load_module

ROOT = Path(__file__).resolve().parents[2]
TOYOPS = ROOT / "examples" / "toyops"


@pytest.mark.torch
def test_check_torch_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--torch"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith("ok: 2584 functions, ")
    assert "687 derivative entries" in captured.out


@pytest.mark.torch
def test_torch_with_a_library_yaml_gives_tags_not_torchs_derivatives(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # torch's derivatives.yaml describes torch's operators: over an
    # extension's ops.yaml each of its entries would be an error.
    ops = ROOT / "examples" / "toyext" / "ops.yaml"
    assert main(["check", str(ops), "--torch"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "0 derivative entries" in captured.out, captured.out


def test_torch_not_installed_is_a_clean_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(InputError) as error:
        torch_paths.torch_yaml_paths()
    assert "torch is not installed" in str(error.value)
    assert main(["check", "--torch"]) == 1
    err = capsys.readouterr().err
    assert "error: torch is not installed" in err
    assert "Traceback" not in err


def test_torch_yaml_paths_does_not_import_torch() -> None:
    code = (
        "import sys; from schemac.frontend.torch_paths import torch_yaml_paths; "
        "p = torch_yaml_paths(); assert p.native_functions.is_file(); "
        "assert 'torch' not in sys.modules and 'torchgen' not in sys.modules"
    )
    env_path = str(ROOT / "src")
    subprocess.run(
        [sys.executable, "-c", code], check=True, env={"PYTHONPATH": env_path}, timeout=120
    )


def _toyops_args() -> list[str]:
    return [
        str(TOYOPS / "native_functions.yaml"),
        "--tags",
        str(TOYOPS / "tags.yaml"),
        "--derivatives",
        str(TOYOPS / "derivatives.yaml"),
    ]


def test_dump_ir_json_is_the_front_ends_module(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dump-ir", *_toyops_args(), "--after", "load", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    module = load_module(
        TOYOPS / "native_functions.yaml", TOYOPS / "tags.yaml", TOYOPS / "derivatives.yaml"
    )
    assert [f["func"] for f in data["functions"]] == [str(f.func) for f in module.functions]
    assert [f["namespace"] for f in data["functions"]] == [f.namespace for f in module.functions]
    assert [d["schema"] for d in data["derivatives"]] == [str(d.schema) for d in module.derivatives]


def test_dump_ir_text_selects_operators(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dump-ir", *_toyops_args(), "--after", "load", "--op", "scale"]) == 0
    out = capsys.readouterr().out
    headlines = [line.strip() for line in out.splitlines() if line.startswith("  toyops::")]
    assert headlines == [
        "toyops::scale.out(Tensor self, Scalar factor, *, Scalar offset=0, Tensor(a!) out)"
        " -> Tensor(a!)",
        "toyops::scale(Tensor self, Scalar factor, *, Scalar offset=0) -> Tensor",
    ]
    assert "structured_delegate: scale.out" in out


def test_spans_point_into_the_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dump-ir", *_toyops_args(), "--after", "load", "--op", "scale_", "--spans"]) == 0
    out = capsys.readouterr().out
    line = (
        (TOYOPS / "native_functions.yaml")
        .read_text()
        .splitlines()
        .index(
            "- func: toyops::scale_(Tensor(a!) self, Scalar factor, *, Scalar offset=0)"
            " -> Tensor(a!)"
        )
    )
    assert f"native_functions.yaml:{line + 1}:3" in out


def test_python_dash_m(tmp_path: Path) -> None:
    bad = tmp_path / "native_functions.yaml"
    bad.write_text("- func: neg(Tensr self) -> Tensor\n")
    result = subprocess.run(
        [sys.executable, "-m", "schemac", "check", str(bad)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src")},
        timeout=120,
    )
    assert result.returncode == 1
    assert f"{bad}:1:13: error: unknown type 'Tensr'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # A default the compile-time name and default checks reject.
        (("float high=1.0) -> Tensor", "int[] high=3) -> Tensor"), "unsized list type 'int[]'"),
        # A pass's consistency check: a structured delegate that does not exist.
        (
            ("structured_delegate: window_sum.out", "structured_delegate: window_sum.outt"),
            "window_sum.outt",
        ),
    ],
)
def test_check_reports_what_compile_would_reject(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], message: str
) -> None:
    example = TOYOPS
    text = (example / "native_functions.yaml").read_text(encoding="utf-8")
    assert edit[0] in text
    broken = tmp_path / "native_functions.yaml"
    broken.write_text(text.replace(edit[0], edit[1]), encoding="utf-8")
    code = main(["check", str(broken), "--tags", str(example / "tags.yaml")])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{broken}:" in err and message in err
    assert "Traceback" not in err
