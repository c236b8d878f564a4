"""The backend YAML's operator names, bound to the module's functions and families.

:func:`bind_backend` turns each listed name into the kernel the backend must
write and checks what only the module can tell: the operator exists (with a
did-you-mean), a ``symint`` kernel's schema takes SymInt, a family's variants
are not split between ``supported`` and ``autograd`` (torchgen's rule: one
dispatch key per family), and a ``structured`` entry names a structured
family none of whose members is listed elsewhere.  Every problem is a
diagnostic at the YAML entry; all of them are returned together.

Note [External kernel names]
    Out-of-tree kernels follow the dispatcher's API, not the native one: the
    kernel of ``add.Tensor`` is ``<Class>::add`` with the dispatcher's
    parameters, ``<Class>::add_symint`` when the YAML lists it under
    ``symint`` (then its sizes are ``c10::SymInt``).  Overloads share a name
    and are told apart by C++ overloading.  A structured family's kernel is
    the class ``<Class>::structured_<out name>`` whose ``impl()`` the
    backend defines (``structured_add_out::impl``).
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.signatures.cpp_api import has_symint
from schemac.backends.aten.signatures.naming import dispatcher_name
from schemac.diagnostics import Diagnostic, Span, did_you_mean
from schemac.ir.external_backend import BackendOp, ExternalBackend
from schemac.ir.groups import VariantGroup
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import Kernel


@attrs.frozen
class BoundKernel:
    """One listed operator: the function, its kernel and the entry that listed it."""

    function: NativeFunction
    kernel: Kernel
    #: The kernel takes SymInt (listed under ``symint``).
    symint: bool
    entry: BackendOp


@attrs.frozen
class BoundBackend:
    """The YAML with every name resolved; what the emitters and checks read."""

    spec: ExternalBackend
    #: ``supported`` kernels, for the backend's own dispatch key.
    forward: dict[OperatorName, BoundKernel]
    #: ``autograd`` kernels, for ``Autograd<Backend>``.
    backward: dict[OperatorName, BoundKernel]
    #: ``structured`` families: the group and the entry that named it.
    structured: tuple[tuple[VariantGroup, BoundKernel], ...]

    @property
    def kernel_class(self) -> str:
        """``ns::Class``: where every kernel of the backend is declared."""
        return f"{self.spec.cpp_namespace}::{self.spec.kernel_class}"

    @property
    def has_forward(self) -> bool:
        """The backend key gets files; torchgen writes nothing without ``supported``."""
        return bool(self.forward or self.structured)

    def dispatch_keys(self) -> tuple[str, ...]:
        """The dispatch keys that get a registration file, backend key first."""
        if not self.has_forward:
            return ()
        return (self.spec.backend, *((self.spec.autograd_key,) if self.backward else ()))

    def kernels_of(self, key: str) -> dict[OperatorName, BoundKernel]:
        return self.forward if key == self.spec.backend else self.backward


def bind_backend(
    module: Module, spec: ExternalBackend
) -> tuple[BoundBackend, tuple[Diagnostic, ...]]:
    """``spec`` bound to ``module`` (its groups resolved), and every problem found."""
    problems: list[Diagnostic] = []
    by_text = {str(f.func.name): f for f in module.functions}
    symint = {op.name for op in spec.symint}
    cls = f"{spec.cpp_namespace}::{spec.kernel_class}"

    def bind(ops: tuple[BackendOp, ...], listing: str) -> dict[OperatorName, BoundKernel]:
        bound: dict[OperatorName, BoundKernel] = {}
        for op in ops:
            f = by_text.get(op.name)
            if f is None:
                problems.append(_unknown(op, listing, by_text))
                continue
            takes_symint = op.name in symint
            if takes_symint and not has_symint(f.func):
                problems.append(
                    Diagnostic(
                        _symint_span(spec, op),
                        f"'{op.name}' is listed under 'symint' but its schema has no SymInt",
                        "remove it from 'symint': its kernel takes plain int64_t sizes",
                    )
                )
            name = dispatcher_name(f.func) + ("_symint" if takes_symint else "")
            bound.setdefault(f.func.name, BoundKernel(f, Kernel(name, cls), takes_symint, op))
        return bound

    forward = bind(spec.supported, "supported")
    backward = bind(spec.autograd, "autograd")
    for op in spec.symint:
        if op.name in by_text and not any(
            op.name == listed.name for listed in (*spec.supported, *spec.autograd)
        ):
            problems.append(
                Diagnostic(
                    op.span,
                    f"'{op.name}' is listed under 'symint' but not under 'supported' or 'autograd'",
                    "'symint' only changes the kernel of an operator the backend lists",
                )
            )
        elif op.name not in by_text:
            problems.append(_unknown(op, "symint", by_text))
    problems.extend(_in_tree_keys(module, spec))
    groups = _groups_by_member(module)
    problems.extend(_split_families(groups, forward, backward))
    structured = _bind_structured(spec, module, groups, by_text, forward, backward, problems)
    return BoundBackend(spec, forward, backward, structured), tuple(problems)


def unknown_operators(module: Module, spec: ExternalBackend) -> tuple[Diagnostic, ...]:
    """The backend YAML's operators that ``module`` neither has nor will have.

    For a module the passes could not finish (Note [Every error in one run]):
    only the loaded entries exist yet, so an operator is known if an entry
    declares it or lists it under ``autogen:`` (the variants the passes
    would synthesise).  Everything else binding checks needs the passes.
    """
    by_text = {str(f.func.name): f for f in module.functions}
    known = set(by_text) | {str(name) for f in module.functions for name in f.autogen}
    listings = (("supported", spec.supported), ("autograd", spec.autograd), ("symint", spec.symint))
    return tuple(
        _unknown(op, listing, by_text)
        for listing, ops in listings
        for op in ops
        if op.name not in known
    )


def _in_tree_keys(module: Module, spec: ExternalBackend) -> list[Diagnostic]:
    """An out-of-tree key must not already have kernels in native_functions.yaml."""
    in_tree = {key for resolution in module.resolutions.values() for key in resolution.dispatch}
    problems = []
    uses = (
        (spec.backend, spec.backend_span, bool(spec.supported or spec.structured)),
        (spec.autograd_key, spec.autograd_span, bool(spec.autograd)),
    )
    for key, span, used in uses:
        if used and key in in_tree:
            problems.append(
                Diagnostic(
                    span,
                    f"dispatch key '{key}' already has kernels in native_functions.yaml",
                    "an out-of-tree backend needs a key of its own: PrivateUse1 (renamed "
                    "in Python) or a reserved one such as XLA",
                )
            )
    return problems


def _symint_span(spec: ExternalBackend, op: BackendOp) -> Span:
    for listed in spec.symint:
        if listed.name == op.name:
            return listed.span
    return op.span


def _unknown(op: BackendOp, listing: str, by_text: dict[str, NativeFunction]) -> Diagnostic:
    hint = did_you_mean(op.name, by_text)
    if hint is None:
        overloads = sorted(n for n in by_text if n.split(".")[0] == op.name.split(".")[0])
        hint = (
            "its overloads are " + ", ".join(overloads[:8])
            if overloads
            else "names are spelled as in native_functions.yaml ('name.overload')"
        )
    return Diagnostic(
        op.span, f"'{op.name}' in '{listing}' is not an operator of native_functions.yaml", hint
    )


def _groups_by_member(module: Module) -> dict[OperatorName, VariantGroup]:
    groups: dict[OperatorName, VariantGroup] = {}
    for item in module.grouped_functions:
        if isinstance(item, VariantGroup):
            for name in item.members():
                groups[name] = item
    return groups


def _split_families(
    groups: dict[OperatorName, VariantGroup],
    forward: dict[OperatorName, BoundKernel],
    backward: dict[OperatorName, BoundKernel],
) -> list[Diagnostic]:
    """torchgen's rule: a family registers to the backend key or to its autograd key."""
    problems = []
    reported: set[VariantGroup] = set()
    for name, kernel in backward.items():
        group = groups.get(name)
        if group is None or group in reported or name in forward:
            continue  # the same name in both lists is reported by the loader
        split = next((forward[m] for m in group.members() if m in forward), None)
        if split is None:
            continue
        reported.add(group)
        problems.append(
            Diagnostic(
                kernel.entry.span,
                f"'{name}' is listed under 'autograd' but its variant '{split.entry.name}' "
                "is under 'supported'",
                f"line {split.entry.span.line}: all variants of an operator (functional, "
                "in-place, out=) register to one key; move them to the same list",
            )
        )
    return problems


def _bind_structured(
    spec: ExternalBackend,
    module: Module,
    groups: dict[OperatorName, VariantGroup],
    by_text: dict[str, NativeFunction],
    forward: dict[OperatorName, BoundKernel],
    backward: dict[OperatorName, BoundKernel],
    problems: list[Diagnostic],
) -> tuple[tuple[VariantGroup, BoundKernel], ...]:
    bound: list[tuple[VariantGroup, BoundKernel]] = []
    seen: set[VariantGroup] = set()
    cls = f"{spec.cpp_namespace}::{spec.kernel_class}"
    for op in spec.structured:
        f = by_text.get(op.name)
        if f is None:
            problems.append(_unknown(op, "structured", by_text))
            continue
        group = groups.get(f.func.name)
        if group is None or not group.structured:
            problems.append(
                Diagnostic(
                    op.span,
                    f"'{op.name}' is not part of a structured operator family",
                    "only operators whose out= variant is 'structured: True' in "
                    "native_functions.yaml have a meta() to share; list it under 'supported'",
                )
            )
            continue
        if group in seen:
            problems.append(
                Diagnostic(
                    op.span,
                    f"the family of '{op.name}' is listed twice in 'structured'",
                    "one entry (the out= variant) names the whole family",
                )
            )
            continue
        seen.add(group)
        clash = next((m for m in group.members() if m in forward or m in backward), None)
        if clash is not None:
            listed = forward.get(clash) or backward[clash]
            problems.append(
                Diagnostic(
                    op.span,
                    f"'{op.name}' is structured, but its variant '{clash}' is also listed "
                    f"on line {listed.entry.span.line}",
                    "a structured family's variants are all generated from its impl(); "
                    "remove them from 'supported'/'autograd'",
                )
            )
            continue
        out = module.function(group.out)
        kernel = Kernel(dispatcher_name(out.func), cls, structured=True)
        bound.append((group, BoundKernel(out, kernel, False, op)))
    return tuple(bound)
