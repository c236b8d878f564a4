"""The driver: which backends run for which targets, and how their files meet."""

from __future__ import annotations

from collections.abc import Iterable

import attrs
import pytest

from schemac.backends import driver, registry
from schemac.backends.output import GeneratedFile, OutputError
from schemac.backends.registry import BackendEntry, EmitOptions
from schemac.ir.module import Module, SourceFiles

MODULE = Module(sources=SourceFiles(native_functions="native_functions.yaml"))
CALLS: list[tuple[str, str]] = []


@attrs.frozen
class FakeBackend:
    name: str
    targets: tuple[str, ...]
    paths: tuple[str, ...]
    description: str = "a fake backend"

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        CALLS.append((self.name, options.target))
        for path in self.paths:
            yield GeneratedFile(path.format(target=options.target), f"{self.name}\n")


ALPHA = FakeBackend("alpha", ("cpu", "cuda"), ("Register_{target}.cpp",))
BETA = FakeBackend("beta", ("cpu",), ("beta.h",))
CLASH = FakeBackend("clash", ("cuda",), ("beta.h", "Register_cuda.cpp"))


@pytest.fixture
def fake_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    CALLS.clear()
    entries = tuple(
        BackendEntry(b.name, f"{__name__}:{b.name.upper()}", b.targets) for b in (ALPHA, BETA)
    )
    monkeypatch.setattr(registry, "BACKENDS", entries)


def test_each_backend_runs_once_per_selected_target_it_answers(fake_registry: None) -> None:
    files = driver.emit_targets(MODULE, ("cpu", "cuda"))
    assert CALLS == [("alpha", "cpu"), ("beta", "cpu"), ("alpha", "cuda")]
    assert [(f.path, f.target) for f in files] == [
        ("Register_cpu.cpp", "cpu"),
        ("Register_cuda.cpp", "cuda"),
        ("beta.h", "cpu"),
    ]


def test_files_produced_twice_are_reported_together(
    fake_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = (*registry.BACKENDS, BackendEntry("clash", f"{__name__}:CLASH", ("cuda",)))
    monkeypatch.setattr(registry, "BACKENDS", entries)
    with pytest.raises(OutputError) as raised:
        driver.emit_targets(MODULE, ("cpu", "cuda"))
    messages = sorted(d.message for d in raised.value.diagnostics)
    assert len(messages) == 2
    assert "'Register_cuda.cpp' from target 'cuda' collides with the same path" in messages[0]
    assert (
        "'beta.h' from target 'cuda' collides with the same path from target 'cpu'" in (messages[1])
    )
