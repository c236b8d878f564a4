"""The real PyTorch YAML files load, and every field agrees with torchgen's parse."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction

pytestmark = pytest.mark.torch

#: Tags torchgen adds by itself (to every aten op, every out= op, every in-place op).
IMPLIED_TAGS = {"pt2_compliant_tag", "out", "inplace"}


def test_counts(torch_module: Module, torch_paths: TorchYamlPaths) -> None:
    raw_tags = yaml.safe_load(torch_paths.tags.read_text())
    raw_deprecated = yaml.safe_load(torch_paths.deprecated.read_text())
    assert len(torch_module.functions) == 2584
    assert len(torch_module.derivatives) == 687
    assert [t.name for t in torch_module.tags] == [e["tag"] for e in raw_tags]
    assert len(torch_module.deprecated) == len(raw_deprecated)


def _reference_functions(torchgen_parsed: Any) -> dict[str, Any]:
    return {str(f.func): f for f in torchgen_parsed.native_functions if "generated" not in f.tags}


def test_same_functions_in_same_order(torch_module: Module, torchgen_parsed: Any) -> None:
    reference = _reference_functions(torchgen_parsed)
    assert [str(f.func) for f in torch_module.functions] == list(reference)


def _fields(f: NativeFunction) -> dict[str, object]:
    precomputed = None
    if f.precomputed is not None:
        precomputed = (
            {name: [str(a) for a in args] for name, args in f.precomputed.replace},
            [str(a) for a in f.precomputed.add],
        )
    return {
        "line": f.span.line,
        "namespace": f.namespace,
        "variants": sorted(v.name for v in f.variants),
        "structured": f.structured,
        "structured_delegate": str(f.structured_delegate) if f.structured_delegate else None,
        "structured_inherits": f.structured_inherits,
        "precomputed": precomputed,
        "device_guard": f.device_guard,
        "device_check": f.device_check.name,
        "manual_kernel_registration": f.manual_kernel_registration,
        "manual_cpp_binding": f.manual_cpp_binding,
        "python_module": f.python_module,
        "category_override": f.category_override,
        "autogen": [str(n) for n in f.autogen],
        "cpp_no_default_args": sorted(f.cpp_no_default_args),
        "use_const_ref_for_mutable_tensors": f.use_const_ref_for_mutable_tensors,
        "ufunc_inner_loop": {
            u.key: (u.name, _expanded_dtypes(u.supported_dtypes)) for u in f.ufunc_inner_loop
        },
    }


def _expanded_dtypes(names: tuple[str, ...]) -> list[str]:
    """The IR keeps dtype classes as written; torchgen expands them."""
    from torchgen.model import ScalarType

    return [t.name for t in ScalarType.parse_set(", ".join(names))]


def _reference_fields(f: Any) -> dict[str, object]:
    precomputed = None
    if f.precomputed is not None:
        precomputed = (
            {name: [str(a) for a in args] for name, args in f.precomputed.replace.items()},
            [str(a) for a in f.precomputed.add],
        )
    return {
        "line": f.loc.line,
        "namespace": f.namespace,
        "variants": sorted(v.name for v in f.variants),
        "structured": f.structured,
        "structured_delegate": str(f.structured_delegate) if f.structured_delegate else None,
        "structured_inherits": f.structured_inherits,
        "precomputed": precomputed,
        "device_guard": f.device_guard,
        "device_check": f.device_check.name,
        "manual_kernel_registration": f.manual_kernel_registration,
        "manual_cpp_binding": f.manual_cpp_binding,
        "python_module": f.python_module,
        "category_override": f.category_override,
        "autogen": [str(n) for n in f.autogen],
        "cpp_no_default_args": sorted(f.cpp_no_default_args),
        "use_const_ref_for_mutable_tensors": f.use_const_ref_for_mutable_tensors,
        "ufunc_inner_loop": {
            k.name: (u.name, [str(t.name) for t in u.supported_dtypes])
            for k, u in f.ufunc_inner_loop.items()
        },
    }


def test_every_field_matches_torchgen(torch_module: Module, torchgen_parsed: Any) -> None:
    reference = _reference_functions(torchgen_parsed)
    mismatches = []
    for f in torch_module.functions:
        ours, theirs = _fields(f), _reference_fields(reference[str(f.func)])
        for key in ours:
            if ours[key] != theirs[key]:
                mismatches.append((str(f.func), key, ours[key], theirs[key]))
    assert mismatches == []


def test_tags_match_torchgen_up_to_implied_tags(torch_module: Module, torchgen_parsed: Any) -> None:
    reference = _reference_functions(torchgen_parsed)
    for f in torch_module.functions:
        theirs = set(reference[str(f.func)].tags)
        assert set(f.tags) <= theirs, f.func
        assert theirs - set(f.tags) <= IMPLIED_TAGS, f.func


def test_dispatch_tables_match_torchgen(torch_module: Module, torchgen_parsed: Any) -> None:
    """Every kernel written in a dispatch table is the one torchgen indexes.

    torchgen adds kernels nobody wrote (the implicit CompositeImplicitAutograd
    one, ufunc CPU/CUDA kernels); those are the resolution pass's business, so
    only the entries written in the file are compared, and only entries with
    no dispatch table may have extra ones.
    """
    by_key = {
        key: {str(name): meta.kernel for name, meta in index.index.items()}
        for key, index in torchgen_parsed.backend_indices.items()
    }
    written_count = 0
    for f in torch_module.functions:
        written = {key: entry.kernel for entry in f.dispatch or () for key in entry.keys}
        indexed = {
            str(key): kernels[str(f.name)]
            for key, kernels in by_key.items()
            if str(f.name) in kernels
        }
        written_count += len(written)
        for key, kernel in written.items():
            assert indexed.get(key) == kernel.split("::")[-1], (f.func, key)
        if f.dispatch is not None and not f.ufunc_inner_loop:
            assert set(indexed) == set(written), f.func
    assert written_count > 3000


def test_derivatives_match_the_file(torch_module: Module, torch_paths: TorchYamlPaths) -> None:
    raw = yaml.safe_load(torch_paths.derivatives.read_text())
    assert [str(d.schema) for d in torch_module.derivatives] == [e["name"] for e in raw]
    for entry, raw_entry in zip(torch_module.derivatives, raw, strict=True):
        groups = raw_entry.get("dispatch") or {
            "Default": {
                k: v for k, v in raw_entry.items() if k not in ("name", "output_differentiability")
            }
        }
        assert [g.key for g in entry.dispatch] == list(groups)
        for group in entry.dispatch:
            formulas = {", ".join(f.variables): f.text for f in group.backward + group.forward}
            assert formulas == groups[group.key], entry.schema
        raw_diff = raw_entry.get("output_differentiability")
        if raw_diff is None:
            assert entry.output_differentiability is None
            assert entry.output_differentiability_conditions is None
        elif all(isinstance(v, bool) for v in raw_diff):
            assert list(entry.output_differentiability or ()) == raw_diff
        else:
            assert list(entry.output_differentiability_conditions or ()) == raw_diff


@pytest.fixture(scope="session")
def torchgen_derivatives(torch_paths: TorchYamlPaths) -> Any:
    from torchgen.packaged.autograd.load_derivatives import load_derivatives

    infos, _ = load_derivatives(
        str(torch_paths.derivatives), str(torch_paths.native_functions), str(torch_paths.tags)
    )
    return {str(schema): per_key for schema, per_key in infos.items()}


def test_formulas_split_into_backward_and_forward_as_torchgen_does(
    torch_module: Module, torchgen_derivatives: Any
) -> None:
    """A formula keyed by input names is backward, by output names forward-mode."""
    for entry in torch_module.derivatives:
        reference = torchgen_derivatives[str(entry.schema)]
        assert [g.key for g in entry.dispatch] == list(reference)
        for group in entry.dispatch:
            info = reference[group.key]
            backward = sorted(
                f.variables for f in group.backward if f.text.strip() != "non_differentiable"
            )
            not_differentiable = sorted(
                v
                for f in group.backward
                if f.text.strip() == "non_differentiable"
                for v in f.variables
            )
            assert backward == sorted(d.var_names for d in info.derivatives), entry.schema
            assert not_differentiable == sorted(info.non_differentiable_arg_names), entry.schema
            assert sorted(f.variables for f in group.forward) == sorted(
                d.var_names for d in info.forward_derivatives
            ), entry.schema


def test_deprecated_signatures(torch_module: Module, torch_paths: TorchYamlPaths) -> None:
    raw = yaml.safe_load(torch_paths.deprecated.read_text())
    assert [(str(d.schema), d.aten) for d in torch_module.deprecated] == [
        (e["name"], e["aten"]) for e in raw
    ]


def test_schema_positions_point_at_the_func_text(
    torch_module: Module, torch_paths: TorchYamlPaths
) -> None:
    lines = torch_paths.native_functions.read_text().splitlines()
    for f in torch_module.functions:
        span = f.func.span
        line = lines[span.line - 1]
        assert line[span.column - 1 : span.end_column - 1] == str(f.func), f.func
        name = f.func.name_span
        assert line[name.column - 1 : name.end_column - 1] == str(f.func.name)
        for arg in f.func.arguments.flat_all:
            assert line[arg.span.column - 1 : arg.span.end_column - 1] == str(arg), (f.func, arg)
