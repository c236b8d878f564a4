"""The resolved IR of the real native_functions.yaml equals torchgen's model of it.

Once per reference release: the release's YAML through schemac with its
profile, against the release's own torchgen imported in process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from schemac.ir.groups import VariantGroup, ViewGroup
from schemac.ir.module import Module

pytestmark = [pytest.mark.torch, pytest.mark.each_release]


def _name(f: Any) -> str | None:
    return None if f is None else str(f.func.name)


def test_same_schemas(real_module: Module, reference: Any) -> None:
    ours = [str(f.func) for f in real_module.functions]
    theirs = [str(f.func) for f in reference.native_functions]
    assert len(theirs) > 3000
    assert ours == theirs  # same functions, synthesised ones in the same order


def test_same_dispatch_tables(real_module: Module, reference: Any) -> None:
    expected: dict[str, dict[str, tuple[str, str, bool]]] = {}
    for key, index in reference.backend_indices.items():
        for op, meta in index.index.items():
            expected.setdefault(str(op), {})[str(key)] = (
                meta.kernel,
                meta.cpp_namespace,
                meta.structured,
            )
    mismatches = []
    for f in real_module.functions:
        table = real_module.resolution(f.name).dispatch
        got = {k: (v.name, v.namespace, v.structured) for k, v in table.items()}
        if got != expected.get(str(f.name), {}):
            mismatches.append((str(f.name), got, expected.get(str(f.name))))
    assert mismatches == []


def test_same_flags_and_tags(real_module: Module, reference: Any) -> None:
    theirs = {str(f.func.name): f for f in reference.native_functions}
    mismatches = []
    for f in real_module.functions:
        ref = theirs[str(f.name)]
        res = real_module.resolution(f.name)
        ours = (
            f.structured,
            None if f.structured_delegate is None else str(f.structured_delegate),
            set(f.tags),
            {v.value for v in f.variants},
            f.generated,
            res.is_abstract,
            res.has_composite_implicit_autograd_kernel,
            res.has_composite_implicit_autograd_nested_tensor_kernel,
            res.has_composite_explicit_autograd_kernel,
            res.has_composite_explicit_autograd_non_functional_kernel,
            f.device_guard,
            f.device_check.value,
        )
        expected = (
            ref.structured,
            None if ref.structured_delegate is None else str(ref.structured_delegate),
            set(ref.tags),
            {v.name for v in ref.variants},
            "generated" in ref.tags,
            ref.is_abstract,
            ref.has_composite_implicit_autograd_kernel,
            ref.has_composite_implicit_autograd_nested_tensor_kernel,
            ref.has_composite_explicit_autograd_kernel,
            ref.has_composite_explicit_autograd_non_functional_kernel,
            ref.device_guard,
            ref.device_check.name,
        )
        if ours != expected:
            mismatches.append((str(f.name), ours, expected))
    assert mismatches == []


def test_same_groups(
    real_module: Module, reference: Any, torchgen_of: Callable[[str], Any]
) -> None:
    get_grouped_native_functions = torchgen_of("torchgen.gen").get_grouped_native_functions
    NativeFunctionsGroup = torchgen_of("torchgen.model").NativeFunctionsGroup

    theirs = []
    for item in get_grouped_native_functions(reference.native_functions):
        if isinstance(item, NativeFunctionsGroup):
            members = (item.functional, item.inplace, item.out, item.mutable)
            theirs.append((*tuple(_name(f) for f in members), item.structured))
        else:
            theirs.append(str(item.func.name))
    ours: list[object] = []
    for item in real_module.grouped_functions:
        if isinstance(item, VariantGroup):
            members = (item.functional, item.inplace, item.out, item.mutable)
            ours.append((*tuple(None if m is None else str(m) for m in members), item.structured))
        else:
            ours.append(str(item))
    assert ours == theirs


def test_same_view_groups(
    real_module: Module, reference: Any, torchgen_of: Callable[[str], Any]
) -> None:
    gen = torchgen_of("torchgen.gen")
    get_grouped_by_view_native_functions = gen.get_grouped_by_view_native_functions
    NativeFunctionsViewGroup = torchgen_of("torchgen.model").NativeFunctionsViewGroup

    theirs = []
    for item in get_grouped_by_view_native_functions(reference.native_functions):
        if isinstance(item, NativeFunctionsViewGroup):
            theirs.append((_name(item.view), _name(item.view_copy), _name(item.view_inplace)))
        else:
            theirs.append(str(item.func.name))
    ours: list[object] = []
    for item in real_module.grouped_views:
        if isinstance(item, ViewGroup):
            ours.append(
                tuple(
                    None if m is None else str(m)
                    for m in (item.view, item.view_copy, item.view_inplace)
                )
            )
        else:
            ours.append(str(item))
    assert ours == theirs
