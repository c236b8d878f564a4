"""The normalised signature shared by every variant of one operator.

``add.Tensor``, ``add_.Tensor`` and ``add.out`` are three schemas for one
computation.  :func:`signature` maps each of them to the same schema, which is
how grouping finds families and how synthesis builds a missing variant.  The
normalisation (the same one PyTorch applies, so that groups agree with it):

- the overload name is dropped and the base name loses its in-place ``_`` and
  ``_functional`` marks (dunder-ness is kept);
- out= arguments are dropped, and so are the TensorOptions quartet (an out=
  factory has none) and every alias annotation;
- a mutable input that is not returned becomes an extra return, after the
  real returns, in the order ``self``, out arguments, other positionals;
- return names are dropped (unless ``keep_return_names``; then the extra
  returns are named ``<arg>_out``, the convention of synthesised functional
  variants).

``strip_view_copy_name`` additionally maps ``foo_copy`` to ``foo`` and
``foo_scatter`` to ``foo_inverse``, pairing a view with its copy twin.

Note [bernoulli.p signature]: ``bernoulli.p`` writes ``float p`` without the
default its in-place and out= siblings have; the signature gives it
``p=0.5`` so the family still groups, exactly as PyTorch does.
"""

from __future__ import annotations

import attrs

from schemac.ir.names import BaseOperatorName, OperatorName
from schemac.ir.schema import (
    Argument,
    Arguments,
    FunctionSchema,
    Return,
    family_key,
)

# family_key lives with FunctionSchema, which keeps it (see there); it is
# exported here, beside the signature_key it mirrors.
__all__ = [
    "family_key",
    "signature",
    "signature_arguments",
    "signature_key",
    "view_signature",
    "view_signature_key",
]


def _plain(arg: Argument, strip_default: bool) -> Argument:
    if arg.annotation is None and (arg.default is None or not strip_default):
        return arg
    return Argument(arg.name, arg.type, None if strip_default else arg.default)


def signature_arguments(args: Arguments, *, strip_default: bool = False) -> Arguments:
    """Positional and keyword arguments without annotations, TensorOptions or outs."""
    kwargs = args.pre_tensor_options_kwarg_only + args.post_tensor_options_kwarg_only
    return Arguments(
        positional=tuple(_plain(a, strip_default) for a in args.positional),
        kwarg_only=tuple(_plain(a, strip_default) for a in kwargs),
    )


#: The parts of a normalised signature; equal parts <=> equal signatures.
SignatureKey = tuple[OperatorName, Arguments, tuple[Return, ...]]


def signature_key(
    schema: FunctionSchema,
    *,
    strip_default: bool = False,
    strip_view_copy_name: bool = False,
    keep_return_names: bool = False,
) -> SignatureKey:
    """The parts of :func:`signature` without building (and validating) a schema.

    Grouping only needs to compare signatures; building a FunctionSchema
    re-checks every schema rule, which a normalised signature cannot break.
    """
    args = schema.arguments
    returned = [r.annotation for r in schema.returns]
    self_arg = args.self_arg
    written_inputs = ((self_arg,) if self_arg is not None else ()) + args.out
    written_inputs += args.post_self_positional
    extra_returns = tuple(
        Return(f"{a.name}_out" if keep_return_names else None, a.type)
        for a in written_inputs
        if a.is_write and a.annotation not in returned
    )
    returns = tuple(Return(r.name if keep_return_names else None, r.type) for r in schema.returns)

    base = schema.name.name.base
    if strip_view_copy_name:
        if base.endswith("_copy"):
            base = base.replace("_copy", "")
        elif base.endswith("_scatter"):
            base = base.replace("scatter", "inverse")

    sig_args = signature_arguments(args, strip_default=strip_default)
    # Note [bernoulli.p signature]; the overload is tested first, as it almost never matches.
    if schema.name.overload == "p" and str(schema.name) == "bernoulli.p":
        sig_args = attrs.evolve(
            sig_args,
            positional=tuple(
                attrs.evolve(a, default="0.5") if a.name == "p" else a for a in sig_args.positional
            ),
        )
    name = OperatorName(BaseOperatorName(base, dunder=schema.name.name.dunder))
    return name, sig_args, returns + extra_returns


def signature(
    schema: FunctionSchema,
    *,
    strip_default: bool = False,
    strip_view_copy_name: bool = False,
    keep_return_names: bool = False,
) -> FunctionSchema:
    return FunctionSchema(
        *signature_key(
            schema,
            strip_default=strip_default,
            strip_view_copy_name=strip_view_copy_name,
            keep_return_names=keep_return_names,
        )
    )


def view_signature(schema: FunctionSchema) -> FunctionSchema:
    return signature(schema, strip_view_copy_name=True)


def view_signature_key(schema: FunctionSchema) -> SignatureKey:
    return signature_key(schema, strip_view_copy_name=True)
