"""TraceType_<n>.cpp: TorchScript tracer kernels.

Under ``torch.jit.trace`` every operator call is recorded as a graph node
with its inputs and outputs.  The Tracer kernel creates that node, turns
tracing off while the operator runs (so its own calls are not recorded
again), and records the outputs.  In-place and out= operators are recorded
as their functional form when the tracer forces out-of-place graphs.
Operators that take a Storage, return no tensor, or are listed in
the profile's dont_record_trace are registered but only redispatch.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.autograd.calls import Redispatch, redispatch
from schemac.backends.autograd.kernel_shards import KernelFamily, kernel_shard_files
from schemac.backends.autograd.operators import OperatorPlan
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates
from schemac.ir.schema import SchemaKind
from schemac.ir.types import BaseTy, base_of, is_like

NUM_SHARDS = 10
KEYSET = "ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::Tracer)"


#: In-place operators recorded out of place under another operator's name.
_OUT_OF_PLACE_NAMES = {"zero": "zeros_like", "fill": "full_like"}

#: ``zeros_like`` / ``full_like`` take options the in-place form lacks: record defaults.
_DEFAULT_LIKE_OPTIONS = (
    ("options", "::std::optional<ScalarType>()"),
    ("options", "layout_or_default(::std::nullopt)"),
    ("options", "device_or_default(::std::nullopt)"),
    ("options", "pinned_memory_or_default(::std::nullopt)"),
    ("memory_format", "::std::optional<MemoryFormat>(c10::MemoryFormat::Preserve)"),
)


def _options_of(tensor: str) -> tuple[tuple[str, str], ...]:
    """The four TensorOptions inputs a factory records, read from ``tensor``."""
    return (
        (tensor, f"c10::optTypeMetaToScalarType({tensor}.options().dtype_opt())"),
        (tensor, f"{tensor}.options().layout()"),
        (tensor, f"{tensor}.options().device()"),
        (tensor, f"{tensor}.options().pinned_memory()"),
    )


@attrs.frozen
class TraceKernel:
    name: str
    schema_name: str
    call: Redispatch
    namespace: str
    record: bool
    #: Qualified symbol recorded normally, and when forced out of place.
    symbol: str = ""
    outplace_symbol: str = ""
    #: (input name, C++ expression) recorded in both modes.
    inputs: tuple[tuple[str, str], ...] = ()
    #: Recorded only in place (the out= arguments), only out of place.
    inplace_inputs: tuple[tuple[str, str], ...] = ()
    outplace_inputs: tuple[tuple[str, str], ...] = ()
    #: Argument that must not alias when recorded out of place (in-place self, out=).
    unique: str | None = None
    unique_label: str = ""


def should_record(plan: OperatorPlan) -> bool:
    func = plan.fn.func
    # The cheap tests first: a schema has fewer returns than arguments.  Plain
    # loops over base_of: asked for each of ~3,100 operators, and generator
    # expressions cost more than the tests themselves.
    if plan.base in plan.policy.dont_record_trace:
        return False
    tensor = BaseTy.Tensor
    for ret in func.returns:
        if base_of(ret.type) is tensor:
            break
    else:
        return False
    storage = BaseTy.Storage
    for arg in func.arguments.flat_all:  # noqa: SIM110 (see above: no generator)
        if base_of(arg.type) is storage:
            return False
    return True


def _symbols(plan: OperatorPlan) -> tuple[str, str]:
    """(recorded symbol, symbol when the tracer forces out-of-place graphs)."""
    ns = plan.fn.namespace
    name = plan.fn.func.name.name
    if plan.kind in (SchemaKind.functional, SchemaKind.out) or name.dunder:
        plain = _OUT_OF_PLACE_NAMES.get(str(name), str(name))
        return f"{ns}::{plain}", f"{ns}::{plain}"
    inplace = _OUT_OF_PLACE_NAMES.get(plan.cpp_name, plan.cpp_name)
    outplace = _OUT_OF_PLACE_NAMES.get(name.base, name.base)
    return f"{ns}::{inplace}", f"{ns}::{outplace}"


def _is_factory(plan: OperatorPlan) -> bool:
    func = plan.fn.func
    if plan.fn.category_override == "factory" or plan.base == "normal":
        return True
    returns_tensor = any(is_like(r.type, BaseTy.Tensor) for r in func.returns)
    takes_tensor = any(is_like(a.type, BaseTy.Tensor) for a in func.arguments.flat_non_out)
    return returns_tensor and not takes_tensor


def _kernel(plan: OperatorPlan) -> TraceKernel:
    fn = plan.fn
    name = plan.wrapper
    call = redispatch(plan, name, KEYSET)
    if not should_record(plan):
        return TraceKernel(name, plan.schema_name, call, fn.namespace, record=False)
    func = fn.func
    symbol, outplace_symbol = _symbols(plan)
    mutates = plan.modifies_arguments and not func.name.name.dunder
    outs = func.arguments.out
    outplace: tuple[tuple[str, str], ...] = ()
    if outs and _is_factory(plan):
        outplace = _options_of("out")
    if mutates and plan.base in _OUT_OF_PLACE_NAMES:
        outplace += _DEFAULT_LIKE_OPTIONS
    return TraceKernel(
        name,
        plan.schema_name,
        call,
        fn.namespace,
        record=True,
        symbol=symbol,
        outplace_symbol=outplace_symbol,
        inputs=tuple([(a.name, a.name) for a in func.arguments.flat_non_out]),
        inplace_inputs=tuple([(a.name, a.name) for a in outs]),
        outplace_inputs=outplace,
        unique=(outs[0].name if outs else "self") if mutates else None,
        unique_label=plan.cpp_name,
    )


TRACE_FILES = KernelFamily(
    stem="TraceType",
    shards=NUM_SHARDS,
    cpp_namespace="TraceType",
    kernel_of=_kernel,
    kernels_template="_trace_type_kernels.mako",
    file_template="TraceType.cpp.mako",
)


def trace_files(
    templates: Templates,
    plans: tuple[OperatorPlan, ...],
    sources: Provenance,
    directory: str,
    shards: int = NUM_SHARDS,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile]:
    """``shards``: how many TraceType_<n>.cpp the release writes; ``fragments``:
    where the kernels are printed (Note [Autograd pieces])."""
    chosen = tuple(p for p in plans if p.is_traced)
    family = attrs.evolve(TRACE_FILES, shards=shards)
    return kernel_shard_files(family, templates, chosen, sources, directory, fragments)
