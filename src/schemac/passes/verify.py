"""IR invariants the pass manager checks between passes (``--verify``).

A pass that breaks one of these has a bug; user errors are reported by the
passes themselves.  Checked: operator names are unique; every function has
exactly one resolved dispatch table whose keys are dispatch keys with a
named kernel; every function is listed exactly once in each grouping, each
group member has its role's schema kind; synthesised functions are tagged.
The checks depend on which facts have been provided so far: before
``group-variants`` ran, an empty ``grouped_functions`` is fine; after it,
every function must be listed exactly once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from schemac.diagnostics import NO_SPAN, Diagnostic, PassError, Span
from schemac.ir.dispatch import CODEGEN_DISPATCH_KEYS
from schemac.ir.groups import VariantGroup, ViewGroup
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.schema import SchemaKind

_CODEGEN_KEYS = frozenset(CODEGEN_DISPATCH_KEYS)


class VerificationError(PassError):
    """The IR broke an invariant after a pass: a bug in that pass."""


def verify_module(module: Module, facts: Iterable[str]) -> tuple[Diagnostic, ...]:
    provided = frozenset(facts)
    problems = list(_unique_names(module))
    if "resolved-dispatch" in provided:
        problems.extend(_resolutions(module))
    if "groups" in provided:
        problems.extend(_groups(module))
    if "view-groups" in provided:
        problems.extend(_view_groups(module))
    problems.extend(_generated(module))
    return tuple(problems)


def _span(module: Module, name: OperatorName) -> Span:
    f = module.find_function(name)
    return NO_SPAN if f is None else f.span


def _unique_names(module: Module) -> Iterator[Diagnostic]:
    counts = Counter((f.namespace, f.name) for f in module.functions)
    for (namespace, name), count in counts.items():
        if count > 1:
            yield Diagnostic(
                _span(module, name), f"operator '{namespace}::{name}' appears {count} times"
            )


def _resolutions(module: Module) -> Iterator[Diagnostic]:
    names = {f.name for f in module.functions}
    for f in module.functions:
        if f.name not in module.resolutions:
            yield Diagnostic(f.span, f"'{f.name}' has no resolved dispatch table")
    for name, resolution in module.resolutions.items():
        if name not in names:
            yield Diagnostic(NO_SPAN, f"resolved dispatch table for unknown operator '{name}'")
        for key, kernel in resolution.dispatch.items():
            if key not in _CODEGEN_KEYS or not kernel.name:
                yield Diagnostic(
                    _span(module, name), f"'{name}' has an unresolved dispatch entry '{key}'"
                )


_EXPECTED_KIND = {
    "functional": SchemaKind.functional,
    "out": SchemaKind.out,
    "inplace": SchemaKind.inplace,
    "mutable": SchemaKind.mutable,
}


def _listed_once(module: Module, listed: list[OperatorName], what: str) -> Iterator[Diagnostic]:
    counts = Counter(listed)
    for f in module.functions:
        if counts[f.name] != 1:
            yield Diagnostic(f.span, f"'{f.name}' is listed {counts[f.name]} times in {what}")
    for name in counts:
        if module.find_function(name) is None:
            yield Diagnostic(NO_SPAN, f"{what} names unknown operator '{name}'")


def _groups(module: Module) -> Iterator[Diagnostic]:
    listed: list[OperatorName] = []
    for item in module.grouped_functions:
        if not isinstance(item, VariantGroup):
            listed.append(item)
            continue
        listed.extend(item.members())
        for role, kind in _EXPECTED_KIND.items():
            name = getattr(item, role)
            f = None if name is None else module.find_function(name)
            if f is not None and f.func.kind() is not kind:
                yield Diagnostic(
                    f.span, f"'{name}' is the {role} member of a group but is {f.func.kind().value}"
                )
    yield from _listed_once(module, listed, "grouped_functions")


def _view_groups(module: Module) -> Iterator[Diagnostic]:
    listed: list[OperatorName] = []
    for item in module.grouped_views:
        listed.extend(item.members() if isinstance(item, ViewGroup) else (item,))
    yield from _listed_once(module, listed, "grouped_views")


def _generated(module: Module) -> Iterator[Diagnostic]:
    for f in module.functions:
        if f.generated and "generated" not in f.tags and module.tags:
            yield Diagnostic(f.span, f"synthesised '{f.name}' lacks the 'generated' tag")
