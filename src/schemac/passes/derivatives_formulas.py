"""Analysis of one entry's formulas against the operator they belong to.

Given the canonical native function of a derivatives.yaml entry and the
formulas of one autograd key, this computes what a backward node needs (saved
variables, differentiable arguments, named gradients) and the final forward
formulas (``auto_element_wise`` / ``auto_linear`` expanded), and checks every
formula: free names must exist (see :mod:`schemac.passes.derivatives_names`),
``grads[i]`` must be in range, ``grad`` and ``grads`` must not be mixed, and
non-SymInt-aware calls are refused.  Problems become diagnostics pointing
into derivatives.yaml.
"""

from __future__ import annotations

import re

import attrs

from schemac.diagnostics import DiagnosticSink, Span, did_you_mean
from schemac.ir.autograd import (
    Derivative,
    DifferentiableArgument,
    ForwardDerivative,
    SavedProperty,
)
from schemac.ir.derivatives import Formula
from schemac.ir.evolve import evolve
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.schema import FunctionSchema, SchemaKind
from schemac.ir.types import BaseTy, ListType, Type, is_like
from schemac.passes.derivatives_names import all_names_known, free_names
from schemac.passes.derivatives_saved import (
    FORBIDDEN_CALLS,
    StridesNotSupported,
    ident_pattern,
    save_variables,
    used_gradient_indices,
    uses_ident,
)
from schemac.passes.derivatives_signature import (
    cpp_arguments,
    formula_return_names,
    is_foreach,
)
from schemac.passes.derivatives_vocabulary import CPP_TYPES, CPP_WORDS

NON_DIFFERENTIABLE = "non_differentiable"
AUTO_ELEMENT_WISE = "auto_element_wise"
AUTO_LINEAR = "auto_linear"

#: ``self`` + these name a saved property a formula may also spell out.
_SAVED_SUFFIXES = tuple(
    p.value for p in SavedProperty if p not in (SavedProperty.value, SavedProperty.sym_argsize)
)

#: Compiled once: searched in every backward formula (``re``'s own cache costs a look-up a call).
_FORBIDDEN_CALLS = tuple((re.compile(pattern), hint) for pattern, hint in FORBIDDEN_CALLS)
_GRADS_INDEX = re.compile(r"grads\[(\d+)\]")

#: Names every backward formula may use besides arguments and results.
BACKWARD_BUILTINS = frozenset({"grad", "grads", "grad_input_mask", "retain_variables"})


@attrs.frozen
class FormulaScope:
    """What a formula may call: helpers and operator names (built once per run)."""

    callables: frozenset[str]
    #: The helper names are the target's own (read from its headers or a names
    #: file): a call to anything else is an error.  Otherwise they are the
    #: release profile's list, and an unknown call only a warning.
    strict: bool = True
    #: Where the helper names came from, for the hint of an unknown call.
    origin: str = ""
    #: Per run: a variable name -> its spelled-out saved properties (``self_sym_sizes``,
    #: ...).  Keys name the same few hundred variables again and again.
    _saved_names: dict[str, frozenset[str]] = attrs.field(
        factory=dict, init=False, eq=False, repr=False
    )

    def saved_names(self, name: str) -> frozenset[str]:
        """``name`` followed by each saved property's suffix."""
        names = self._saved_names.get(name)
        if names is None:
            names = frozenset([name + suffix for suffix in _SAVED_SUFFIXES])
            self._saved_names[name] = names
        return names


def text_span(formula: Formula, offset: int, length: int) -> Span:
    """The span of ``formula.text[offset:offset+length]`` in the YAML file.

    Exact for single-line scalars (plain or quoted); the whole value otherwise.
    """
    span = formula.text_span
    if span.line != span.end_line:
        return span
    width = span.end_column - span.column
    if width == len(formula.text):
        start = span.column + offset
    elif width == len(formula.text) + 2:
        start = span.column + 1 + offset
    else:
        return span
    return Span(span.file, span.line, start, span.line, start + max(length, 1))


@attrs.frozen
class KeyAnalysis:
    derivatives: tuple[Derivative, ...]
    forward_derivatives: tuple[ForwardDerivative, ...]
    args_with_derivatives: tuple[DifferentiableArgument, ...]
    non_differentiable_arg_names: tuple[str, ...]
    available_named_gradients: tuple[str, ...]


def _raw_key(formula: Formula) -> str:
    return ", ".join(formula.variables)


def analyse_key(
    f: NativeFunction,
    defn_name: str,
    backward: tuple[Formula, ...],
    forward: tuple[Formula, ...],
    output_differentiability: tuple[bool, ...] | None,
    scope: FormulaScope,
    sink: DiagnosticSink,
) -> KeyAnalysis:
    schema = f.func
    cpp_args = cpp_arguments(schema)
    arg_names = [name for name, _ in cpp_args]
    differentiability = output_differentiability or (True,) * len(schema.returns)
    available = tuple(
        f"grad_{ret.name}"
        for ret, ok in zip(schema.returns, differentiability, strict=False)
        if ok and ret.name is not None and is_like(ret.type, BaseTy.Tensor)
    )
    derivatives: list[Derivative] = []
    non_differentiable: list[str] = []
    with_derivatives: set[str] = set()
    # What every backward formula of this key may read; built once per key, not per formula.
    return_names = formula_return_names(schema)
    returns = tuple(zip(return_names, (r.type for r in schema.returns), strict=True))
    allowed = _BackwardNames(available, cpp_args + returns, is_foreach(schema), scope)
    for formula in sorted(backward, key=_raw_key):
        if formula.text.lower().strip() == NON_DIFFERENTIABLE:
            non_differentiable += formula.variables
            continue
        derivative = _backward(f, formula, cpp_args, returns, available, allowed, scope, sink)
        if derivative is not None:
            derivatives.append(derivative)
            with_derivatives |= set(formula.variables)
    overlap = sorted(with_derivatives & set(non_differentiable))
    for name in overlap:
        span = next(x.span for x in backward if name in x.variables)
        sink.error(span, f"'{name}' has a formula and is also marked non_differentiable")
    args = tuple(
        DifferentiableArgument(name, ty) for name, ty in cpp_args if name in with_derivatives
    )
    forward_names = _ForwardNames(schema, cpp_args, return_names)
    forwards = [
        fw
        for formula in sorted(forward, key=_raw_key)
        if (fw := _forward(f, formula, forward_names, scope, sink)) is not None
    ]
    finished = _finish_forwards(f, defn_name, arg_names, derivatives, forwards, args, sink)
    _check_grad_usage(derivatives, backward, sink)
    return KeyAnalysis(tuple(derivatives), finished, args, tuple(non_differentiable), available)


class _BackwardNames:
    """The free names a key's backward formulas may use, in two tiers.

    The common names (builtins, named gradients, arguments, results) are a
    small set built at once.  Each variable's spelled-out saved properties
    (``self_sym_sizes``, ... seventeen per variable) are also allowed, but
    formulas almost never write them, so that full set is built only for a
    formula that uses a name outside the small one.  A formula passes the
    check exactly when it would against the full set: every name the small
    set knows, the full one knows too.
    """

    def __init__(
        self,
        available: tuple[str, ...],
        variables: tuple[tuple[str, Type | None], ...],
        foreach: bool,
        scope: FormulaScope,
    ) -> None:
        common = set(BACKWARD_BUILTINS) | set(available)
        common.update([name for name, _ in variables])
        if foreach:
            common.add("i")
        self.common = common
        self._available = available
        self._variables = variables
        self._foreach = foreach
        self._scope = scope
        self._all: set[str] | None = None

    def all(self) -> set[str]:
        """Every allowed name, saved properties included (built once)."""
        if self._all is None:
            allowed = set(BACKWARD_BUILTINS) | set(self._available)
            for name, _ in self._variables:
                allowed.add(name)
                allowed |= self._scope.saved_names(name)
            if self._foreach:
                allowed.add("i")
            self._all = allowed
        return self._all


class _ForwardNames:
    """The free names a key's forward formulas may use; built on first use, once per key."""

    def __init__(
        self,
        schema: FunctionSchema,
        cpp_args: tuple[tuple[str, Type | None], ...],
        return_names: tuple[str, ...],
    ) -> None:
        self._schema = schema
        self._cpp_args = cpp_args
        self._return_names = return_names
        self._all: set[str] | None = None

    def all(self) -> set[str]:
        if self._all is None:
            schema = self._schema
            allowed = {"result", "original_self_p", "original_self_t"}
            allowed |= set(self._return_names)
            allowed |= {r.name for r in schema.returns if r.name is not None}
            for arg in schema.arguments.flat_all:
                allowed |= {arg.name, f"{arg.name}_p", f"{arg.name}_t"}
            allowed |= {name for name, _ in self._cpp_args}
            if is_foreach(schema):
                allowed.add("i")
            self._all = allowed
        return self._all


def _backward(
    f: NativeFunction,
    formula: Formula,
    cpp_args: tuple[tuple[str, Type | None], ...],
    returns: tuple[tuple[str, Type], ...],
    available: tuple[str, ...],
    allowed: _BackwardNames,
    scope: FormulaScope,
    sink: DiagnosticSink,
) -> Derivative | None:
    """``returns``: formula return names and types; ``allowed``: the free names it may use."""
    schema = f.func
    text = formula.text
    for pattern, hint in _FORBIDDEN_CALLS:
        bad = pattern.search(text)
        if bad is not None:
            sink.error(
                text_span(formula, bad.start(), bad.end() - bad.start()),
                f"'{bad.group()}' is not allowed in a derivative formula",
                hint,
            )
            return None
    # The small set first (see _BackwardNames); it almost always suffices.
    if not all_names_known(formula.text, allowed.common, scope.callables, CPP_TYPES, CPP_WORDS):
        _check_names(formula, allowed.all(), scope, sink)
    try:
        rewritten, saved_inputs = save_variables(text, cpp_args, formula.variables)
        rewritten, saved_outputs = save_variables(rewritten, returns, formula.variables)
    except StridesNotSupported as error:
        sink.error(
            formula.text_span,
            f"'{error.name}.sym_strides()' used in a formula for {', '.join(formula.variables)}",
            f"only a formula computing just '{error.name}'s gradient may save its strides",
        )
        return None
    # Most formulas never say "grads": the substring test spares the regex.
    for index, match in _grads_indices(text) if "grads[" in text else ():
        if index >= len(schema.returns):
            sink.error(
                text_span(formula, match, len(f"grads[{index}]")),
                f"grads[{index}] is out of range: '{schema.name}' has "
                f"{len(schema.returns)} output{'s' if len(schema.returns) != 1 else ''}",
                f"use grads[0] .. grads[{len(schema.returns) - 1}]" if schema.returns else None,
            )
    used_named = (
        tuple(sorted([n for n in available if uses_ident(rewritten, n)])) if available else ()
    )
    return Derivative(
        var_names=formula.variables,
        formula=rewritten,
        original_formula=text,
        saved_inputs=saved_inputs,
        saved_outputs=saved_outputs,
        named_gradients=used_named,
        span=formula.span,
    )


def _grads_indices(text: str) -> list[tuple[int, int]]:
    return [(int(m.group(1)), m.start(1) - 6) for m in _GRADS_INDEX.finditer(text)]


def _check_names(
    formula: Formula, allowed: set[str], scope: FormulaScope, sink: DiagnosticSink
) -> None:
    if all_names_known(formula.text, allowed, scope.callables, CPP_TYPES, CPP_WORDS):
        return  # the usual case: nothing to report, no need to tokenise
    for name in free_names(formula.text):
        known = name.name in allowed or name.name in CPP_TYPES or name.name in CPP_WORDS
        if name.is_call:
            if name.name in scope.callables or known:
                continue
            message = f"call to unknown function '{name.name}' in a derivative formula"
            hint = did_you_mean(name.name, scope.callables) or (
                "formulas may call ATen operators and autograd helpers; declare other "
                "helpers in a header given with --formula-helpers"
            )
            if not scope.strict:
                # Not the target's headers: the name may well exist there.
                known_from = f" (helpers known from {scope.origin})" if scope.origin else ""
                sink.warning(
                    text_span(formula, name.offset, len(name.name)),
                    message + known_from,
                    hint,
                )
                continue
        else:
            if known:
                continue
            message = f"unknown name '{name.name}' in a derivative formula"
            hint = did_you_mean(name.name, allowed) or (
                "use an argument, an output ('result'), 'grad' or 'grads[i]'"
            )
        sink.error(text_span(formula, name.offset, len(name.name)), message, hint)


def _forward(
    f: NativeFunction,
    formula: Formula,
    allowed: _ForwardNames,
    scope: FormulaScope,
    sink: DiagnosticSink,
) -> ForwardDerivative | None:
    schema = f.func
    names = formula.variables
    types: list[Type] = [r.type for r in schema.returns if r.name in names]
    if not types:
        if names == ("result",) and len(schema.returns) == 1:
            types = [schema.returns[0].type]
        else:
            for name in names:
                index = re.fullmatch(r"result(\d+)", name)
                if index is not None and int(index.group(1)) < len(schema.returns):
                    types.append(schema.returns[int(index.group(1))].type)
    if not types:
        sink.error(
            formula.span,
            f"forward formula for '{', '.join(names)}' names no output of '{schema.name}'",
            "name outputs as 'result' (one output), 'result0', 'result1'... or by return name",
        )
        return None
    if formula.text not in (AUTO_ELEMENT_WISE, AUTO_LINEAR):
        _check_names(formula, allowed.all(), scope, sink)
    return ForwardDerivative(
        var_names=names, var_types=tuple(types), formula=formula.text, span=formula.span
    )


def _finish_forwards(
    f: NativeFunction,
    defn_name: str,
    all_arg_names: list[str],
    derivatives: list[Derivative],
    forwards: list[ForwardDerivative],
    args: tuple[DifferentiableArgument, ...],
    sink: DiagnosticSink,
) -> tuple[ForwardDerivative, ...]:
    """Expand ``auto_*`` formulas and find which tangents and primals each needs."""
    finished: list[ForwardDerivative] = []
    foreach = is_foreach(f.func)

    def required(formula: str, postfix: str, span: Span) -> tuple[str, ...] | None:
        # In argument order (a dict as an ordered set): the IR must not depend on
        # the hash seed.
        found: dict[str, None] = {}
        for arg in args:
            if isinstance(arg.type, ListType) and not foreach:
                continue  # list arguments are handled inside the formula's helper
            if uses_ident(formula, arg.name):
                sink.error(
                    span,
                    f"forward formula uses '{arg.name}', which is ambiguous",
                    f"use '{arg.name}_p' for the primal value or '{arg.name}_t' for the tangent",
                )
                return None
            if uses_ident(formula, arg.name + postfix):
                found[arg.name] = None
        return tuple(found)

    for fw in forwards:
        formula = fw.formula
        tangents = required(formula, "_t", fw.span)
        if tangents is None:
            continue
        if formula == AUTO_ELEMENT_WISE:
            expanded = _element_wise(f, fw, derivatives, forwards, args, sink)
            if expanded is None:
                continue
            formula, tangents = expanded, tuple(all_arg_names)
        elif formula == AUTO_LINEAR:
            expanded = _linear(f, defn_name, fw, forwards, args, all_arg_names, sink)
            if expanded is None:
                continue
            formula, tangents = expanded, tuple(a.name for a in args)
        primals = required(formula, "_p", fw.span)
        if primals is None:
            continue
        finished.append(
            evolve(
                fw,
                formula=formula,
                required_inputs_fw_grad=tangents,
                required_inputs_primal=primals,
            )
        )
    return tuple(finished)


def _element_wise(
    f: NativeFunction,
    fw: ForwardDerivative,
    derivatives: list[Derivative],
    forwards: list[ForwardDerivative],
    args: tuple[DifferentiableArgument, ...],
    sink: DiagnosticSink,
) -> str | None:
    # The Jacobian of an element-wise function is diagonal, so J v is the
    # backward formula applied to the conjugated tangent, conjugated back.
    if f.func.kind() is SchemaKind.inplace:
        sink.error(fw.span, f"auto_element_wise cannot be used for in-place '{f.func.name}'")
        return None
    if len(args) != 1 or len(forwards) > 1 or len(fw.var_names) > 1:
        sink.error(
            fw.span,
            "auto_element_wise needs exactly one differentiable input and one output",
        )
        return None
    if len(derivatives) != 1:
        sink.error(fw.span, "auto_element_wise needs the input's backward formula")
        return None
    name = args[0].name
    text = _sub_ident(derivatives[0].original_formula, "grad", f"{name}_t.conj()")
    for arg in args:
        text = _sub_ident(text, arg.name, f"{arg.name}_p")
    return f"({text}).conj()"


def _linear(
    f: NativeFunction,
    defn_name: str,
    fw: ForwardDerivative,
    forwards: list[ForwardDerivative],
    args: tuple[DifferentiableArgument, ...],
    all_arg_names: list[str],
    sink: DiagnosticSink,
) -> str | None:
    # A linear function's Jacobian is the function itself: call it on tangents.
    if len(forwards) > 1 or len(fw.var_names) > 1:
        sink.error(fw.span, "auto_linear needs exactly one differentiable output")
        return None
    if not args:
        sink.error(fw.span, "auto_linear needs at least one differentiable input")
        return None
    diff = {a.name for a in args}
    call_args = [f"{n}_t" if n in diff else n for n in all_arg_names]
    name = defn_name
    if any(is_like(a.type, BaseTy.SymInt) for a in f.func.arguments.flat_non_out):
        name += "_symint"
    if Variant.function in f.variants:
        return f"at::{name}({', '.join(call_args)})"
    return f"{call_args[0]}.{name}({', '.join(call_args[1:])})"


def _sub_ident(text: str, name: str, replacement: str) -> str:
    return re.sub(ident_pattern(name), lambda m: f"{m.group(1)}{replacement}{m.group(2)}", text)


def _check_grad_usage(
    derivatives: list[Derivative], formulas: tuple[Formula, ...], sink: DiagnosticSink
) -> None:
    """Mistakes that compile but break double backward; PyTorch refuses them too."""
    if not derivatives:
        return
    span = derivatives[0].span
    uses_grad = any(uses_ident(d.formula, "grad") for d in derivatives)
    # Most formulas never say "grads": the substring test spares the regexes.
    with_grads = [d.formula for d in derivatives if "grads" in d.formula]
    grads_uses = sum(len(re.findall(ident_pattern("grads"), f)) for f in with_grads)
    indices = [i for f in with_grads for i in used_gradient_indices(f)]
    uses_named = any(d.named_gradients for d in derivatives)
    if uses_grad and grads_uses > 0:
        sink.error(span, "formulas mix 'grad' and 'grads'", "replace 'grad' with 'grads[0]'")
    elif grads_uses == len(indices) and set(indices) == {0}:
        sink.error(
            span,
            "formulas use only 'grads[0]'",
            "if the first output is the only differentiable one, write 'grad'",
        )
    if uses_named and (uses_grad or grads_uses > 0):
        sink.error(
            span,
            "formulas mix 'grad_<output>' with 'grad' or 'grads[i]'",
            "use one way of naming output gradients",
        )
