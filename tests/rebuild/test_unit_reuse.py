"""Note [Unit reuse]: a target that still runs skips its emit calls whose inputs did not change.

The ``python`` target has two such calls: the bindings (native_functions.yaml, tags.yaml,
deprecated.yaml) and the autograd nodes' getters (derivatives.yaml too).  After an edit of
derivatives.yaml only the getters are made again; OUT is what a cold compile writes.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest

from out_trees import compile_argv, contents, stats
from schemac import launcher
from schemac.backends.output.files import GeneratedFile
from schemac.backends.python.backend import PythonBindingsBackend, PythonNodesBackend
from schemac.backends.registry import EmitOptions
from schemac.ir.module import Module
from schemac.rebuild import noop

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    copy = tmp_path / "toy"
    shutil.copytree(TOY, copy)
    return copy


def _argv(toy: Path, out: Path, targets: str = "schema,python") -> list[str]:
    return compile_argv(toy, out, targets, derivatives=True)


@pytest.fixture
def emitted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the python backends that emit, in order, from now on."""
    made: list[str] = []
    for backend in (PythonBindingsBackend, PythonNodesBackend):
        original = backend.emit

        def emit(
            self: object, module: Module, options: EmitOptions, original: object = original
        ) -> Iterable[GeneratedFile]:
            made.append(getattr(self, "name"))  # noqa: B009 (either backend class)
            return original(self, module, options)  # type: ignore[operator]

        monkeypatch.setattr(backend, "emit", emit)
    return made


def _cold(toy: Path, where: Path) -> dict[str, bytes]:
    assert launcher.main(_argv(toy, where)) == 0
    return contents(where)


def _edit_derivatives(toy: Path) -> None:
    path = toy / "derivatives.yaml"
    path.write_text(path.read_text() + "\n# an edit no output shows\n")


def test_an_edit_of_derivatives_emits_only_the_backends_that_read_it(
    toy: Path, tmp_path: Path, emitted: list[str]
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    assert emitted == ["python-bindings", "python-autograd-nodes"]
    bindings = [p for p in contents(out) if p.startswith("python/python_torch_functions")]
    assert bindings, "the toy library binds torch functions"
    before = stats(out)
    _edit_derivatives(toy)
    emitted.clear()
    assert launcher.main(_argv(toy, out)) == 0
    assert emitted == ["python-autograd-nodes"]
    assert contents(out) == _cold(toy, tmp_path / "cold")
    # The kept bindings were not touched, and the state records them: the next run is a no-op.
    assert all(stats(out)[p] == before[p] for p in bindings)
    assert noop.up_to_date(_argv(toy, out))


def test_a_kept_units_file_deleted_sends_that_unit_the_full_way(
    toy: Path, tmp_path: Path, emitted: list[str]
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    victim = next(p for p in contents(out) if p.startswith("python/python_torch_functions"))
    (out / victim).unlink()
    _edit_derivatives(toy)
    emitted.clear()
    assert launcher.main(_argv(toy, out)) == 0
    assert emitted == ["python-bindings", "python-autograd-nodes"]
    assert contents(out) == _cold(toy, tmp_path / "cold")


def test_an_edit_every_backend_reads_leaves_the_slices_to_decide(
    toy: Path, tmp_path: Path, emitted: list[str]
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    _edit_derivatives(toy)
    assert launcher.main(_argv(toy, out)) == 0  # the bindings are a kept unit now
    path = toy / "native_functions.yaml"
    # At the top: a comment after the last entry would be part of that entry's
    # text (its node runs to it), and so of its source key.
    path.write_text("# an edit of what both read\n" + path.read_text())
    emitted.clear()
    assert launcher.main(_argv(toy, out)) == 0
    # Both unit keys changed, but both units have slices (Note [Unit slices]:
    # the module's functions by their keys, blind to an aspect), which a comment
    # leaves as they were: neither is emitted, and OUT is the cold result.
    assert emitted == []
    assert contents(out) == _cold(toy, tmp_path / "cold")


def test_a_unit_that_wrote_no_file_is_reused_too(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without a backend YAML the backend stubs write nothing; after an edit they
    # do not read they are not run again either.
    from schemac.backends.backend_stubs.backend import BackendStubsBackend

    calls: list[str] = []
    original = BackendStubsBackend.emit

    def emit(self: BackendStubsBackend, module: Module, options: EmitOptions) -> object:
        calls.append(options.target)
        return original(self, module, options)

    monkeypatch.setattr(BackendStubsBackend, "emit", emit)
    argv = _argv(toy, tmp_path / "out", "schema,python,backend")
    assert launcher.main(argv) == 0
    assert calls == ["backend"]
    assert not [p for p in contents(tmp_path / "out") if "Native" in p]
    _edit_derivatives(toy)
    assert launcher.main(argv) == 0
    assert calls == ["backend"]
