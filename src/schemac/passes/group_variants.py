"""``group-variants``: find each operator's functional / in-place / out= / mutable family.

Functions are bucketed by normalised signature (:mod:`schemac.ir.signature`);
a bucket with a functional and an out= member becomes a
:class:`~schemac.ir.groups.VariantGroup`, anything else stays a list of single
functions.  ``Module.grouped_functions`` keeps every function exactly once, in
the order of first appearance of each family (PyTorch's order, which fixes the
order of generated code).

Also checked here, because it is a fact about families: what a family's
``autogen:`` lists must be exactly what ``autogen-variants`` synthesised for
it, and every synthesised function must end up in a group.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from schemac.diagnostics import DiagnosticSink, PassError
from schemac.ir.groups import Grouped, VariantGroup
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind
from schemac.passes.base import Pass, PassContext
from schemac.passes.families import bucket_by_signature
from schemac.passes.function_checks import first_span


@attrs.frozen
class GroupVariants(Pass):
    name: ClassVar[str] = "group-variants"
    summary: ClassVar[str] = "group functional, in-place, out= and mutable variants into families"
    requires: ClassVar[tuple[str, ...]] = ("generated-variants",)
    provides: ClassVar[tuple[str, ...]] = ("groups",)

    def run(self, ctx: PassContext, module: Module) -> Module:
        sink = DiagnosticSink()
        families = bucket_by_signature(module.functions, sink)
        grouped: list[Grouped] = []
        for members in families.values():
            group = _as_group(members, sink)
            if group is None:
                for f in members.values():
                    if f.generated:
                        sink.error(
                            f.span,
                            f"synthesised '{f.name}' does not belong to any family",
                        )
                grouped.extend(f.name for f in members.values())
            else:
                _check_autogen(members, sink)
                grouped.append(group)
        sink.raise_if_any(PassError)
        return module.evolve(grouped_functions=tuple(grouped))  # keeps the name index


def _as_group(
    members: dict[SchemaKind, NativeFunction], sink: DiagnosticSink
) -> VariantGroup | None:
    functional = members.get(SchemaKind.functional)
    out = members.get(SchemaKind.out)
    if len(members) == 1:
        return None
    if functional is None:
        # Synthesis gives every family with an out= member a functional one;
        # a family it skipped (views, for example) must bring its own.
        first = next(iter(members.values()))
        sink.error(
            first.span_of("func"),
            f"the family of '{first.name}' has variants "
            + ", ".join(f"'{f.name}'" for f in members.values())
            + " but no functional one",
            "add the functional operator, or 'autogen' it",
        )
        return None
    if out is None:
        return None
    inplace = members.get(SchemaKind.inplace)
    mutable = members.get(SchemaKind.mutable)
    for f in (inplace, mutable, out):
        if f is not None and f.namespace != functional.namespace:
            sink.error(
                f.span_of("func"),
                f"'{f.name}' is in namespace '{f.namespace}' but its functional variant "
                f"'{functional.name}' is in '{functional.namespace}'",
            )
    if mutable is not None and not functional.func.name.name.functional_overload:
        sink.error(
            mutable.span_of("func"),
            f"mutable operator '{mutable.name}' has a functional twin "
            f"'{functional.name}' not named with '_functional'",
            f"name the functional twin '{functional.func.name.name}_functional'",
        )
    return VariantGroup(
        functional=functional.name,
        out=out.name,
        inplace=None if inplace is None else inplace.name,
        mutable=None if mutable is None else mutable.name,
        structured=out.structured,
    )


def _check_autogen(members: dict[SchemaKind, NativeFunction], sink: DiagnosticSink) -> None:
    generated = sorted(str(f.name) for f in members.values() if f.generated)
    requested = sorted({str(name) for f in members.values() for name in f.autogen})
    if generated == requested:
        return
    written = [f for f in members.values() if not f.generated]
    anchor = next((f for f in written if f.autogen), written[0] if written else None)
    if anchor is None:
        return
    if not requested:
        sink.error(
            first_span(anchor, "func"),
            f"'{anchor.name}' gets synthesised variants that autogen does not list",
            f"add 'autogen: {', '.join(generated)}'",
        )
    else:
        sink.error(
            first_span(anchor, "autogen", "func"),
            f"autogen lists '{', '.join(requested)}' but the synthesised variants are "
            f"'{', '.join(generated) or 'none'}'",
            f"write 'autogen: {', '.join(generated)}'" if generated else "remove 'autogen'",
        )
