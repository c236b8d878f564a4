"""The pass manager, the registry, the verifier, the resolved printer and the CLI wiring."""

from __future__ import annotations

import json
from typing import ClassVar

import attrs
import pytest

from schemac.cli import main
from schemac.ir.module import Module
from schemac.passes.base import Pass, PassContext
from schemac.passes.manager import PassManager, PipelineError, order_passes
from schemac.passes.registry import default_pipeline_names, get_all_passes
from schemac.passes.verify import VerificationError

from .conftest import LoadYaml

SMALL = """\
- func: sin(Tensor self) -> Tensor
  structured_delegate: sin.out
- func: sin_(Tensor(a!) self) -> Tensor(a!)
  structured_delegate: sin.out
- func: sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: sin_out
- func: relu_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: relu_
  autogen: relu, relu.out
"""


def test_registry_keys_are_pass_names_and_requirements_come_first() -> None:
    registry = get_all_passes()
    assert list(registry) == list(default_pipeline_names())
    provided: set[str] = set()
    for name, load in registry.items():
        cls = load()
        assert cls.name == name
        assert cls.summary
        missing = [r for r in cls.requires if r not in provided]
        assert missing == [], f"{name} requires {missing} before any pass provides it"
        provided.update(cls.provides)


@attrs.frozen
class _Fake(Pass):
    name: ClassVar[str] = "fake"
    summary: ClassVar[str] = "test pass"
    label: str = ""
    needs: tuple[str, ...] = ()
    gives: tuple[str, ...] = ()

    def run(self, ctx: PassContext, module: Module) -> Module:
        return module


def _fake(label: str, requires: tuple[str, ...], provides: tuple[str, ...]) -> Pass:
    cls = type(
        f"Fake_{label}",
        (_Fake,),
        {"name": label, "requires": requires, "provides": provides, "__slots__": ()},
    )
    return cls()  # type: ignore[no-any-return]


def test_order_follows_requirements_then_rank() -> None:
    a = _fake("a", ("y",), ("x",))
    b = _fake("b", (), ("y",))
    c = _fake("c", (), ("z",))
    ordered = order_passes([a, c, b], rank={"a": 0, "b": 1, "c": 2})
    assert [p.name for p in ordered] == ["b", "a", "c"]
    with pytest.raises(PipelineError, match="requires q"):
        order_passes([_fake("d", ("q",), ())])
    with pytest.raises(PipelineError, match="cycle"):
        order_passes([_fake("e", ("f",), ("e",)), _fake("f", ("e",), ("f",))])


def test_stop_after_and_timings(load_yaml: LoadYaml) -> None:
    manager = PassManager.default()
    module = load_yaml(SMALL)
    result = manager.run(PassContext(verify=True), module, stop_after="autogen-variants")
    assert result.ran == ("resolve-dispatch", "autogen-variants")
    assert [t.name for t in result.timings] == list(result.ran)
    assert all(t.seconds >= 0 for t in result.timings)
    assert result.module.grouped_functions == ()  # grouping has not run
    assert len(result.module.functions) == 6
    assert len(module.resolutions) == 0  # the input module is untouched
    with pytest.raises(PipelineError, match="did you mean 'group-views'"):
        manager.run(PassContext(), module, stop_after="group-view")


@attrs.frozen
class _DropsResolutions(Pass):
    name: ClassVar[str] = "drop"
    summary: ClassVar[str] = "breaks an invariant"
    requires: ClassVar[tuple[str, ...]] = ("resolved-dispatch",)

    def run(self, ctx: PassContext, module: Module) -> Module:
        return attrs.evolve(module, resolutions=type(module.resolutions)())


def test_verifier_catches_a_broken_pass(load_yaml: LoadYaml) -> None:
    first = PassManager.default().passes[0]
    manager = PassManager((first, _DropsResolutions()))
    module = load_yaml(SMALL)
    manager.run(PassContext(verify=False), module)  # unnoticed without --verify
    with pytest.raises(VerificationError) as caught:
        manager.run(PassContext(verify=True), module)
    assert caught.value.diagnostics[0].message == (
        "after pass 'drop': 'sin' has no resolved dispatch table"
    )


def test_cli_passes_and_dump_ir(
    load_yaml: LoadYaml,
    tmp_path,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    assert main(["passes"]) == 0
    listing = capsys.readouterr().out
    assert listing.index("resolve-dispatch:") < listing.index("group-variants:")

    load_yaml(SMALL)
    native, tags = tmp_path / "native_functions.yaml", tmp_path / "tags.yaml"
    argv = ["dump-ir", str(native), "--tags", str(tags), "--format", "json"]
    assert main([*argv, "--verify", "--time-passes"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert "check-structured" in captured.err
    assert {"functions", "groups", "view_groups"} <= set(data)
    sin_out = next(f for f in data["functions"] if f["name"] == "sin.out")
    assert sin_out == {
        "name": "sin.out",
        "namespace": "aten",
        "schema": "sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        "dispatch": {"CPU": "sin_out"},
        "structured": True,
        "structured_delegate": None,
        "tags": ["pt2_compliant_tag", "out"],
        "variants": ["function"],
        "generated": False,
        "is_abstract": True,
    }
    assert data["groups"] == [
        {
            "functional": "sin",
            "inplace": "sin_",
            "out": "sin.out",
            "mutable": None,
            "structured": True,
        },
        {
            "functional": "relu",
            "inplace": "relu_",
            "out": "relu.out",
            "mutable": None,
            "structured": False,
        },
    ]
    assert main([*argv, "--after", "resolve-dispatch"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["functions"]) == 4 and data["groups"] == []
    assert main([*argv, "--after", "nope"]) == 2
    assert "no pass named 'nope'" in capsys.readouterr().err


def test_gc_state_is_restored(load_yaml: LoadYaml) -> None:
    import gc

    module = load_yaml(SMALL)
    assert gc.isenabled()
    PassManager.default().run(PassContext(), module)
    assert gc.isenabled()
    gc.disable()
    try:
        PassManager.default().run(PassContext(), module)
        assert not gc.isenabled()  # a caller's choice is left alone
    finally:
        gc.enable()
