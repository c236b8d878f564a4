"""Entries of derivatives.yaml, as written.

A :class:`DerivativeEntry` pairs a schema with backward formulas for some of its
inputs and, optionally, forward-mode formulas for its results.  Formulas are
kept as C++ expression text; the names each formula uses (``grad``,
``grads[1]``, ``result``, argument names, ``self_sym_sizes``-style saved
properties) are extracted by the derivative-matching pass, which knows the
schema they must resolve against.
"""

from __future__ import annotations

import attrs

from schemac.diagnostics import NO_FIELD_SPANS, NO_SPAN, FieldSpans, Span, as_field_spans
from schemac.ir.schema import FunctionSchema

_SPAN = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)


@attrs.frozen
class Formula:
    """``self, other: some_backward(grad, self, other)``.

    ``variables`` are the names on the left of the colon: input names for a
    backward formula, output names (``result``, ``result0``, a named return)
    for a forward formula.
    """

    variables: tuple[str, ...]
    text: str
    span: Span = _SPAN
    #: Span of the formula text (the YAML value).
    text_span: Span = _SPAN


@attrs.frozen
class DispatchFormulas:
    """Formulas for one autograd dispatch key (``Default``, ``AutogradNestedTensor``)."""

    key: str
    backward: tuple[Formula, ...] = ()
    forward: tuple[Formula, ...] = ()
    span: Span = _SPAN


@attrs.frozen
class DerivativeEntry:
    schema: FunctionSchema
    #: Formulas per autograd key; an entry without ``dispatch:`` has one, ``Default``.
    dispatch: tuple[DispatchFormulas, ...]
    output_differentiability: tuple[bool, ...] | None = None
    #: ``output_differentiability: ["cond"]``: C++ conditions, one per output,
    #: deciding at run time whether the output is differentiable.
    output_differentiability_conditions: tuple[str, ...] | None = None
    span: Span = _SPAN
    field_spans: FieldSpans = attrs.field(
        default=NO_FIELD_SPANS, converter=as_field_spans, eq=False, hash=False, repr=False
    )

    def span_of(self, field: str) -> Span:
        span = self.field_spans.get(field)
        return self.span if span is None else span


@attrs.frozen
class DeprecatedSignature:
    """An entry of deprecated.yaml: an old Python signature and its ATen call."""

    schema: FunctionSchema
    aten: str
    span: Span = _SPAN
