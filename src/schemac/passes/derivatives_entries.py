"""derivatives.yaml entries -> differentiability infos, one per autograd key.

An entry's schema names one operator, but formulas are resolved against the
entry's *canonical* function: among the operators sharing its signature, the
one whose base name is the entry's (``add`` for ``add.Tensor``, ``add_`` for
an in-place entry), preferring neither an out= nor a ``.functional`` overload.
Node names are handed out in file order (see
:mod:`schemac.passes.derivatives_naming`).  View operators' ``_copy`` twins
then inherit the view's infos unless they have an entry of their own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable

import attrs

from schemac.diagnostics import DiagnosticSink
from schemac.ir.autograd import DEFAULT_AUTOGRAD_KEY, DifferentiabilityInfo
from schemac.ir.derivatives import DerivativeEntry, DispatchFormulas
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import FunctionSchema, SchemaKind
from schemac.ir.slots import derive_source_key
from schemac.passes.derivatives_formulas import FormulaScope, analyse_key
from schemac.passes.derivatives_naming import NodeNamer, view_copy_node_name
from schemac.passes.derivatives_saved import dedup_saved
from schemac.passes.derivatives_signature import (
    FamilyKey,
    SignatureKey,
    view_copy_key,
)

#: Names the generated C++ uses itself, so no argument may take them.
_RESERVED_ARGUMENT_NAMES = {
    "grad_input_mask": "the backward node passes its input mask under this name",
    "result": "formulas use it for the operator's output",
}


@attrs.frozen
class LoadedEntry:
    """The infos of one entry, keyed by its canonical function's schema."""

    canonical: NativeFunction
    infos: tuple[DifferentiabilityInfo, ...]


def base_name(schema: FunctionSchema) -> str:
    """``add``, ``add_``, ``__iand__``: the operator name without overload or namespace."""
    return schema.name.name.unqualified


#: Loaded entries by the name of the function they belong to.  Names are unique
#: in a module, so a name stands for its function without hashing whole schemas.
Loaded = dict[OperatorName, LoadedEntry]


def load_entries(
    functions: tuple[NativeFunction, ...],
    find_function: Callable[[OperatorName], NativeFunction | None],
    entries: tuple[DerivativeEntry, ...],
    scope: FormulaScope,
    sink: DiagnosticSink,
    keys: list[FamilyKey],
) -> tuple[Loaded, tuple[str, ...]]:
    """``find_function``: the module's (``Module.find_function``, whose index the
    backends use too); ``keys``: each function's plain signature key (its
    schema's family key), in order."""
    # Only the signatures of the entries' functions are looked up: functions
    # with another base name (the key's first part, a string) are not hashed
    # whole.  The lists keep module order.
    wanted = set()
    for entry in entries:
        found = find_function(entry.schema.name)
        if found is not None:
            wanted.add(found.func.name.name.base)
    by_signature: dict[Hashable, list[NativeFunction]] = defaultdict(list)
    for f, plain in zip(functions, keys, strict=True):
        if plain[0] in wanted:
            by_signature[plain].append(f)
    namer = NodeNamer()
    loaded: Loaded = {}
    used_keys: list[str] = []
    for entry in entries:
        found = find_function(entry.schema.name)
        # Equal schemas print alike (printing is canonical), and both texts are
        # remembered from parsing (Note [Schemas that print as written]): two
        # strings compare for far less than two schemas' IR.
        if found is None or str(found.func) != str(entry.schema):
            sink.error(entry.schema.span, f"no operator '{entry.schema}' in the module")
            continue
        name = base_name(entry.schema)
        # The plain signature key is the schema's family key (computed already).
        canonical = _canonical(by_signature[found.func.family_key], name)
        if canonical is None:
            sink.error(
                entry.schema.span,
                f"cannot find the operator '{name}' whose formulas these are",
                "an entry must name a functional or in-place operator",
            )
            continue
        if not _check_reserved(canonical, entry, sink):
            continue
        infos: list[DifferentiabilityInfo] = []
        operator = canonical.func.name
        for group in entry.dispatch:
            if group.key not in used_keys:
                used_keys.append(group.key)
            analysis = analyse_key(
                canonical,
                name,
                group.backward,
                group.forward,
                entry.output_differentiability,
                scope,
                sink,
            )
            differentiability = entry.output_differentiability
            if entry.output_differentiability_conditions is not None:
                differentiability = (True,)
            node = namer.next_name(name, group.key) if analysis.args_with_derivatives else None
            info = DifferentiabilityInfo(
                name=name,
                operator=operator,
                dispatch_key=group.key,
                node=node,
                derivatives=analysis.derivatives,
                forward_derivatives=analysis.forward_derivatives,
                all_saved_inputs=dedup_saved(
                    [v for d in analysis.derivatives for v in d.saved_inputs]
                ),
                all_saved_outputs=dedup_saved(
                    [v for d in analysis.derivatives for v in d.saved_outputs]
                ),
                available_named_gradients=analysis.available_named_gradients,
                used_named_gradients=tuple(
                    sorted({g for d in analysis.derivatives for g in d.named_gradients})
                ),
                args_with_derivatives=analysis.args_with_derivatives,
                non_differentiable_arg_names=analysis.non_differentiable_arg_names,
                output_differentiability=differentiability,
                output_differentiability_conditions=entry.output_differentiability_conditions,
                span=group.span,
            )
            _derive_info_key(canonical, info, entry, group)
            infos.append(info)
        _check_output_differentiability(canonical, entry, sink)
        if operator in loaded:
            sink.error(
                entry.schema.span,
                f"a second entry for the formulas of '{operator}'",
                "in-place and functional entries of one operator must differ in schema",
            )
            continue
        loaded[operator] = LoadedEntry(canonical, tuple(infos))
    return loaded, tuple(used_keys)


def _derive_info_key(
    canonical: NativeFunction,
    info: DifferentiabilityInfo,
    entry: DerivativeEntry,
    group: DispatchFormulas,
) -> None:
    """Note [Infos keyed by their source] in :mod:`schemac.ir.autograd`: ``info``
    is made from ``canonical`` and these words of the entry alone (the formula
    scope decides only diagnostics), so its key is derived from the function's,
    and each forward formula's from the info's."""
    words = (
        "derivatives-info",
        info.name,
        group.key,
        info.node,
        tuple((formula.variables, formula.text) for formula in group.backward),
        tuple((formula.variables, formula.text) for formula in group.forward),
        entry.output_differentiability,
        entry.output_differentiability_conditions,
    )
    # The repr of strings, bools and None in tuples reads back unambiguously,
    # and holds no NUL (which the fingerprints' encoding reserves).
    derive_source_key(canonical, info, repr(words))
    for index, forward in enumerate(info.forward_derivatives):
        derive_source_key(info, forward, f"forward {index}")


def _canonical(candidates: list[NativeFunction], name: str) -> NativeFunction | None:
    for f in candidates:
        # is_functional_fn, is_out_fn and base_name, read directly (three calls fewer each).
        func_name = f.func.name
        if (
            "functional" not in func_name.overload
            and not f.func.arguments.out
            and func_name.name.unqualified == name
        ):
            return f
    # Operators with only an in-place variant keep their formulas there.
    if candidates and base_name(candidates[0].func) == name + "_":
        return candidates[0]
    return None


def _check_reserved(f: NativeFunction, entry: DerivativeEntry, sink: DiagnosticSink) -> bool:
    ok = True
    # The schema's names: the C++ arguments' but for the TensorOptions quartet
    # packed as 'options', none of which is reserved.
    names = [a.name for a in f.func.arguments.flat_all]
    for reserved, why in _RESERVED_ARGUMENT_NAMES.items():
        if reserved in names:
            sink.error(
                entry.schema.span,
                f"'{f.name}' has an argument named '{reserved}'",
                f"rename it in native_functions.yaml: {why}",
            )
            ok = False
    return ok


def _check_output_differentiability(
    f: NativeFunction, entry: DerivativeEntry, sink: DiagnosticSink
) -> None:
    flags = entry.output_differentiability
    if flags is None:
        return
    span = entry.span_of("output_differentiability")
    if len(flags) != len(f.func.returns):
        sink.error(
            span,
            f"output_differentiability has {len(flags)} entries but '{f.name}' has "
            f"{len(f.func.returns)} outputs",
            "give one True/False per output",
        )
    elif False in flags and f.func.kind() is SchemaKind.inplace:
        sink.error(
            span,
            f"output of in-place '{f.name}' marked not differentiable",
            "an in-place output must stay differentiable so its version counter is updated",
        )


def add_view_copy_infos(
    loaded: Loaded, functions: tuple[NativeFunction, ...], keys: list[FamilyKey]
) -> None:
    """Give each view's ``_copy`` twin the view's infos, unless it has its own."""
    copies = _view_copies(functions, keys)
    added: Loaded = {}
    for item in loaded.values():
        copy = copies.get(item.canonical.name)
        if copy is None or copy.name in loaded:
            continue
        infos = tuple(_view_copy_info(info, copy) for info in item.infos)
        added[copy.name] = LoadedEntry(copy, infos)
    loaded.update(added)


def _view_copy_info(info: DifferentiabilityInfo, copy: NativeFunction) -> DifferentiabilityInfo:
    """The view's ``info`` as its ``_copy`` twin ``copy`` has it."""
    name = _copy_name(info.name)
    node = view_copy_node_name(info.node)
    twin = attrs.evolve(info, name=name, operator=copy.name, node=node)
    # Note [Infos keyed by their source]: the three fields set are the whole change.
    derive_source_key(info, twin, repr(("view-copy", name, str(copy.name), node)))
    return twin


def _copy_name(name: str) -> str:
    base, _, rest = name.partition(".")
    return f"{base}_copy.{rest}"


def is_view_op(f: NativeFunction) -> bool:
    """Whether ``f`` returns an alias of an input (or is an in-place view)."""
    return f.is_view_op


def _view_copies(
    functions: tuple[NativeFunction, ...], keys: list[FamilyKey]
) -> dict[OperatorName, NativeFunction]:
    """View operator name -> its non-aliasing functional ``_copy`` twin.

    ``keys``: the functions' plain signature keys, in order.  Only functional
    operators whose view-copy key has a view's base name can be a twin, so
    only those keys are hashed whole.
    """
    views: list[tuple[NativeFunction, SignatureKey]] = []
    functional: list[tuple[NativeFunction, SignatureKey]] = []
    for f, plain in zip(functions, keys, strict=True):
        func = f.func
        if f.is_view_op:
            if not func.name.name.inplace:
                views.append((f, view_copy_key(plain)))
        elif func.kind() is SchemaKind.functional:
            functional.append((f, view_copy_key(plain)))
    view_bases = {key[0] for _, key in views}
    copies: dict[SignatureKey, NativeFunction] = {}
    for f, key in functional:
        if key[0] in view_bases:
            copies.setdefault(key, f)
    result: dict[OperatorName, NativeFunction] = {}
    for view, view_key in views:
        copy = copies.get(view_key)
        if copy is not None:
            result[view.func.name] = copy
    return result


__all__ = ["DEFAULT_AUTOGRAD_KEY", "Loaded", "LoadedEntry", "add_view_copy_infos", "load_entries"]
