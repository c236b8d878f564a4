"""Which inputs and outputs a backward formula makes the node save.

A backward node runs long after the forward call, so everything its formula
reads must be stored when the node is built.  Saving a whole tensor keeps its
memory alive; when a formula only reads a cheap property (``self.sym_sizes()``,
``other.scalar_type()``, ``zeros_like(self)``) PyTorch saves just that
property and the formula is rewritten to read the saved copy
(``self_sym_sizes``).  This module performs that rewrite, in PyTorch's order
(variable by variable, property pattern by property pattern), so the saved
variables and their names are the ones PyTorch's runtime expects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import attrs

from schemac.ir.autograd import SavedAttribute, SavedProperty
from schemac.ir.types import BaseTy, BaseType, OptionalType, Type


def ident_pattern(name: str) -> str:
    """``name`` as a whole identifier (PyTorch's definition: not next to a word char)."""
    return rf"(^|\W){re.escape(name)}($|\W)"


def uses_ident(formula: str, name: str) -> bool:
    """Whether ``re.search(ident_pattern(name), formula)`` would match.

    Written with ``str.find``: it runs ~10,000 times per compile, and looking
    the pattern up in ``re``'s cache cost more than the search.  A character is
    a word character for ``\\w`` exactly when it is alphanumeric or ``_``.
    """
    if not name:
        return re.search(ident_pattern(name), formula) is not None
    start = formula.find(name)
    if start < 0:
        return False  # the usual answer, decided by one search
    size = len(formula)
    length = len(name)
    while start >= 0:
        # A word character is alphanumeric or '_' (tested inline: a call per
        # neighbour would cost more than the test); " " stands for either end.
        end = start + length
        before = formula[start - 1] if start else " "
        after = formula[end] if end < size else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = formula.find(name, start + 1)
    return False


@attrs.frozen
class _Rule:
    """``pattern`` (with ``{}`` for the variable) -> a saved property."""

    pattern: str
    #: Text every match contains; rules whose anchor is absent are skipped unmatched.
    anchor: str
    prop: SavedProperty
    #: The save-time expression from the variable name; None: the matched text.
    expr: Callable[[str], str] | None = None
    #: What the formula reads at run time instead of the match; None: the saved name.
    replacement: Callable[[str], str] | None = None


def _opt_sizes(name: str) -> str:
    return (
        f"{name}.has_value() ? std::optional<c10::SymIntArrayRef>({name}->sym_sizes())"
        " : std::nullopt"
    )


_RULES: tuple[_Rule, ...] = (
    _Rule(r"{}\.sym_sizes\(\)", ".sym_sizes()", SavedProperty.sym_sizes),
    _Rule(r"{}->sym_sizes\(\)", "->sym_sizes()", SavedProperty.sym_sizes_opt, _opt_sizes),
    _Rule(
        r"{}\.sym_blocksize\(\)",
        ".sym_blocksize()",
        SavedProperty.sym_blocksize_opt,
        lambda n: f"at::sparse_csr::getSymIntBlockSize({n})",
    ),
    _Rule(r"{}\.options\(\)", ".options()", SavedProperty.options),
    _Rule(
        r"zeros_like\({}\)",
        "zeros_like(",
        SavedProperty.info,
        lambda n: n,
        lambda n: f"{n}_info.zeros()",
    ),
    _Rule(r"{}\.sym_size\((-?\w+)\)", ".sym_size(", SavedProperty.sym_argsize),
    _Rule(r"{}\.numel\(\)", ".numel()", SavedProperty.numel),
    _Rule(r"{}\.sym_numel\(\)", ".sym_numel()", SavedProperty.sym_numel),
    _Rule(r"to_args_sizes\({}\)", "to_args_sizes(", SavedProperty.args_sizes),
    _Rule(r"to_args_sizes_symint\({}\)", "to_args_sizes_symint(", SavedProperty.args_sizes_symint),
    _Rule(r"to_args_scalartypes\({}\)", "to_args_scalartypes(", SavedProperty.args_scalartypes),
    _Rule(r"TensorGeometry\({}\)", "TensorGeometry(", SavedProperty.geometry),
    _Rule(r"{}\.scalar_type\(\)", ".scalar_type()", SavedProperty.scalar_type),
    _Rule(r"{}\.dim\(\)", ".dim()", SavedProperty.dim),
    _Rule(
        r"{}\.sym_strides\(\)",
        ".sym_strides()",
        SavedProperty.sym_strides,
        lambda n: f'strides_or_error({n}, "{n}")',
    ),
    _Rule(r"{}\.layout\(\)", ".layout()", SavedProperty.layout),
    _Rule(r"{}\.is_conj\(\)", ".is_conj()", SavedProperty.conjugate),
)

#: Matches where any rule's anchor occurs.
_ANY_ANCHOR = re.compile("|".join(re.escape(rule.anchor) for rule in _RULES))

#: Calls that are never allowed because they are not SymInt-aware.
FORBIDDEN_CALLS: tuple[tuple[str, str], ...] = (
    (r"(\.|->)sizes\(\)", "use .sym_sizes() instead of .sizes() in derivative formulas"),
    (r"(\.|->)size\(-?\d+\)", "use .sym_size(dim) instead of .size(dim) in derivative formulas"),
    (r"(\.|->)strides\(\)", "use .sym_strides() instead of .strides() in derivative formulas"),
)

_OPTIONAL_STRING = OptionalType(BaseType(BaseTy.str))


class StridesNotSupported(Exception):
    """``x.sym_strides()`` in a formula that computes more than ``x``'s gradient."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def save_variables(
    formula: str,
    variables: tuple[tuple[str, Type | None], ...],
    var_names: tuple[str, ...],
) -> tuple[str, tuple[SavedAttribute, ...]]:
    """Rewrite ``formula`` to read saved properties; return it and what is saved.

    Raises :class:`StridesNotSupported` for a ``sym_strides()`` the runtime
    cannot save (the caller turns it into a positioned diagnostic).
    """
    # A property pattern matches the variable only as a whole name: PyTorch's
    # also matches the tail of a longer one (``grad_self.sym_sizes()`` would
    # save ``self``'s sizes); no formula in PyTorch's file relies on that, as
    # the conformance test shows.
    saved: list[SavedAttribute] = []
    # Rewrites only ever remove anchors (no replacement contains one; a test
    # checks), so the rules whose anchor is absent now stay unmatched.
    rules: list[_Rule] | None = None
    for name, ty in variables:
        if name not in formula:
            continue  # nothing to substitute or save; skips compiling patterns
        if rules is None:  # only once some variable occurs in the formula
            # One search decides for most formulas that no rule can match.
            if _ANY_ANCHOR.search(formula) is None:
                rules = []
            else:
                rules = [rule for rule in _RULES if rule.anchor in formula]
        for rule in rules:
            if rule.anchor not in formula:
                continue
            formula = re.sub(
                rule.pattern.format(rf"(?<![\w.>]){re.escape(name)}"),
                _Saver(rule, name, ty, var_names, saved),
                formula,
            )
        # The class test first: == between types of different classes makes
        # two Python-level __eq__ calls.
        if type(ty) is OptionalType and ty == _OPTIONAL_STRING:
            # Saved optional strings are handed to formulas as string views.
            formula = re.sub(
                rf"\b{re.escape(name)}\b",
                f"{name}.has_value() ? std::optional<std::string_view>({name}.value())"
                " : std::nullopt",
                formula,
            )
        if uses_ident(formula, name):
            saved.append(SavedAttribute(name, name, ty, SavedProperty.value, name))
    return formula, tuple(saved)


@attrs.frozen
class _Saver:
    """Replaces one match of a rule and records what gets saved."""

    rule: _Rule
    name: str
    ty: Type | None
    var_names: tuple[str, ...]
    saved: list[SavedAttribute]

    def __call__(self, match: re.Match[str]) -> str:
        rule, name = self.rule, self.name
        prop_arg: str | None = None
        suffix = rule.prop.value
        if rule.prop is SavedProperty.sym_argsize:
            prop_arg = match.group(1)
            suffix += prop_arg.replace("-", "minus_")
        if rule.prop is SavedProperty.sym_strides and self.var_names != (name,):
            raise StridesNotSupported(name)
        expr = rule.expr(name) if rule.expr is not None else match.group(0)
        self.saved.append(SavedAttribute(name + suffix, name, self.ty, rule.prop, expr, prop_arg))
        return rule.replacement(name) if rule.replacement is not None else name + suffix


def dedup_saved(items: Sequence[SavedAttribute]) -> tuple[SavedAttribute, ...]:
    """First occurrence of each saved name, in order."""
    if not items:
        return ()
    seen: set[str] = set()
    result: list[SavedAttribute] = []
    for item in items:
        if item.name not in seen:
            seen.add(item.name)
            result.append(item)
    return tuple(result)


GRAD_INDEX = re.compile(r"(?:^|\W)grads\[(\d+)\]")


def used_gradient_indices(formula: str) -> tuple[int, ...]:
    return tuple(int(i) for i in GRAD_INDEX.findall(formula))
