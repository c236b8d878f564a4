"""The views of a schema that derivative matching needs.

Matching a derivatives.yaml entry to its native functions compares *signatures*:
the schema with overload name, in-place marker, out arguments, alias
annotations, return names and TensorOptions removed, and mutated-but-not-
returned arguments turned into returns.  Two variants of one operator
(``add.Tensor``, ``add_.Tensor``, ``add.out``) share a signature.  Formulas
are written against the C++ argument list (out arguments first, the
TensorOptions quartet packed as ``options``) and the C++ return names, so
both are computed here, once.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

from schemac.ir.schema import FunctionSchema, view_twin_base, view_twin_key
from schemac.ir.types import Type

#: The one argument name of the packed TensorOptions in C++ signatures.
OPTIONS_NAME = "options"

#: A hashable signature; equal for variants of one operator.
SignatureKey = tuple[Hashable, ...]

#: The parts of :func:`schemac.ir.signature.family_key`: base name, dunder
#: flag, positional and keyword (name, type, default) triples, return types.
_Triples = tuple[tuple[str, str, str | None], ...]
FamilyKey = tuple[str, bool, _Triples, _Triples, tuple[str, ...]]


def signature_key(
    schema: FunctionSchema, *, strip_default: bool = False, strip_view_copy_name: bool = False
) -> SignatureKey:
    # Called for every function several times per compile: the argument views
    # are read once each and the keys built inline.
    name = schema.name
    base = name.name.base
    if strip_view_copy_name:
        base = view_twin_base(base)
    args = schema.arguments
    all_positional = args.positional
    positional: list[tuple[str, str, str | None]]
    kwargs: tuple[tuple[str, str, str | None], ...]
    if strip_default:
        positional = [(a.name, str(a.type), None) for a in all_positional]
        kwargs = tuple(
            (a.name, str(a.type), None)
            for part in (args.pre_tensor_options_kwarg_only, args.post_tensor_options_kwarg_only)
            for a in part
        )
    else:
        positional = [(a.name, str(a.type), a.default) for a in all_positional]
        kwargs = tuple(
            (a.name, str(a.type), a.default)
            for part in (args.pre_tensor_options_kwarg_only, args.post_tensor_options_kwarg_only)
            for a in part
        )
    # The overload test first: printing every name costs more than the key.
    if name.overload == "p" and str(name) == "bernoulli.p":
        # PyTorch special-cases this one schema so that its signature carries
        # the default its in-place twin has; matching must agree with it.
        positional = [(n, t, "0.5") if n == "p" else (n, t, d) for n, t, d in positional]
    returns: list[str] = [str(r.type) for r in schema.returns]
    returned = [r.annotation for r in schema.returns if r.annotation is not None]
    # Mutated arguments in order: self, the outs, the positionals after self.
    self_index = args.self_index
    if self_index is None:
        mutated = args.out + all_positional
    else:
        mutated = (all_positional[self_index], *args.out, *all_positional[self_index + 1 :])
    for arg in mutated:
        if arg.is_write and arg.annotation not in returned:
            returns.append(str(arg.type))
    return (base, name.name.dunder, tuple(positional), kwargs, tuple(returns))


class SignatureKeys(NamedTuple):
    """The three :func:`signature_key` variants matching asks of every function."""

    plain: SignatureKey
    no_defaults: SignatureKey
    view_copy: SignatureKey


def signature_keys(schema: FunctionSchema) -> SignatureKeys:
    """Keys equal exactly when :func:`signature_key`, with ``strip_default`` and with
    ``strip_view_copy_name``, are.

    They differ only in the base name or the defaults, so all three derive
    from the schema's ``family_key``, which grouping has usually computed
    already.  That key holds types where :func:`signature_key` holds their
    spelling: the same partition, as two types the grammar can write are
    equal exactly when they print alike.  The pass asks for each key
    separately (:func:`no_defaults_key`, :func:`view_copy_key`), and only of
    the functions that can match by base name.
    """
    plain: FamilyKey = schema.family_key  # type: ignore[assignment]
    return SignatureKeys(plain, no_defaults_key(schema, plain), view_copy_key(plain))


def no_defaults_key(schema: FunctionSchema, plain: FamilyKey) -> SignatureKey:
    """``signature_keys(schema).no_defaults``; ``plain``: the schema's family key."""
    base, dunder, positional, kwargs, returns = plain
    # Most argument lists have no default to strip: their parts are reused as
    # they are (plain loops: asked of most functions).
    stripped = positional
    for _, _, default in positional:
        if default is not None:
            stripped = tuple([(n, t, None) for n, t, _ in positional])
            break
    if schema.name.overload == "p" and str(schema.name) == "bernoulli.p":
        # As in signature_key(strip_default=True): p keeps its 0.5.
        stripped = tuple((n, t, "0.5") if n == "p" else (n, t, d) for n, t, d in stripped)
    stripped_kwargs = kwargs
    for _, _, default in kwargs:
        if default is not None:
            stripped_kwargs = tuple([(n, t, None) for n, t, _ in kwargs])
            break
    return (base, dunder, stripped, stripped_kwargs, returns)


def view_copy_key(plain: FamilyKey) -> SignatureKey:
    """``signature_keys(schema).view_copy`` from the schema's family key ``plain``."""
    return view_twin_key(plain)


def cpp_arguments(schema: FunctionSchema) -> tuple[tuple[str, Type | None], ...]:
    """(name, type) in C++ API order; the packed TensorOptions has type None."""
    args = schema.arguments
    items: list[tuple[str, Type | None]] = [(a.name, a.type) for a in args.out]
    items += [(a.name, a.type) for a in args.positional]
    options = args.tensor_options
    if options is None:
        items += [(a.name, a.type) for a in args.kwarg_only]
        return tuple(items)
    items += [(a.name, a.type) for a in args.pre_tensor_options_kwarg_only]
    items.append((OPTIONS_NAME, None))
    items += [(a.name, a.type) for a in args.post_tensor_options_kwarg_only]
    return tuple(items)


def return_names(schema: FunctionSchema) -> tuple[str, ...]:
    """The C++ names of the returns (``self`` for in-place, out names for out=)."""
    returns = schema.returns
    if schema.name.name.inplace:
        return ("self",) * len(returns)
    out = schema.arguments.out
    if out:
        return tuple([out[index].name for index in range(len(returns))])
    names: list[str] = []
    arg_names: set[str] | None = None  # collected only for a named return
    for index, ret in enumerate(returns):
        if ret.name:
            if arg_names is None:
                arg_names = {a.name for a in schema.arguments.flat_all}
            names.append(f"{ret.name}_return" if ret.name in arg_names else ret.name)
        else:
            names.append("result" if len(returns) == 1 else f"result{index}")
    return tuple(names)


def formula_return_names(schema: FunctionSchema) -> tuple[str, ...]:
    """Return names as formulas see them: an in-place result is ``result``."""
    return tuple("result" if n == "self" else n for n in return_names(schema))


#: The base-name prefix of foreach operators.
FOREACH_PREFIX = "_foreach_"


def is_foreach(schema: FunctionSchema) -> bool:
    return schema.name.name.base.startswith(FOREACH_PREFIX)
