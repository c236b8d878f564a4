"""Which infos each native function uses.

Most functions have no entry of their own: ``add_.Tensor`` and ``add.out``
reuse the formulas of ``add.Tensor``.  For each function, in order:

1. generated out= variants get nothing (their kernels call the functional op);
2. a function whose schema has an entry uses it (an *exact* match);
3. otherwise a non-foreach function uses the entry of the functional operator
   with the same signature (ignoring defaults);
4. a generated functional variant of a mutable operator uses that operator's
   entry, provided the formulas do not read ``self`` (they would see the
   mutated value);
5. a foreach operator gets a generated info (see
   :mod:`schemac.passes.derivatives_foreach`).

In-place functions reusing a functional forward formula get it rewritten to
read the original ``self`` and to update the tangent in place.
"""

from __future__ import annotations

import re

import attrs

from schemac.diagnostics import DiagnosticSink
from schemac.ir.autograd import (
    DEFAULT_AUTOGRAD_KEY,
    DifferentiabilityInfo,
    ForwardDerivative,
    FunctionAutograd,
)
from schemac.ir.native import NativeFunction
from schemac.ir.schema import FunctionSchema, SchemaKind
from schemac.passes.derivatives_entries import Loaded, LoadedEntry
from schemac.passes.derivatives_foreach import foreach_info
from schemac.passes.derivatives_saved import ident_pattern, uses_ident
from schemac.passes.derivatives_signature import (
    FOREACH_PREFIX,
    FamilyKey,
    SignatureKey,
    no_defaults_key,
)


@attrs.frozen
class _Found:
    infos: tuple[DifferentiabilityInfo, ...]
    exact: bool


class Matcher:
    """Looks up infos for functions; built once from all loaded entries."""

    def __init__(self, loaded: Loaded, sink: DiagnosticSink) -> None:
        self._loaded = loaded
        self._sink = sink
        self._functional: dict[SignatureKey, LoadedEntry] = {}
        self._non_functional: dict[SignatureKey, LoadedEntry] = {}
        for item in loaded.values():
            schema = item.canonical.func
            table = (
                self._functional if schema.kind() is SchemaKind.functional else self._non_functional
            )
            plain: FamilyKey = schema.family_key  # type: ignore[assignment]
            table[no_defaults_key(schema, plain)] = item
        #: The base names of the loaded operators: most functions have none of
        #: them, and testing a string spares hashing their OperatorName.
        self._loaded_bases = {name.name.base for name in loaded}
        #: The base names (first part) of all those keys: most functions' base
        #: is none of them, and testing a string spares hashing two whole keys.
        self._bases = {key[0] for key in self._functional} | {
            key[0] for key in self._non_functional
        }
        # A foreach operator's reference has its base name without the prefix
        # (see ``is_reference``), so each looks only among those, in table order.
        self._functional_by_base = _by_base(self._functional)
        self._non_functional_by_base = _by_base(self._non_functional)

    def _candidates(
        self, by_base: dict[str, list[_Candidate]], foreach: FunctionSchema
    ) -> list[_Candidate]:
        return by_base.get(foreach.name.name.base.split("_foreach_")[-1], [])

    def find(self, f: NativeFunction, plain: FamilyKey) -> _Found | None:
        """``plain``: ``f``'s plain signature key (its schema's family key)."""
        func = f.func
        # Whether it is generated, and is_foreach, inlined: asked of every function.
        generated = f.generated or "generated" in f.tags
        if generated and func.kind() is SchemaKind.out:
            return None
        name = func.name
        exact = self._loaded.get(name) if name.name.base in self._loaded_bases else None
        if exact is not None:
            return _Found(exact.infos, True)
        foreach = func.name.name.base.startswith(FOREACH_PREFIX)
        if plain[0] in self._bases:
            key = no_defaults_key(func, plain)
            functional = self._functional.get(key)
            if functional is not None and not foreach:
                return _Found(functional.infos, False)
            mutable = self._non_functional.get(key)
        else:
            mutable = None  # no key of either table has this base name
        if generated and mutable is not None:
            if any(
                "self" in saved.name for info in mutable.infos for saved in info.all_saved_inputs
            ):
                self._sink.error(
                    f.span,
                    f"generated '{f.name}' cannot reuse the formulas of '{mutable.canonical.name}'",
                    "those formulas read 'self', which the mutable operator overwrites; "
                    "give the functional variant its own entry",
                )
                return None
            return _Found(mutable.infos, False)
        if foreach:
            info, _, generated = foreach_info(
                f,
                self._candidates(self._functional_by_base, f.func),
                self._candidates(self._non_functional_by_base, f.func),
            )
            if info is None:
                return None
            return _Found((info,), generated)
        return None


_Candidate = tuple[FunctionSchema, DifferentiabilityInfo | None]


def _by_base(table: dict[SignatureKey, LoadedEntry]) -> dict[str, list[_Candidate]]:
    index: dict[str, list[_Candidate]] = {}
    for item in table.values():
        schema = item.canonical.func
        index.setdefault(schema.name.name.base, []).append((schema, _default(item.infos)))
    return index


def _default(infos: tuple[DifferentiabilityInfo, ...]) -> DifferentiabilityInfo | None:
    for info in infos:
        if info.dispatch_key == DEFAULT_AUTOGRAD_KEY:
            return info
    return None


def match_function(
    f: NativeFunction, plain: FamilyKey, matcher: Matcher, sink: DiagnosticSink
) -> FunctionAutograd | None:
    """``plain``: as for :meth:`Matcher.find`."""
    found = matcher.find(f, plain)
    if found is None or not found.infos:
        return None
    inplace = f.func.kind() is SchemaKind.inplace
    if inplace:
        for info in found.infos:
            for derivative in info.derivatives:
                strided = [s for s in derivative.saved_inputs if "strides_or_error" in s.expr]
                if "self" in derivative.var_names and strided:
                    sink.error(
                        derivative.span,
                        f"'.sym_strides()' in the 'self' formula cannot serve in-place '{f.name}'",
                        "give the in-place operator its own entry without strides",
                    )
    forwards: list[tuple[str, tuple[ForwardDerivative, ...]]] = []
    for info in found.infos:
        fws = info.forward_derivatives
        if fws and inplace:
            rewritten = _inplace_forward(f, info, found.exact, sink)
            fws = () if rewritten is None else (rewritten,)
        forwards.append((info.dispatch_key, fws))
    return FunctionAutograd(f.func.name, found.infos, found.exact, tuple(forwards))


def _sub(formula: str, name: str, replacement: str) -> str:
    return re.sub(ident_pattern(name), lambda m: f"{m.group(1)}{replacement}{m.group(2)}", formula)


def _inplace_forward(
    f: NativeFunction, info: DifferentiabilityInfo, exact: bool, sink: DiagnosticSink
) -> ForwardDerivative | None:
    # The in-place kernel's result *is* self; the original self is gone unless
    # the generated code clones it first (``original_self_p``).
    if len(info.forward_derivatives) != 1:
        sink.error(info.span, f"in-place '{f.name}' must have exactly one forward formula")
        return None
    fw = info.forward_derivatives[0]
    formula = fw.formula
    if uses_ident(formula, "self_p"):
        if exact:
            sink.error(
                fw.span,
                f"forward formula of in-place '{f.name}' reads 'self_p', which is overwritten",
                "use 'result' (the updated self) or 'original_self_p'",
            )
            return None
        formula = _sub(formula, "self_p", "original_self_p")
        formula = _sub(formula, "self_t", "original_self_t")
    formula = _sub(formula, "result", "self_p")
    primals = fw.required_inputs_primal
    if uses_ident(formula, "self_p"):
        primals = (*primals, "self") if primals else ("self",)
    if not exact:
        formula = _update_tangent_in_place(formula, info.name)
    original = uses_ident(formula, "original_self_p") or uses_ident(formula, "original_self_t")
    return ForwardDerivative(
        var_names=("self",),
        var_types=fw.var_types,
        formula=formula,
        required_inputs_fw_grad=fw.required_inputs_fw_grad,
        required_inputs_primal=primals,
        required_original_self_value=original,
        is_reusing_outplace_formula=not exact,
        span=fw.span,
    )


def _update_tangent_in_place(formula: str, op_name: str) -> str:
    # ``self_t.op(args)`` for this very op becomes ``self_t_raw.op_(args)``;
    # anything else is copied into the existing tangent.
    match = re.fullmatch(r"self_t.([\w]*)\((.*)\)", formula)
    if match is not None and match.group(1) == op_name and _single_call(match.group(2)):
        return f"self_t_raw.defined() ? self_t_raw.{match.group(1)}_({match.group(2)}) : {formula}"
    return f"self_t_raw.defined() ? self_t_raw.copy_({formula}) : {formula}"


def _single_call(inside: str) -> bool:
    depth = 1
    for ch in inside:
        if ch == ")":
            depth -= 1
            if depth == 0:
                return False
        elif ch == "(":
            depth += 1
    return True
