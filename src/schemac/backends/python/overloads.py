"""From the overloads of one operator name to the ordered list the parser tries.

Two steps, both behaviour the runtime depends on:

1. **Merging out= twins.**  ``abs(Tensor self)`` and ``abs.out(Tensor self, *,
   Tensor(a!) out)`` differ only in ``out``, so they share one parser entry,
   ``abs(Tensor input, *, Tensor out=None)``, and the binding branches on
   whether ``out`` was given.  Overloads are matched by their signature text
   without outputs; an out= overload with no twin is an input error.

2. **Ordering.**  PythonArgParser tries signatures in order and takes the
   first that accepts the arguments, and some accept the same call (a Python
   number converts to both ``Scalar`` and ``Tensor``).  Note [Overload order]:
   signatures are sorted by text, then reordered so that a signature comes
   after every signature it is "smaller" than: same arity, and each parameter
   type equal to or less specific than the other's (``Scalar`` < ``Tensor``,
   ``int[]`` < ``int``, ``Tensor[]`` < other lists, ``SymInt[]`` < ``int[]``,
   ``int``/``SymInt`` < ``Tensor``).  Ties keep the text order; the reorder is
   the same Kahn-style sweep PyTorch uses, so the result is identical.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from schemac.backends.python.signatures import PythonSignature
from schemac.diagnostics import Diagnostic, InputError
from schemac.ir.native import NativeFunction


@attrs.frozen
class SignedFunction:
    """A native function with one of its Python signatures (a function may have several)."""

    signature: PythonSignature
    function: NativeFunction


@attrs.frozen
class OverloadGroup:
    """One parser entry: an overload, and its out= twin when they were merged."""

    signature: PythonSignature
    base: NativeFunction
    out: NativeFunction | None = None


def _twin_hint(out: NativeFunction, others: Sequence[NativeFunction]) -> str:
    """Name the likely mistake: the functional twin is bound in another Python module."""
    for other in others:
        same_name = other.func.name.name == out.func.name.name
        if same_name and not other.func.is_out_fn and other.python_module != out.python_module:
            where = (
                f"python_module: {other.python_module}"
                if other.python_module
                else "no python_module"
            )
            return (
                f"'{other.func.name}' has {where}; give '{out.func.name}' the same "
                "python_module so both are bound together"
            )
    return "every out= overload needs an overload that takes the same arguments minus out"


def group_overloads(
    overloads: Sequence[SignedFunction],
    everywhere: Sequence[NativeFunction] = (),
    *,
    pruned: bool = False,
) -> list[OverloadGroup]:
    """Merge out= twins and order the entries.

    ``everywhere`` (all bound functions) only improves the hint of a
    missing-twin error.  In a selective build (``pruned``) an out= overload
    whose functional twin was not selected is left unbound instead.
    """
    if len(overloads) == 1 and not overloads[0].function.func.is_out_fn:
        # Most names have one overload: nothing to merge, check or order.
        only = overloads[0]
        return [OverloadGroup(only.signature, only.function)]
    bases: dict[str, SignedFunction] = {}
    outs: dict[str, SignedFunction] = {}
    problems: list[Diagnostic] = []
    for item in overloads:
        key = item.signature.text(skip_outputs=True)
        table = outs if item.function.func.is_out_fn else bases
        if key in table:
            problems.append(
                Diagnostic(
                    item.function.span,
                    f"'{item.function.func.name}' has the same Python signature as "
                    f"'{table[key].function.func.name}': {key}",
                    "Python cannot tell these overloads apart; change an argument type or name",
                )
            )
            continue
        table[key] = item
    for key, out in outs.items():
        if key not in bases and not pruned:
            problems.append(
                Diagnostic(
                    out.function.span,
                    f"out= overload '{out.function.func.name}' has no functional twin with the "
                    f"Python signature {key}",
                    _twin_hint(out.function, everywhere),
                )
            )
    if problems:
        raise InputError(problems)
    groups = []
    for key, base in bases.items():
        twin = outs.get(key)
        if twin is None:
            groups.append(OverloadGroup(base.signature, base.function))
        else:
            merged = base.signature.with_outputs_of(twin.signature)
            groups.append(OverloadGroup(merged, base.function, twin.function))
    return sort_overloads(groups)


#: (less specific, more specific) parameter type spellings; see Note [Overload order].
_LESS_SPECIFIC: frozenset[tuple[str, str]] = frozenset(
    {
        ("Scalar", "Tensor"),
        ("Scalar?", "Tensor?"),
        ("int[]", "int"),
        ("int[]", "int?"),
        ("SymInt[]", "int[]"),
        ("SymInt", "Tensor"),
        ("int", "Tensor"),
    }
)


def _type_less_specific(left: str, right: str) -> bool:
    if left == "Tensor[]" and "[]" in right:
        return True
    return (left, right) in _LESS_SPECIFIC


def _less_specific(left: tuple[str, ...], right: tuple[str, ...]) -> bool:
    """Whether a signature with parameter types ``left`` is less specific than one with ``right``.

    Types are compared by their schema spelling, which is canonical (two types
    are equal exactly when they print the same).
    """
    if len(left) != len(right) or left == right:
        return False
    return all(x == y or _type_less_specific(x, y) for x, y in zip(left, right, strict=True))


def _parameter_types(signature: PythonSignature) -> tuple[str, ...]:
    return tuple(a.type_text for a in signature.arguments(skip_outputs=True))


def sort_overloads(groups: Sequence[OverloadGroup]) -> list[OverloadGroup]:
    if len(groups) < 2:
        return list(groups)
    ordered = sorted(groups, key=lambda g: g.signature.text())
    types = [_parameter_types(g.signature) for g in ordered]
    # must_follow[i]: the signatures that signature i has to come after.
    must_follow: dict[int, set[int]] = {}
    for i, first in enumerate(types):
        for j, second in enumerate(types):
            if _less_specific(first, second):
                must_follow.setdefault(i, set()).add(j)
    if not must_follow:
        return list(ordered)
    placed = [i for i in range(len(ordered)) if i not in must_follow]
    cursor = 0
    while cursor < len(placed):
        done = placed[cursor]
        cursor += 1
        for waiting in sorted(must_follow):
            pending = must_follow[waiting]
            pending.discard(done)
            if not pending:
                del must_follow[waiting]
                placed.append(waiting)
    return [ordered[i] for i in placed]
