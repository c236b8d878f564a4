"""The wheel carries the grammar, and an installed schemac parses from anywhere.

grammar/schema.lark lives outside the Python package in the repository; the
build copies it to ``schemac/grammar/schema.lark``.  A source checkout finds
the repository file, so only a test that builds and installs the wheel, then
runs from a directory with no checkout in sight, shows the copy is there and
is the one loaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytest.importorskip("hatchling", reason="building the wheel needs the hatchling backend")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (built,) = out.glob("schemac-*.whl")
    return built


def test_wheel_contains_the_grammar(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert "schemac/grammar/schema.lark" in names
        shipped = archive.read("schemac/grammar/schema.lark").decode()
    assert shipped == (REPO / "grammar" / "schema.lark").read_text(encoding="utf-8")


def test_installed_wheel_parses_from_another_directory(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = (
        "import schemac, schemac.frontend.grammar as g\n"
        "from schemac import parse_schema\n"
        "s = parse_schema('add.out(Tensor self, Tensor other, *, Scalar alpha=1, "
        "Tensor(a!) out) -> Tensor(a!)')\n"
        "print(schemac.__file__)\n"
        "print(s.arguments.out[0].name, s.kind().value)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=elsewhere,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    location, parsed = result.stdout.splitlines()
    assert Path(location).is_relative_to(target), "imported the checkout, not the wheel"
    assert parsed == "out out"
