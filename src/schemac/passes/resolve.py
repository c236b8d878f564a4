"""``resolve-dispatch``: make every function's dispatch table explicit.

The file leaves much of the dispatch implicit; this pass writes it down, with
the same defaults PyTorch's code generator applies, so that every later pass
and every backend reads one table per function (``Module.resolutions``):

- an entry without ``dispatch:`` (and neither structured nor a structured
  delegate) gets ``CompositeImplicitAutograd: <name>`` where ``<name>`` is the
  base operator name, plus ``_out`` for an out= operator;
- a structured delegate gets no default: its kernels come from the out=
  operator it delegates to;
- ``ufunc_inner_loop`` supplies structured ``CPU`` and ``CUDA`` kernels named
  ``ufunc_<name>_<key>``;
- ``ns::kernel`` places a kernel in ``ns::native`` instead of ``at::native``;
- a backend kernel of a ``structured: True`` entry is structured for the keys
  that support structured kernels.

It also completes the tags: every ``aten`` operator gets ``pt2_compliant_tag``,
every out= operator ``out`` and every in-place one ``inplace``, when tags.yaml
defines them.  Errors are reported at the ``dispatch:`` key or entry they are
about (see docs/passes.md for the list).
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from schemac.diagnostics import DiagnosticSink, PassError, did_you_mean
from schemac.ir.dispatch import (
    CODEGEN_DISPATCH_KEYS,
    COMPOSITE_EXPLICIT_NON_FUNCTIONAL,
    COMPOSITE_IMPLICIT,
    COMPOSITE_IMPLICIT_NESTED,
    COMPOSITE_KEYS,
    STRUCTURED_DISPATCH_KEYS,
)
from schemac.ir.evolve import field_replacer
from schemac.ir.frozen import FrozenMap
from schemac.ir.module import Module
from schemac.ir.names import BaseOperatorName, OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import DEFAULT_KERNEL_NAMESPACE, DispatchTable, Kernel, Resolution
from schemac.ir.schema import FunctionSchema
from schemac.ir.slots import derive_source_key
from schemac.ir.types import BaseTy, Type, is_like
from schemac.passes.base import Pass, PassContext
from schemac.passes.function_checks import FunctionRules, check_function

_SUPPORTED_KEYS = frozenset(CODEGEN_DISPATCH_KEYS)
#: COMPOSITE_KEYS as a set: every key of every table is looked up in it.
_COMPOSITE_KEYS = frozenset(COMPOSITE_KEYS)
#: ufunc kernels are generated for these keys, in this order.
_UFUNC_KEYS = ("CPU", "CUDA")
_IMPLICIT_TAGS_NAMESPACE = "aten"


def default_kernel_name(schema: FunctionSchema) -> str:
    """The kernel name an entry without ``dispatch:`` implies (PyTorch's C++ name)."""
    base = schema.name.name
    if base.namespace is not None:
        base = attrs.evolve(base, namespace=None)
    return f"{base}_out" if schema.is_out_fn else str(base)


def split_kernel(text: str) -> tuple[str, str]:
    """``ns::kernel`` -> (``ns::native``, ``kernel``); bare names live in at::native."""
    namespace, sep, name = text.strip().rpartition("::")
    if not sep:
        return DEFAULT_KERNEL_NAMESPACE, name
    return f"{namespace}::native", name


@attrs.frozen
class ResolveDispatch(Pass):
    name: ClassVar[str] = "resolve-dispatch"
    summary: ClassVar[str] = (
        "resolve each function's dispatch table (defaults, ufunc kernels, kernel "
        "namespaces) and implicit tags"
    )
    requires: ClassVar[tuple[str, ...]] = ()
    provides: ClassVar[tuple[str, ...]] = ("resolved-dispatch", "implicit-tags")

    def run(self, ctx: PassContext, module: Module) -> Module:
        sink = DiagnosticSink()
        defined_tags = frozenset(t.name for t in module.tags)
        functions: list[NativeFunction] = []
        resolutions: list[tuple[OperatorName, Resolution]] = []
        all_base_names: list[frozenset[BaseOperatorName]] = []

        def base_names() -> frozenset[BaseOperatorName]:
            # Collected on first use: only a rare rule (inplace_view tags) needs them.
            if not all_base_names:
                all_base_names.append(frozenset(f.func.name.name for f in module.functions))
            return all_base_names[0]

        implicit = _ImplicitTags(defined_tags)
        rules = FunctionRules.of(ctx.profile)
        for f in module.functions:
            f = implicit.add(f)
            check_function(f, base_names, sink, rules)
            functions.append(f)
            resolution = resolve_function(f, sink)
            # Note [Functions keyed by their source]: made from the function alone.
            derive_source_key(f, resolution, "resolution")
            resolutions.append((f.func.name, resolution))
        ctx.finish(sink, PassError)
        return attrs.evolve(module, functions=tuple(functions), resolutions=FrozenMap(resolutions))


class _ImplicitTags:
    """Adds the implicit tags tags.yaml defines to each function (one per pass run).

    Nearly every function gets one (``pt2_compliant_tag``, for all of aten),
    so the new function is built straight from the old one's fields, without
    :func:`~schemac.ir.evolve.evolve`'s per-call keyword handling.
    """

    def __init__(self, defined: frozenset[str]) -> None:
        self._replace_tags = field_replacer(NativeFunction, "tags")
        #: The implicit tags tags.yaml defines, in the order they are added.
        self._pt2 = "pt2_compliant_tag" in defined
        self._out = "out" in defined
        self._inplace = "inplace" in defined

    def add(self, f: NativeFunction) -> NativeFunction:
        tags = f.tags
        added: tuple[str, ...] = ()
        if (
            self._pt2
            and f.namespace == _IMPLICIT_TAGS_NAMESPACE
            and "pt2_compliant_tag" not in tags
        ):
            added = ("pt2_compliant_tag",)
        func = f.func
        if self._out and func.arguments.out and "out" not in tags:
            added += ("out",)
        if self._inplace and func.name.name.inplace and "inplace" not in tags:
            added += ("inplace",)
        if not added:
            return f
        tagged = self._replace_tags(f, tags + added)
        # Note [Functions keyed by their source]: the tags added are the whole change.
        derive_source_key(f, tagged, "tags+" + ",".join(added))
        return tagged


def resolve_function(f: NativeFunction, sink: DiagnosticSink) -> Resolution:
    table: dict[str, Kernel] = {}
    if f.dispatch is not None:
        _read_written_table(f, table, sink)
    elif not f.structured and f.structured_delegate is None:
        _check_not_factory(f, sink)
        table[COMPOSITE_IMPLICIT] = Kernel(default_kernel_name(f.func))

    # A one-key table (most) cannot have two composite kernels.
    composites = [k for k in table if k in _COMPOSITE_KEYS] if len(table) > 1 else []
    allowed_pair = (
        len(composites) == 2
        and COMPOSITE_IMPLICIT_NESTED in composites
        and COMPOSITE_EXPLICIT_NON_FUNCTIONAL not in composites
    )
    if len(composites) > 1 and not allowed_pair:
        sink.error(
            f.span_of("dispatch"),
            "more than one composite kernel: " + ", ".join(composites),
            "each composite key subsumes the others; use CompositeExplicitAutograd for an "
            "explicit autograd formula, CompositeImplicitAutograd otherwise",
        )

    if f.ufunc_inner_loop:
        for key in _UFUNC_KEYS:
            if key in table:
                sink.error(
                    f.span_of("dispatch"),
                    f"'{key}' kernel given although ufunc_inner_loop generates it",
                    f"remove '{key}' from the dispatch table",
                )
            table[key] = Kernel(f"ufunc_{f.func.name.name}_{key}", structured=True)

    if f.structured_delegate is not None:
        for key in table:
            if key in STRUCTURED_DISPATCH_KEYS:
                sink.error(
                    f.span_of("dispatch"),
                    f"'{key}' kernel given for a structured delegate",
                    f"'{f.name}' delegates to '{f.structured_delegate}'; its {key} kernel is "
                    "that operator's",
                )
    abstract = f.structured_delegate is not None or Resolution.abstract_by_table(table)
    dispatch: DispatchTable = FrozenMap(tuple(table.items()))
    return Resolution(dispatch, abstract)


def _read_written_table(f: NativeFunction, table: dict[str, Kernel], sink: DiagnosticSink) -> None:
    written = f.dispatch or ()
    key_count = 0
    names_itself = False
    for entry in written:
        namespace, kernel_name = split_kernel(entry.kernel)
        # One Kernel per entry and structuredness, shared by its keys (often
        # several: "CPU, CUDA: kernel"); Kernels are immutable values.
        kernels: dict[bool, Kernel] = {}
        for key in entry.keys:
            key_count += 1
            if key not in _SUPPORTED_KEYS:
                sink.error(
                    entry.span,
                    f"dispatch key '{key}' does not get generated kernels",
                    did_you_mean(key, _SUPPORTED_KEYS)
                    or "supported keys: " + ", ".join(CODEGEN_DISPATCH_KEYS),
                )
                continue
            structured = f.structured and key in STRUCTURED_DISPATCH_KEYS
            kernel = kernels.get(structured)
            if kernel is None:
                kernel = kernels[structured] = Kernel(kernel_name, namespace, structured)
            table[key] = kernel
            if key == COMPOSITE_IMPLICIT and entry.kernel == default_kernel_name(f.func):
                names_itself = True

    if key_count != 1:
        return
    if names_itself:
        expected = default_kernel_name(f.func)
        sink.error(
            f.span_of("dispatch"),
            "unnecessary dispatch table: it only repeats the default kernel",
            f"delete the dispatch table; '{expected}' is already the default",
        )
    elif (
        f.structured_delegate is None
        and len(table) == 1
        and COMPOSITE_IMPLICIT in table
        and not table[COMPOSITE_IMPLICIT].supports_symint
    ):
        expected = default_kernel_name(f.func)
        sink.error(
            written[0].kernel_span,
            f"a lone CompositeImplicitAutograd kernel must be named '{expected}'",
            f"rename the kernel to '{expected}' and delete the dispatch table",
        )


def _check_not_factory(f: NativeFunction, sink: DiagnosticSink) -> None:
    """Factories must not decompose implicitly (``__torch_dispatch__`` must see them)."""
    base = str(f.func.name.name)
    args = f.func.arguments
    if (
        base.startswith("new_")
        or base.endswith("_like")
        # Tensor inputs are looked for only when there are TensorOptions (rarely).
        or (
            args.tensor_options is not None
            and not any(_is_tensor_like(a.type) for a in args.flat_non_out)
        )
    ):
        sink.error(
            f.span_of("func"),
            f"factory function '{f.name}' has no dispatch table",
            "factory functions need an explicit kernel, e.g. "
            f"'dispatch: {{CompositeExplicitAutograd: {default_kernel_name(f.func)}}}'",
        )


def _is_tensor_like(ty: Type) -> bool:
    return is_like(ty, BaseTy.Tensor)
