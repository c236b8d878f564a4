"""Shortcuts in reading formulas: known names without tokenising, identifiers without regexes.

``all_names_known`` must never say True when ``free_names`` finds a name the
check would report; these tests compare the two on tricky formulas and on
every formula of torch's derivatives.yaml.  ``uses_ident`` must agree with the
regular expression it replaces.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemac.ir.module import Module
from schemac.passes.derivatives_names import all_names_known, free_names
from schemac.passes.derivatives_saved import ident_pattern, uses_ident

KNOWN = frozenset({"grad", "self", "other", "result", "x"})
CALLABLES = frozenset({"mul", "sum", "add"})


def reported(formula: str) -> list[str]:
    """What the name check reports: unknown variables, and calls to unknown functions."""
    return [
        n.name
        for n in free_names(formula)
        if n.name not in KNOWN and not (n.is_call and n.name in CALLABLES)
    ]


TRICKY = [
    "mul(grad, self)",
    "grad * add",  # a callable used as a variable is reported
    "grad.foo() + self->bar + at::baz(self) + std::vector<int>{}",
    "foo::grad",  # a qualifier is never reported
    'mul(grad, "unknown")',  # a name inside a string is not a name
    "mul(grad, self) /* unknown */",
    "[&](const Tensor& t) { return mul(t, grad); }",  # lambda parameters
    "grad * 1e-3",  # the tail of a number is not a name
    "grad . unknown",
    "mul (grad, self)",
    "sum{grad}",
    "unknown(grad)",
    "unknown",
    "grad -> unknown",
    "x.unknown::y",
]


@pytest.mark.parametrize("formula", TRICKY)
def test_shortcut_is_sound_on_tricky_formulas(formula: str) -> None:
    if reported(formula):
        assert not all_names_known(formula, KNOWN, CALLABLES)


def test_shortcut_takes_plain_formulas() -> None:
    assert all_names_known(
        "mul(grad, self.sym_sizes()) + at::zeros({}, x.options())", KNOWN, CALLABLES
    )
    assert not all_names_known("grad * add", KNOWN, CALLABLES)
    assert not all_names_known("unknown(grad)", KNOWN, CALLABLES)


def test_shortcut_is_sound_on_torch_formulas(real_module: Module) -> None:
    """Leave out each free name of each formula in turn: the shortcut must notice."""
    texts = {f.text for e in real_module.derivatives for g in e.dispatch for f in g.backward}
    texts |= {f.text for e in real_module.derivatives for g in e.dispatch for f in g.forward}
    checked = 0
    for text in sorted(texts):
        names = free_names(text)
        everything = frozenset(n.name for n in names)
        for missing in everything:
            rest = everything - {missing}
            assert not all_names_known(text, rest, frozenset()), (text, missing)
            as_variable = any(n.name == missing and not n.is_call for n in names)
            if all_names_known(text, rest, frozenset({missing})):
                assert not as_variable, (text, missing)
            checked += 1
    assert checked > 1000


_TEXT = st.text(alphabet=st.sampled_from("ab_1 .()-é٣\n"), max_size=12)


@given(formula=_TEXT, name=st.text(alphabet=st.sampled_from("ab_1é٣."), min_size=1, max_size=3))
def test_uses_ident_is_the_regex_search(formula: str, name: str) -> None:
    expected = re.search(ident_pattern(name), formula) is not None
    assert uses_ident(formula, name) == expected


def test_saving_never_adds_a_property_anchor(real_module: Module) -> None:
    """save_variables only tries the rules whose anchor the formula had at the start."""
    from schemac.passes.derivatives_saved import _RULES, StridesNotSupported, save_variables
    from schemac.passes.derivatives_signature import cpp_arguments

    anchors = [rule.anchor for rule in _RULES]
    replacements = [r.replacement("x") for r in _RULES if r.replacement is not None]
    assert not any(a in text for a in anchors for text in replacements)
    by_name = {f.name: f for f in real_module.functions}
    checked = 0
    for entry in real_module.derivatives:
        f = by_name.get(entry.schema.name)
        if f is None:
            continue
        variables = cpp_arguments(f.func)
        for group in entry.dispatch:
            for formula in group.backward:
                try:
                    rewritten, _ = save_variables(formula.text, variables, formula.variables)
                except StridesNotSupported:
                    continue
                before = {a for a in anchors if a in formula.text}
                assert {a for a in anchors if a in rewritten} <= before, formula.text
                checked += 1
    assert checked > 500


@given(
    formula=st.lists(
        st.sampled_from(
            [
                "grad",
                "self",
                "self_sym_sizes",
                "other_numel",
                "x",
                "mul",
                "i",
                "q",
                "(",
                ")",
                ".",
                ",",
                " ",
                "*",
            ]
        ),
        max_size=10,
    ).map("".join),
    variables=st.lists(st.sampled_from(["self", "other", "x"]), unique=True),
    foreach=st.booleans(),
)
def test_two_tier_backward_names_decide_as_the_full_set(
    formula: str, variables: list[str], foreach: bool
) -> None:
    """The small set, then the full one, accepts exactly what the full set does."""
    from schemac.passes.derivatives_formulas import FormulaScope, _BackwardNames
    from schemac.passes.derivatives_vocabulary import CPP_TYPES, CPP_WORDS

    scope = FormulaScope(CALLABLES)
    names = _BackwardNames(("grad_x",), tuple((v, None) for v in variables), foreach, scope)
    full = names.all()
    assert names.common <= full

    def known(allowed: set[str]) -> bool:
        return all_names_known(formula, allowed, scope.callables, CPP_TYPES, CPP_WORDS)

    assert (known(names.common) or known(full)) == known(full)


def test_any_anchor_search_is_the_rule_filter(real_module: Module) -> None:
    """save_variables skips the rules when one search finds no anchor."""
    from schemac.passes.derivatives_saved import _ANY_ANCHOR, _RULES

    texts = {f.text for e in real_module.derivatives for g in e.dispatch for f in g.backward}
    found = set()
    for text in texts:
        expected = any(rule.anchor in text for rule in _RULES)
        assert (_ANY_ANCHOR.search(text) is not None) == expected, text
        found.add(expected)
    assert found == {True, False}
