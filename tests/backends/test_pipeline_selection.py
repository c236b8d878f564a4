"""Target-driven pipelines: ``schemac compile -t T`` runs only the passes T's backends need."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.backends.registry import (
    BACKENDS,
    NOT_IN_ALL,
    TARGET_NAMES,
    backends_for,
    required_facts,
)
from schemac.cli import main
from schemac.cli_pipeline import compile_pass_manager
from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.module import Module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager, PipelineError, run_pipeline
from schemac.passes.registry import default_pipeline_names

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"
IMPLEMENTED = tuple(t for t in TARGET_NAMES if backends_for(t))
#: The targets the toyops library (ATen's layout) is valid input for: a target
#: outside ``all`` (the extension) refuses its non-out ``autogen:`` entries.
TOY_TARGETS = tuple(t for t in IMPLEMENTED if t not in NOT_IN_ALL)


def _passes_for(*targets: str) -> tuple[str, ...]:
    return PassManager.for_requirements(required_facts(targets)).names()


def _toy_module() -> Module:
    return load_module(
        str(TOY / "native_functions.yaml"), str(TOY / "tags.yaml"), str(TOY / "derivatives.yaml")
    )


def test_headers_do_not_match_derivatives() -> None:
    names = _passes_for("headers")
    assert "match-derivatives" not in names
    assert {"resolve-dispatch", "group-variants", "check-structured"} <= set(names)


def test_autograd_and_python_match_derivatives_but_need_no_families() -> None:
    for target in ("autograd", "python"):
        names = _passes_for(target)
        assert "match-derivatives" in names
        assert "group-views" not in names and "selective-build" not in names


def test_schema_needs_only_resolved_functions() -> None:
    assert _passes_for("schema") == ("resolve-dispatch", "autogen-variants")


def test_required_passes_keep_the_default_order() -> None:
    default = default_pipeline_names()
    for target in IMPLEMENTED:
        names = _passes_for(target)
        assert list(names) == sorted(names, key=default.index)


def test_every_backend_requirement_is_provided_by_some_pass() -> None:
    for entry in BACKENDS:
        assert entry.requires, f"{entry.name} declares no requirements"
        PassManager.for_requirements(entry.requires)


def test_an_unprovided_fact_is_a_pipeline_error() -> None:
    with pytest.raises(PipelineError, match="no pass provides 'nonsense'"):
        PassManager.for_requirements(["nonsense"])


def test_select_adds_selective_build_and_what_it_needs(tmp_path: Path) -> None:
    selection = tmp_path / "ops.txt"
    selection.write_text("toyops::scale\n")
    names = compile_pass_manager(["schema"], selection).names()
    assert names[-1] == "selective-build"
    assert {"group-views", "match-derivatives"} <= set(names)
    assert "selective-build" not in compile_pass_manager(["schema"], None).names()


@pytest.mark.parametrize("target", TOY_TARGETS)
def test_outputs_match_the_whole_pipeline(target: str) -> None:
    module = _toy_module()
    full = run_pipeline(module).module
    needed = PassManager.for_requirements(required_facts([target])).run(PassContext(), module)
    assert emit_targets(needed.module, [target]) == emit_targets(full, [target])


def test_compile_cli_times_only_the_needed_passes(tmp_path: Path, capsys) -> None:
    args = [str(TOY / "native_functions.yaml"), "--tags", str(TOY / "tags.yaml")]
    code = main(["compile", *args, "-t", "headers", "-o", str(tmp_path), "--time-passes"])
    assert code == 0
    err = capsys.readouterr().err
    assert "check-structured" in err and "match-derivatives" not in err


@pytest.mark.torch
@pytest.mark.parametrize("target", ["schema", "python", "autograd"])
def test_torch_outputs_match_the_whole_pipeline(
    target: str, torch_paths: TorchYamlPaths, schemac_module: Module
) -> None:
    module = load_module(
        torch_paths.native_functions,
        torch_paths.tags,
        torch_paths.derivatives,
        torch_paths.deprecated,
    )
    needed = PassManager.for_requirements(required_facts([target])).run(PassContext(), module)
    assert "group-variants" not in needed.ran
    assert emit_targets(needed.module, [target]) == emit_targets(schemac_module, [target])
