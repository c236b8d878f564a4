"""Imports every compile pays for: nothing heavy that schemac does not use."""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(statement: str, prefixes: tuple[str, ...]) -> list[str]:
    script = (
        f"import sys\n{statement}\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {prefixes!r}))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout)  # a printed list of module names


def test_templates_do_not_load_email_through_mako() -> None:
    # Mako imports importlib.metadata (email, zipfile, csv) for plugins schemac never uses.
    assert _loaded_after("import schemac.backends.templating", ("email", "zipfile", "csv")) == []


def test_importlib_metadata_still_works_after_mako() -> None:
    statement = (
        "import schemac.backends.templating\nimport importlib.metadata\n"
        "assert importlib.metadata.version('mako')"
    )
    assert "email" in _loaded_after(statement, ("email",))
