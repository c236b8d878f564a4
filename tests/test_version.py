"""``schemac --version``: one version, the same in the CLI, the package and its metadata."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import schemac
from schemac.cli import main
from schemac.version import version


def test_version_flag_prints_the_package_version(capsys) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"schemac {version()}\n"


def test_one_version_everywhere() -> None:
    assert schemac.__version__ == version()
    # pyproject.toml takes its version from schemac/version.py (hatch's version source).
    assert importlib.metadata.version("schemac") == version()


def test_version_as_a_process_imports_nothing_heavy() -> None:
    script = (
        "import sys, schemac.version; print(schemac.version.version());"
        "heavy = ('lark', 'mako', 'attr', 'yaml');"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == [version(), "[]"]
