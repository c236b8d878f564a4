"""Signature views against small reviewed goldens and against torchgen's api.

The torch-marked tests walk every native function of the installed PyTorch
and compare each view's declaration string with the one torchgen's own
signature classes print for the same function.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from schemac.backends.aten import signatures as S
from schemac.frontend.schema_parser import parse_schema
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction, Precompute, Variant
from schemac.ir.schema import Argument
from schemac.ir.types import BaseTy, BaseType


def _fn(schema: str, **fields: Any) -> NativeFunction:
    return NativeFunction(func=parse_schema(schema), **fields)


# -- small goldens -------------------------------------------------------------


def test_plain_and_faithful_out_overloads() -> None:
    group = S.cpp_signature_group(
        _fn("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    )
    assert group.signature.decl() == (
        "at::Tensor & add_out(at::Tensor & out, const at::Tensor & self, "
        "const at::Tensor & other, const at::Scalar & alpha=1)"
    )
    assert group.faithful is not None
    assert group.faithful.decl() == (
        "at::Tensor & add_outf(const at::Tensor & self, const at::Tensor & other, "
        "const at::Scalar & alpha, at::Tensor & out)"
    )
    assert group.symint is None


def test_tensor_options_gathered_and_scattered_with_symint() -> None:
    fn = _fn(
        "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
    )
    group = S.cpp_signature_group(fn)
    assert group.signature.decl() == (
        "at::Tensor empty(at::IntArrayRef size, at::TensorOptions options={}, "
        "::std::optional<at::MemoryFormat> memory_format=::std::nullopt)"
    )
    assert group.symint_faithful is not None
    assert group.symint_faithful.decl() == (
        "at::Tensor empty_symint(c10::SymIntArrayRef size, ::std::optional<at::ScalarType> dtype, "
        "::std::optional<at::Layout> layout, ::std::optional<at::Device> device, "
        "::std::optional<bool> pin_memory, ::std::optional<at::MemoryFormat> memory_format)"
    )
    assert [s.name for s in group.all()] == ["empty", "empty", "empty_symint", "empty_symint"]


def test_method_drops_self_and_inplace_returns_reference() -> None:
    fn = _fn("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
    method = S.cpp_signature_group(fn, method=True).signature
    assert (
        method.decl() == "at::Tensor & add_(const at::Tensor & other, const at::Scalar & alpha=1)"
    )


def test_const_ref_for_mutable_tensors_and_ilistref() -> None:
    fn = _fn(
        "resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None)"
        " -> Tensor(a!)",
        use_const_ref_for_mutable_tensors=True,
    )
    assert S.dispatcher_signature(fn).decl() == (
        "const at::Tensor & resize_(const at::Tensor & self, c10::SymIntArrayRef size, "
        "::std::optional<at::MemoryFormat> memory_format)"
    )
    cat = _fn(
        "cat(Tensor[] tensors, int dim=0) -> Tensor", structured_delegate=None, structured=True
    )
    assert S.native_signature(cat).decl() == (
        "at::Tensor cat(const at::ITensorListRef & tensors, int64_t dim=0)"
    )


def test_defaults_translated() -> None:
    fn = _fn(
        "f(Tensor self, str mode='mean', int[2] k=1, bool flag=True, Tensor? w=None, "
        "int[] dims=[], ScalarType dtype=long) -> Tensor"
    )
    assert [p.default for p in S.cpp_signature_group(fn).signature.params] == [
        None,
        '"mean"',
        "1",
        "true",
        "{}",
        "{}",
        "at::kLong",
    ]
    no_defaults = _fn("g(Tensor self, int dim=0) -> Tensor", cpp_no_default_args=frozenset({"dim"}))
    assert (
        S.cpp_signature_group(no_defaults).signature.decl()
        == "at::Tensor g(const at::Tensor & self, int64_t dim)"
    )


def test_native_kernel_symint_follows_kernel_name() -> None:
    fn = _fn("view(Tensor(a) self, SymInt[] size) -> Tensor(a)")
    assert "c10::SymIntArrayRef" in S.native_signature(fn, kernel="view_symint").decl()
    assert (
        S.native_signature(fn, kernel="view").decl()
        == "at::Tensor view(const at::Tensor & self, at::IntArrayRef size)"
    )


def test_structured_precomputed_replaces_arguments() -> None:
    functional = parse_schema("pool(Tensor self, int[2] kernel_size) -> Tensor")
    kh = Argument("kH", BaseType(BaseTy.int))
    kw = Argument("kW", BaseType(BaseTy.int))
    out = _fn(
        "pool.out(Tensor self, int[2] kernel_size, *, Tensor(a!) out) -> Tensor(a!)",
        structured=True,
        precomputed=Precompute(replace=(("kernel_size", (kh, kw)),)),
    )
    meta = S.structured_meta(functional, out)
    assert meta.class_name == "structured_pool"
    assert (
        meta.meta.decl()
        == "meta_return_ty meta(const at::Tensor & self, at::IntArrayRef kernel_size)"
    )
    assert [f.template_flag for f in meta.precomputed] == ["KH", "KW"]
    impl = S.structured_impl(meta, out, "pool_out_cpu")
    assert impl.impl_func_defn() == (
        "TORCH_IMPL_FUNC(pool_out_cpu)(const at::Tensor & self, int64_t kH, int64_t kW, "
        "const at::Tensor & out)"
    )


# -- against torchgen ------------------------------------------------------------


@pytest.fixture(scope="module")
def reference() -> Any:
    torchgen_gen = pytest.importorskip("torchgen.gen")
    from schemac.frontend.loader import torch_yaml_paths

    paths = torch_yaml_paths()
    return torchgen_gen.parse_native_yaml(str(paths.native_functions), str(paths.tags))


@pytest.fixture(scope="module")
def ours(schemac_module: Module) -> dict[str, NativeFunction]:
    """Every function after the pass pipeline, synthesised variants included."""
    return {str(f.func): f for f in schemac_module.functions}


Comparison = tuple[str, str, str, str]  # (view, schema, torchgen decl, schemac decl)


def _compare_functions(reference: Any, ours: dict[str, NativeFunction]) -> Iterator[Comparison]:
    from torchgen.api.types import CppSignatureGroup, DispatcherSignature, NativeSignature
    from torchgen.context import native_function_manager
    from torchgen.model import Variant as TorchVariant

    for f in reference.native_functions:
        mine = ours.get(str(f.func))
        if mine is None:
            continue
        with native_function_manager(f):
            for method in (False, True):
                if method and TorchVariant.method not in f.variants:
                    continue
                assert (Variant.method in mine.variants) == method or not method
                fallback = f.manual_cpp_binding
                theirs = CppSignatureGroup.from_native_function(
                    f, method=method, fallback_binding=fallback
                )
                group = S.cpp_signature_group(mine, method=method, fallback_binding=fallback)
                where = "method" if method else "function"
                pairs = [
                    ("plain", theirs.signature, group.signature),
                    ("faithful", theirs.faithful_signature, group.faithful),
                    ("symint", theirs.symint_signature, group.symint),
                    ("symint_faithful", theirs.symint_faithful_signature, group.symint_faithful),
                ]
                for label, ref_sig, our_sig in pairs:
                    if ref_sig is None and our_sig is None:
                        continue  # neither side has this overload
                    yield (
                        f"cpp.{where}.{label}",
                        str(f.func),
                        "<none>" if ref_sig is None else ref_sig.decl(),
                        "<none>" if our_sig is None else our_sig.decl(),
                    )
            yield (
                "dispatcher",
                str(f.func),
                DispatcherSignature.from_schema(f.func).decl(),
                S.dispatcher_signature(mine).decl(),
            )
            for symint in (False, True):
                if symint and not S.has_symint(mine.func):
                    continue
                yield (
                    f"native.symint={symint}",
                    str(f.func),
                    NativeSignature(f.func, symint=symint).decl(),
                    S.native_signature(mine, symint=symint).decl(),
                )


def _compare_structured(reference: Any, ours: dict[str, NativeFunction]) -> Iterator[Comparison]:
    from torchgen.api import meta as torch_meta
    from torchgen.api import structured as torch_structured
    from torchgen.context import native_function_manager
    from torchgen.gen import get_grouped_native_functions
    from torchgen.model import NativeFunctionsGroup

    def decls(bindings: Any) -> str:
        return ", ".join(b.decl() for b in bindings)

    for g in get_grouped_native_functions(reference.native_functions):
        if not isinstance(g, NativeFunctionsGroup) or not g.structured:
            continue
        out = ours.get(str(g.out.func))
        functional = ours.get(str(g.functional.func))
        if out is None or functional is None:
            continue
        with native_function_manager(g.out):
            meta = S.structured_meta(functional.func, out)
            impl = S.structured_impl(meta, out, "kernel")
            schema = str(g.out.func)
            yield ("structured.name", schema, f"structured_{torch_meta.name(g)}", meta.class_name)
            yield (
                "structured.base",
                schema,
                g.out.structured_inherits or "at::impl::MetaBase",
                meta.base_class,
            )
            yield (
                "structured.meta",
                schema,
                decls(torch_structured.meta_arguments(g)),
                ", ".join(p.decl() for p in meta.meta.params),
            )
            yield (
                "structured.impl",
                schema,
                decls(torch_structured.impl_arguments(g)),
                ", ".join(p.decl() for p in impl.impl.params),
            )
            precomputed = g.out.precomputed
            if precomputed:
                names = [a.name for args in precomputed.replace.values() for a in args]
                names += [a.name for a in precomputed.add]
                yield (
                    "structured.precomputed",
                    schema,
                    ", ".join(names),
                    ", ".join(f.name for f in meta.precomputed),
                )


def _report(
    comparisons: Iterator[Comparison],
) -> tuple[Counter[str], Counter[str], list[Comparison]]:
    matched: Counter[str] = Counter()
    differing: Counter[str] = Counter()
    failures: list[Comparison] = []
    for view, schema, theirs, mine in comparisons:
        if theirs == mine:
            matched[view] += 1
        else:
            differing[view] += 1
            failures.append((view, schema, theirs, mine))
    for view in sorted(set(matched) | set(differing)):
        print(f"{view:32} match {matched[view]:5}   differ {differing[view]}")
    return matched, differing, failures


def _show(failures: list[Comparison]) -> str:
    return "\n".join(f"{v} {s}\n  torchgen: {t}\n  schemac:  {m}" for v, s, t, m in failures[:10])


@pytest.mark.torch
def test_every_function_signature_matches_torchgen(
    reference: Any, ours: dict[str, NativeFunction]
) -> None:
    matched, _differing, failures = _report(_compare_functions(reference, ours))
    assert not failures, _show(failures)
    covered = sum(1 for f in reference.native_functions if str(f.func) in ours)
    print(f"functions compared: {covered} of torchgen's {len(reference.native_functions)}")
    # The same functions on both sides, synthesised out= and functional
    # variants included.
    assert covered == len(ours) == len(reference.native_functions)
    assert matched["dispatcher"] == covered


@pytest.mark.torch
def test_structured_signatures_match_torchgen(
    reference: Any, ours: dict[str, NativeFunction]
) -> None:
    matched, _differing, failures = _report(_compare_structured(reference, ours))
    assert not failures, _show(failures)
    assert matched["structured.meta"] > 200


@pytest.mark.torch
def test_native_kernel_declarations_match_torchgen(
    reference: Any, ours: dict[str, NativeFunction]
) -> None:
    """Per backend kernel: symint-ness follows the kernel name, the name is the kernel's."""
    from torchgen.api.types import kernel_signature
    from torchgen.context import native_function_manager

    def comparisons() -> Iterator[Comparison]:
        for key, index in reference.backend_indices.items():
            for f in reference.native_functions:
                mine = ours.get(str(f.func))
                metadata = index.get_kernel(f)
                if mine is None or metadata is None or "legacy::" in metadata.kernel:
                    continue
                with native_function_manager(f):
                    theirs = kernel_signature(f, index).decl(name=metadata.kernel)
                yield (
                    f"native.{key}",
                    str(f.func),
                    theirs,
                    S.native_signature(mine, kernel=metadata.kernel).decl(name=metadata.kernel),
                )

    matched, _differing, failures = _report(comparisons())
    assert not failures, _show(failures)
    assert sum(matched.values()) > 3000
