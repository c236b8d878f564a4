"""Signatures from deprecated.yaml, joined to the overloads they call.

A deprecated entry gives an old Python signature (``addmm(Scalar beta, Tensor
self, Tensor mat1, Tensor mat2)``) and the ATen call it stands for
(``addmm(self, mat1, mat2, beta, 1)``), without saying which overload.  The
overload is found by type: an ATen overload of that name matches when the
i-th argument of the call has the type and alias annotation of the overload's
i-th argument (out arguments first for an ``_out`` call), every argument the
call leaves out has a default, and the returns are the same.  Every match
gets a deprecated parser signature (suffix ``|deprecated``, hidden from
error-message suggestions); an entry with no match is an input error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import attrs

from schemac.backends.python.overloads import SignedFunction
from schemac.backends.python.signatures import (
    ArgumentMaker,
    DeprecatedCall,
    python_arguments,
    python_signature,
)
from schemac.diagnostics import Diagnostic, InputError
from schemac.ir.derivatives import DeprecatedSignature
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, FunctionSchema
from schemac.ir.types import BaseTy, BaseType, Type

#: Literal arguments a deprecated call may pass, with the type they stand for.
KNOWN_CONSTANTS: Mapping[str, Type] = {"1": BaseType(BaseTy.Scalar)}

_CALL = re.compile(r"(\w+)(?:\.\w+)?\((.*)\)")
OUT_SUFFIX = "_out"


@attrs.frozen
class _ParsedCall:
    name: str
    args: tuple[str, ...]
    is_out: bool


def _parse_call(entry: DeprecatedSignature, problems: list[Diagnostic]) -> _ParsedCall | None:
    match = _CALL.match(entry.aten)
    if match is None:
        problems.append(
            Diagnostic(
                entry.span,
                f"cannot read the ATen call '{entry.aten}'",
                "write it as name(arg, arg, ...)",
            )
        )
        return None
    name, params = match.groups()
    is_out = name.endswith(OUT_SUFFIX)
    # PyTorch drops every "_out" from the name, not only a trailing one.
    base = name.replace(OUT_SUFFIX, "") if is_out else name
    args = tuple(params.split(", "))
    known = {a.name for a in entry.schema.arguments.flat_all}
    for arg in args:
        if arg not in known and arg not in KNOWN_CONSTANTS:
            problems.append(
                Diagnostic(
                    entry.span,
                    f"deprecated call passes '{arg}', which is neither an argument "
                    f"of '{entry.schema.name}' nor a known constant",
                    f"use one of: {', '.join(sorted(known | set(KNOWN_CONSTANTS)))}",
                )
            )
            return None
    return _ParsedCall(base, args, is_out)


def _call_matches(call: _ParsedCall, deprecated: FunctionSchema, aten: FunctionSchema) -> bool:
    by_name = {a.name: a for a in deprecated.arguments.flat_all}
    targets: Sequence[Argument] = (
        aten.arguments.out + aten.arguments.flat_non_out if call.is_out else aten.arguments.flat_all
    )
    for index, target in enumerate(targets):
        if index >= len(call.args):
            if target.default is None:
                return False
            continue
        passed = call.args[index]
        if passed in KNOWN_CONSTANTS:
            if KNOWN_CONSTANTS[passed] != target.type or target.annotation is not None:
                return False
            continue
        source = by_name[passed]
        if source.type != target.type or source.annotation != target.annotation:
            return False
    return deprecated.returns == aten.returns


@attrs.frozen
class DeprecatedUse:
    """A deprecated.yaml entry with one overload it calls (an entry may match several)."""

    entry: DeprecatedSignature
    #: The ATen call's arguments: the entry's own argument names, or constants.
    call_args: tuple[str, ...]
    function: NativeFunction


def deprecated_uses(
    entries: Iterable[DeprecatedSignature],
    functions: Sequence[NativeFunction],
    *,
    pruned: bool = False,
) -> list[DeprecatedUse]:
    """Every (entry, matching overload of ``functions``) pair, in entry order.

    ``pruned`` says the module is a selective build: an entry whose overload
    was not selected is then dropped instead of reported.  Only the schemas
    are compared: no Python signature is made here (:func:`deprecated_signature`).
    """
    # Each entry's problems, reported in entry order below.
    calls = []
    for entry in entries:
        entry_problems: list[Diagnostic] = []
        calls.append((entry, _parse_call(entry, entry_problems), entry_problems))
    # Only the few names deprecated.yaml calls are indexed, not every function's.
    wanted = {call.name for _, call, _ in calls if call is not None}
    by_name: dict[str, list[NativeFunction]] = {}
    for function in functions:
        # The name a Python signature of the function carries (python_signature).
        name = str(function.func.name.name)
        if name in wanted:
            by_name.setdefault(name, []).append(function)
    problems: list[Diagnostic] = []
    result: list[DeprecatedUse] = []
    for entry, call, entry_problems in calls:
        problems += entry_problems
        if call is None:
            continue
        matched = False
        for function in by_name.get(call.name, ()):
            if not _call_matches(call, entry.schema, function.func):
                continue
            matched = True
            result.append(DeprecatedUse(entry, call.args, function))
        if not matched and not pruned:
            problems.append(
                Diagnostic(
                    entry.span,
                    f"no operator named '{call.name}' matches deprecated signature "
                    f"'{entry.schema}'",
                    "the call's argument types and the returns must match one overload exactly",
                )
            )
    if problems:
        raise InputError(problems)
    return result


def deprecated_signature(
    use: DeprecatedUse, *, method: bool, make_arguments: ArgumentMaker = python_arguments
) -> SignedFunction:
    """The deprecated parser signature of ``use`` (suffix ``|deprecated``), with its overload."""
    schema = use.entry.schema
    signature = python_signature(
        schema,
        category_override=use.function.category_override,
        method=method,
        deprecated=DeprecatedCall(schema, use.call_args),
        make_arguments=make_arguments,
    )
    return SignedFunction(signature, use.function)
