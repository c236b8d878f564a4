"""``match-derivatives``: attach derivatives.yaml's formulas to native functions.

The pass reads ``Module.derivatives`` (entries as written) and
``Module.functions`` (after ``autogen-variants``, so generated variants can
borrow formulas) and fills ``Module.autograd``: for each function that has
derivative information, one :class:`~schemac.ir.autograd.DifferentiabilityInfo`
per autograd key, with its backward node name, saved variables, formulas and
forward-mode formulas.  It does what PyTorch's autograd code generator does
when it loads derivatives.yaml, in three steps, each in its own module:

- :mod:`~schemac.passes.derivatives_entries`: entry -> canonical function ->
  infos (formula analysis in :mod:`~schemac.passes.derivatives_formulas`,
  node names in :mod:`~schemac.passes.derivatives_naming`);
- view ``_copy`` twins inherit their view's infos;
- :mod:`~schemac.passes.derivatives_match`: each function finds its infos
  (exact entry, functional twin, mutable twin, foreach reference).

Every formula is checked on the way: unknown names and calls, out-of-range
``grads[i]``, misuse of ``grad``/``grads``, wrong ``output_differentiability``
lengths.  All problems are reported together as a PassError.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from schemac.diagnostics import DiagnosticSink, PassError
from schemac.ir.autograd import AutogradTable, FunctionAutograd
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.passes.base import HelperNames, Pass, PassContext
from schemac.passes.derivatives_entries import add_view_copy_infos, load_entries
from schemac.passes.derivatives_formulas import FormulaScope
from schemac.passes.derivatives_match import Matcher, match_function
from schemac.passes.derivatives_signature import FamilyKey
from schemac.passes.derivatives_vocabulary import CPP_TYPES


def formula_scope(
    functions: tuple[NativeFunction, ...],
    extra_helpers: frozenset[str],
    helpers: HelperNames | None = None,
    left_out: frozenset[str] = frozenset(),
) -> FormulaScope:
    """Every unqualified function a formula may call in this module.

    ``helpers``: the autograd helpers of the target (the reference release's
    profile list when not given, as not authoritative).
    """
    if helpers is None:
        helpers = PassContext().helper_names()
    operators: set[str] = set()
    # Overloads share their base name object (the parser shares them), so each
    # distinct one is spelled once.
    for base in {f.func.name.name for f in functions}:
        name = base.unqualified
        plain = name.rstrip("_")
        operators.update((name, plain, f"{name}_symint", f"{plain}_symint"))
    # Operators whose entries failed to load are callable too: a call to one
    # is not an error of its own (PassContext.left_out).
    for missing in left_out:
        operators.update((missing, f"{missing}_", f"{missing}_symint", f"{missing}__symint"))
    operators.update(helpers.names, CPP_TYPES, extra_helpers)
    return FormulaScope(frozenset(operators), helpers.authoritative, helpers.origin)


@attrs.frozen
class MatchDerivatives(Pass):
    name: ClassVar[str] = "match-derivatives"
    summary: ClassVar[str] = (
        "match derivatives.yaml formulas to functions; name backward nodes; check formulas"
    )
    requires: ClassVar[tuple[str, ...]] = ("generated-variants",)
    provides: ClassVar[tuple[str, ...]] = ("autograd-infos",)

    #: Functions a formula may call besides ATen operators and PyTorch's helpers.
    extra_helpers: frozenset[str] = frozenset()

    def run(self, ctx: PassContext, module: Module) -> Module:
        sink = DiagnosticSink()
        scope = formula_scope(
            module.functions, self.extra_helpers, ctx.helper_names(), ctx.left_out
        )
        # One list, in function order: every step walks the functions in order,
        # so no step needs to look keys up by name.
        functions = module.functions
        # The plain signature keys (family keys, computed by grouping already);
        # the other two keys are derived where needed, for fewer functions.
        keys: list[FamilyKey] = [f.func.family_key for f in functions]  # type: ignore[misc]
        loaded, used_keys = load_entries(
            functions, module.find_function, module.derivatives, scope, sink, keys
        )
        add_view_copy_infos(loaded, functions, keys)
        matcher = Matcher(loaded, sink)
        matched: list[FunctionAutograd] = []
        for f, key in zip(functions, keys, strict=True):
            found = match_function(f, key, matcher, sink)
            if found is not None:
                matched.append(found)
        ctx.finish(sink, PassError)
        # Module.evolve: the functions are unchanged, so is their name index.
        return module.evolve(autograd=AutogradTable(tuple(matched), used_keys))
