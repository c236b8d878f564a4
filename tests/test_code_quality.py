"""The codebase's own rules, checked on every run: lint, types, import layering."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "schemac"

# Which top-level schemac packages each layer may import (see docs/architecture.md).
# Release profiles sit beside the IR: every layer above reads them.
ALLOWED_IMPORTS: dict[str, set[str]] = {
    "diagnostics": set(),
    "digests": set(),
    "cachedir": {"digests"},
    "version": set(),
    # The no-op check runs before anything heavy is imported: stdlib, the version
    # and the digests only.
    "rebuild": {"version", "digests", "rebuild"},
    "ir": {"diagnostics", "ir"},
    "profiles": {"diagnostics", "ir", "profiles"},
    "frontend": {"diagnostics", "cachedir", "digests", "ir", "profiles", "version", "frontend"},
    "passes": {"diagnostics", "ir", "profiles", "passes"},
    "backends": {"diagnostics", "cachedir", "digests", "ir", "profiles", "version", "backends"},
}
FORBIDDEN_EVERYWHERE = {"torch", "torchgen"}


def _imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _layer_of(path: Path) -> str | None:
    relative = path.relative_to(SRC).parts
    if relative[0].endswith(".py"):
        stem = relative[0][:-3]
        return stem if stem in ALLOWED_IMPORTS else None
    return relative[0] if relative[0] in ALLOWED_IMPORTS else None


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_import_layering(path: Path) -> None:
    layer = _layer_of(path)
    for module in _imported_modules(path):
        top = module.split(".")[0]
        assert top not in FORBIDDEN_EVERYWHERE, f"{path}: schemac must not import {top}"
        if top != "schemac" or layer is None:
            continue
        parts = module.split(".")
        target = parts[1] if len(parts) > 1 else ""
        assert target in ALLOWED_IMPORTS[layer], (
            f"{path.relative_to(ROOT)} ({layer}) imports {module}; "
            f"{layer} may import only {sorted(ALLOWED_IMPORTS[layer])}"
        )


def _tool(name: str) -> str:
    candidate = Path(sys.executable).with_name(name)
    found = str(candidate) if candidate.exists() else shutil.which(name)
    assert found, f"{name} is not installed (it is in the 'dev' extra)"
    return found


def test_ruff_clean() -> None:
    result = subprocess.run(
        [_tool("ruff"), "check", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_clean() -> None:
    # Unformatted files slipped in while several people worked in parallel;
    # formatting is part of the standard, so it is checked like the lints.
    result = subprocess.run(
        [_tool("ruff"), "format", "--check", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_clean() -> None:
    result = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


#: What the repository's root holds; anything else tracked there is most
#: likely a scratch file committed by mistake (profiler dumps did happen).
ROOT_ENTRIES = {
    ".ci", ".gitignore", "Makefile", "README.md", "pyproject.toml",
    "src", "tests", "docs", "examples", "benchmarks", "grammar", "tools",
}  # fmt: skip


def test_no_stray_files_at_the_root() -> None:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    tops = {path.split("/", 1)[0] for path in listed}
    assert tops <= ROOT_ENTRIES, sorted(tops - ROOT_ENTRIES)
