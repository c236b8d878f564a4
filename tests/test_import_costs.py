"""Imports every compile pays for: nothing heavy that schemac does not use."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _loaded_after(statement: str, prefixes: tuple[str, ...]) -> list[str]:
    script = (
        f"import sys\n{statement}\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {prefixes!r}))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.splitlines()[-1])  # a printed list of module names, last


def test_templates_do_not_load_email_through_mako() -> None:
    # Mako imports importlib.metadata (email, zipfile, csv) for plugins schemac never uses.
    assert _loaded_after("import schemac.backends.templating", ("email", "zipfile", "csv")) == []


def test_importlib_metadata_still_works_after_mako() -> None:
    statement = (
        "import schemac.backends.templating\nimport importlib.metadata\n"
        "assert importlib.metadata.version('mako')"
    )
    assert "email" in _loaded_after(statement, ("email",))


def test_a_small_compile_loads_no_resource_readers_or_difflib(tmp_path: Path) -> None:
    # importlib.resources' first files() imports its readers and zipfile (3-5 ms);
    # the grammar and the templates are found from the package's folder instead.
    # difflib is for "did you mean" on a broken tag only.
    toy = "examples/toyops"
    statement = (
        "from schemac.launcher import main\n"
        f"assert main(['compile', '{toy}/native_functions.yaml', '--tags', '{toy}/tags.yaml', "
        f"'--derivatives', '{toy}/derivatives.yaml', '-t', 'all', '-o', '{tmp_path / 'out'}'], "
        "cache_code=True) == 0"
    )
    loaded = _loaded_after(statement, ("zipfile", "difflib", "importlib"))
    assert [m for m in loaded if m in ("zipfile", "difflib", "importlib.readers")] == []


def test_a_small_compile_whose_schemas_take_the_shortcuts_loads_no_lark(tmp_path: Path) -> None:
    # Note [Lark on demand]: toyops' schemas all take the Token shortcuts, so
    # with the terminal patterns cached (a first run stores them) Lark is never
    # imported; neither are the transformer and the syntax diagnostics.
    toy = "examples/toyops"

    def compile_into(out: Path) -> str:
        return (
            "from schemac.launcher import main\n"
            f"assert main(['compile', '{toy}/native_functions.yaml', '--tags', '{toy}/tags.yaml', "
            f"'--derivatives', '{toy}/derivatives.yaml', '-t', 'all', '-o', '{out}'], "
            "cache_code=True) == 0"
        )

    _loaded_after(compile_into(tmp_path / "first"), ("lark",))
    loaded = _loaded_after(compile_into(tmp_path / "second"), ("lark", "interegular", "schemac"))
    assert [m for m in loaded if not m.startswith("schemac")] == []
    assert "schemac.frontend.schema_transformer" not in loaded
    assert "schemac.frontend.schema_syntax" not in loaded


def test_loading_torchs_yaml_loads_no_lark() -> None:
    # Every schema of torch's native_functions.yaml takes the piecewise parse:
    # annotations that say what the alias set becomes (`Tensor(a -> *) self`)
    # and string defaults with escapes (`_test_string_default`) included.
    # Lark would cost every torch compile ~6 MiB and ~35 ms of imports.
    check = "from schemac.launcher import main\nassert main(['check', '--torch']) == 0"
    _loaded_after(check, ("lark",))  # stores the terminal patterns if they are not cached
    loaded = _loaded_after(check, ("lark", "schemac"))
    assert [m for m in loaded if not m.startswith("schemac")] == []
    assert "schemac.frontend.schema_syntax" not in loaded


# hashlib loads OpenSSL's libcrypto: ~3.5 MiB of every compile's peak memory,
# more than `compile -t python` may spend over torchgen's (schemac.digests).
_OPENSSL = ("hashlib", "_hashlib")


def test_a_compile_and_its_reruns_load_no_openssl(tmp_path: Path) -> None:
    # Cold, then an edited re-run over the same OUT (the state, the deferred
    # files' keys and the fragments are read back), then a no-op.
    toy = tmp_path / "toy"
    shutil.copytree(ROOT / "examples" / "toyops", toy)
    native = toy / "native_functions.yaml"

    def compile_into(out: Path) -> str:
        return (
            "from schemac.launcher import main\n"
            f"assert main(['compile', '{native}', '--tags', '{toy}/tags.yaml', "
            f"'--derivatives', '{toy}/derivatives.yaml', '-t', 'all', '-o', '{out}'], "
            "cache_code=True) == 0"
        )

    _loaded_after(compile_into(tmp_path / "first"), ())  # fills the caches (Lark's patterns)
    out = tmp_path / "out"
    assert _loaded_after(compile_into(out), _OPENSSL) == []
    native.write_text(native.read_text() + "# an edit\n")
    assert _loaded_after(compile_into(out), _OPENSSL) == []
    assert _loaded_after(compile_into(out), _OPENSSL) == []


def test_a_torch_python_compile_loads_no_openssl(tmp_path: Path) -> None:
    # Issue #16's run: its peak memory is compared with torchgen's.
    _loaded_after("from schemac.launcher import main\nassert main(['check', '--torch']) == 0", ())
    statement = (
        "from schemac.launcher import main\n"
        f"assert main(['compile', '--torch', '-t', 'python', '-o', '{tmp_path / 'out'}'], "
        "cache_code=True) == 0"
    )
    assert _loaded_after(statement, _OPENSSL) == []
