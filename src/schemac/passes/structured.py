"""``check-structured``: validate structured kernels and their delegates.

A structured kernel is written once, on the out= variant (``structured:
True``), as a meta function plus an implementation; the functional and
in-place variants say ``structured_delegate: <out overload>`` and get their
kernels generated from it.  This only works when the pieces agree, so this
pass checks, with the position of the offending YAML key:

- ``structured`` is on an out= operator, ``structured_delegate`` is not, and
  no entry has both; neither is combined with ``device_guard: False``;
- ``structured_inherits`` and ``precomputed`` come with ``structured``; a
  precomputed line replaces an argument the operator has, and no precomputed
  name is all upper case (those are the meta function's template parameters);
- the delegate exists and is structured, and is the out= member of the
  delegating function's own family;
- a structured out= operator belongs to a family (it has a functional
  variant), and every member of a structured family is structured or
  delegates (an unstructured member would need a kernel nobody writes);
- a structured family has no CompositeImplicitAutograd kernel.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from schemac.diagnostics import DiagnosticSink, PassError, Span, did_you_mean
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, SchemaKind
from schemac.passes.base import Pass, PassContext
from schemac.passes.function_checks import first_span


@attrs.frozen
class CheckStructured(Pass):
    name: ClassVar[str] = "check-structured"
    summary: ClassVar[str] = "validate structured kernels, their delegates and their families"
    requires: ClassVar[tuple[str, ...]] = ("resolved-dispatch", "groups")
    provides: ClassVar[tuple[str, ...]] = ("structured-checked",)

    def run(self, ctx: PassContext, module: Module) -> Module:
        sink = DiagnosticSink()
        for f in module.functions:
            _check_entry(f, sink)
            if f.structured_delegate is not None:
                _check_delegate(f, f.structured_delegate, module, sink)
        _check_families(module, sink)
        sink.raise_if_any(PassError)
        return module


def _check_entry(f: NativeFunction, sink: DiagnosticSink) -> None:
    kind = f.func.kind()
    if f.structured and f.structured_delegate is not None:
        sink.error(
            f.span_of("structured_delegate"),
            f"'{f.name}' is both structured and a structured delegate",
            "keep 'structured' on the out= variant and 'structured_delegate' on the others",
        )
    if f.structured and kind is not SchemaKind.out:
        sink.error(
            f.span_of("structured"),
            f"'structured: True' on '{f.name}', which is not an out= operator",
            "put 'structured' on the out= variant; did you mean 'structured_delegate'?",
        )
    if f.structured_delegate is not None and kind is SchemaKind.out:
        sink.error(
            f.span_of("structured_delegate"),
            f"'structured_delegate' on out= operator '{f.name}'",
            "an out= operator is the structured kernel itself; did you mean 'structured: True'?",
        )
    if (f.structured or f.structured_delegate is not None) and not f.device_guard:
        sink.error(
            f.span_of("device_guard"),
            f"structured kernel '{f.name}' cannot disable its device guard",
            "structured kernels always take a device guard; remove 'device_guard: False'",
        )
    if f.structured_inherits is not None and not f.structured:
        sink.error(
            f.span_of("structured_inherits"),
            "'structured_inherits' requires 'structured: True'",
        )
    if f.precomputed is not None and not f.structured:
        sink.error(f.span_of("precomputed"), "'precomputed' requires 'structured: True'")
    if f.precomputed is not None:
        _check_precomputed(f, sink)


def _check_precomputed(f: NativeFunction, sink: DiagnosticSink) -> None:
    precomputed = f.precomputed
    if precomputed is None:
        return
    names = {a.name for a in f.func.arguments.flat_all}
    seen: dict[str, Argument] = {}
    for replaced, replacements in precomputed.replace:
        if replaced not in names:
            sink.error(
                f.span_of("precomputed"),
                f"precomputed replaces '{replaced}', which is not an argument of '{f.name}'",
                did_you_mean(replaced, names),
            )
        for arg in replacements:
            _check_precomputed_name(f, arg, replaced, names, seen, sink)
    for arg in precomputed.add:
        _check_precomputed_name(f, arg, None, names, seen, sink)


def _check_precomputed_name(
    f: NativeFunction,
    arg: Argument,
    replaced: str | None,
    names: set[str],
    seen: dict[str, Argument],
    sink: DiagnosticSink,
) -> None:
    """One precomputed argument: a name of its own, usable as a C++ field of the meta result."""
    name = arg.name
    span = arg.span if arg.span.line else f.span_of("precomputed")
    earlier = seen.setdefault(name, arg)
    if earlier is not arg:
        sink.error(
            span,
            f"precomputed argument '{name}' is declared twice",
            f"the first is at line {earlier.span.line}" if earlier.span.line else None,
        )
    elif name in names and name != replaced:
        # `kernel_size -> int self`: the kernel would receive two arguments named self.
        sink.error(
            span,
            f"precomputed argument '{name}' has the name of an argument of '{f.name}'",
            "only the argument a line replaces may lend it its name ('dim -> int dim')",
        )
    _check_precomputed_case(f, name, span, sink)


def _check_precomputed_case(f: NativeFunction, name: str, span: Span, sink: DiagnosticSink) -> None:
    # The generated meta() returns a template whose parameters are the
    # upper-cased names; an all-upper-case name would collide with them.
    if name.upper() == name:
        sink.error(
            span,
            f"precomputed argument '{name}' is all upper case",
            f"use a lower-case name such as '{name.lower()}'",
        )


def _check_delegate(
    f: NativeFunction, delegate: OperatorName, module: Module, sink: DiagnosticSink
) -> None:
    target = module.find_function(delegate)
    if target is None or target.generated:
        sink.error(
            f.span_of("structured_delegate"),
            f"structured delegate '{delegate}' of '{f.name}' does not exist",
            _closest(delegate, module),
        )
    elif not target.structured:
        sink.error(
            f.span_of("structured_delegate"),
            f"structured delegate '{delegate}' of '{f.name}' is not structured",
            f"add 'structured: True' to '{delegate}' (line {target.span.line})",
        )


def _closest(name: OperatorName, module: Module) -> str | None:
    candidates = [str(f.name) for f in module.functions if f.structured]
    return did_you_mean(str(name), candidates)


def _check_families(module: Module, sink: DiagnosticSink) -> None:
    grouped: set[OperatorName] = set()
    for group in module.groups:
        members = [module.function(name) for name in group.members()]
        grouped.update(group.members())
        out = module.function(group.out)
        for f in members:
            in_structured_family = f.structured or f.structured_delegate is not None
            if in_structured_family != group.structured:
                if group.structured:
                    sink.error(
                        first_span(f, "func"),
                        f"'{f.name}' is in the family of structured '{out.name}' but "
                        "does not delegate to it",
                        f"add 'structured_delegate: {out.name}'",
                    )
                else:
                    sink.error(
                        first_span(f, "structured_delegate", "structured", "func"),
                        f"'{f.name}' is structured, but its family's out= variant "
                        f"'{out.name}' is not",
                        f"add 'structured: True' to '{out.name}'",
                    )
        if not group.structured:
            continue
        resolution = module.resolution(out.name)
        if (
            resolution.has_composite_implicit_autograd_kernel
            or resolution.has_composite_implicit_autograd_nested_tensor_kernel
        ):
            sink.error(
                first_span(out, "dispatch", "structured"),
                f"structured kernel '{out.name}' has a CompositeImplicitAutograd kernel",
                "structured kernels cannot be composite",
            )
        for f in members:
            # A delegate that does not exist is reported as such (_check_delegate).
            if (
                f.structured_delegate is not None
                and f.structured_delegate != out.name
                and module.find_function(f.structured_delegate) is not None
            ):
                sink.error(
                    f.span_of("structured_delegate"),
                    f"'{f.name}' delegates to '{f.structured_delegate}', but the out= "
                    f"variant of its family is '{out.name}'",
                    f"write 'structured_delegate: {out.name}'",
                )
    for f in module.functions:
        if f.name in grouped:
            continue
        if f.structured and f.func.kind() is SchemaKind.out:
            sink.error(
                f.span_of("structured"),
                f"structured out= operator '{f.name}' has no functional variant",
                "add the functional operator with 'structured_delegate: " + str(f.name) + "'",
            )
        elif f.structured_delegate is not None and module.find_function(f.structured_delegate):
            target = module.function(f.structured_delegate)
            if target.structured:
                sink.error(
                    f.span_of("structured_delegate"),
                    f"'{f.name}' delegates to '{f.structured_delegate}', which is not in "
                    "its family (their signatures differ)",
                )
