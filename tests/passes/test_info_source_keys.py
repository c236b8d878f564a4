"""Source keys of derivative infos (Note [Infos keyed by their source] in ir/autograd.py).

An info's fingerprint is its key when it has one, so a key two different
infos could share would leave a stale autograd file after an edit: these tests
check, on torch's files and after edits of each input an info is made from,
that equal keys mean equal infos and forward formulas, and that an edit of an
entry changes its infos' keys.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.autograd import DifferentiabilityInfo, ForwardDerivative
from schemac.ir.module import Module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager
from schemac.profiles import ReleaseProfile


def _infos(module: Module) -> Iterator[DifferentiabilityInfo]:
    for entry in module.autograd.functions:
        yield from entry.infos


def _keyed(module: Module) -> dict[str, object]:
    """Every keyed info and forward formula of ``module`` by its key; two
    values under one key must be equal."""
    found: dict[str, object] = {}
    for info in _infos(module):
        values: list[DifferentiabilityInfo | ForwardDerivative] = [info]
        values += info.forward_derivatives
        for value in values:
            key = value.source_key
            if key is None:
                continue
            if key in found:
                assert found[key] == value, key
            found[key] = value
    return found


def _compile(directory: Path, profile: ReleaseProfile) -> Module:
    module = load_module(
        directory / "native_functions.yaml",
        directory / "tags.yaml",
        directory / "derivatives.yaml",
        directory / "deprecated.yaml",
        profile=profile,
    )
    return PassManager.default().run(PassContext(profile=profile), module).module


def test_most_infos_are_keyed_and_equal_keys_mean_equal_infos(real_module: Module) -> None:
    infos = list(_infos(real_module))
    keyed = [info for info in infos if info.source_key is not None]
    assert len(keyed) > 0.8 * len(infos)
    _keyed(real_module)
    # A view's ``_copy`` twin's infos are keyed, apart from the view's.
    twins = [i for i in keyed if i.name.partition(".")[0].endswith("_copy")]
    assert twins
    views = {i.source_key for i in keyed if not i.name.partition(".")[0].endswith("_copy")}
    assert not {i.source_key for i in twins} & views


# (file, old, new): a backward formula, a forward formula, output_differentiability,
# and the canonical function of an entry (its device check).
EDITS = [
    (
        "derivatives.yaml",
        "  other: handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha.conj()))\n",
        "  other: handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha))\n",
    ),
    (
        "derivatives.yaml",
        "  result: self_t + maybe_multiply(other_t, alpha)\n",
        "  result: self_t + maybe_multiply(other_t, alpha) * 1\n",
    ),
    (
        "derivatives.yaml",
        "- name: any(Tensor self) -> Tensor\n  output_differentiability: [False]\n",
        "- name: any(Tensor self) -> Tensor\n  output_differentiability: [True]\n",
    ),
    (
        "native_functions.yaml",
        "- func: abs(Tensor self) -> Tensor\n  device_check: NoCheck   # TensorIterator\n",
        "- func: abs(Tensor self) -> Tensor\n",
    ),
]


@pytest.mark.parametrize(
    "edit", EDITS, ids=["backward", "forward", "differentiability", "function"]
)
def test_an_edit_changes_its_infos_keys_and_no_key_changes_meaning(
    tmp_path: Path,
    torch_paths: TorchYamlPaths,
    real_profile: ReleaseProfile,
    edit: tuple[str, str, str],
) -> None:
    for name in ("native_functions", "tags", "derivatives", "deprecated"):
        shutil.copy(getattr(torch_paths, name), tmp_path / f"{name}.yaml")
    before = _compile(tmp_path, real_profile)
    file, old, new = edit
    path = tmp_path / file
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    after = _compile(tmp_path, real_profile)
    old_keys, new_keys = _keyed(before), _keyed(after)
    for key in old_keys.keys() & new_keys.keys():
        assert old_keys[key] == new_keys[key], key
    # The edited entry's infos are keyed, under keys the run before did not have.
    changed = [
        info
        for info in _infos(after)
        if info.source_key is not None and info.source_key not in old_keys
    ]
    assert changed
    assert len(changed) < 20
