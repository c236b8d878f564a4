"""The valid-schema generator reaches every feature of the language.

A differential test is only as good as what its generator produces; this pins
the features listed in docs/schema-parsers.md so that a change to the
strategies cannot silently stop producing, say, sized lists or dunders.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings

from . import strategies

FEATURES = {
    **{f"type {t}": rf"\b{t}\b" for t in strategies.BASE_TYPES},
    "custom class": r"__torch__\.torch\.classes\.",
    "optional": r"[\w\]]\?",
    "list": r"\[\]",
    "sized list": r"\[\d+\]",
    "annotation (a)": r"Tensor\([a-z]\)",
    "annotation (a!)": r"Tensor\([a-z]!\)",
    "annotation (a -> *)": r"Tensor\([a-z] -> \*\)",
    "annotation (a|b)": r"Tensor\([a-z]\|[a-z]",
    "annotation (a! -> ...)": r"Tensor\([a-z]! -> ",
    "default number with exponent": r"=-?[\d.]+[eE][-+]?\d",
    "default True": r"=True\b",
    "default None": r"=None\b",
    "default string with escape": r"""=(['"]).*\\.*\1""",
    "default list": r"=\[",
    "default identifier": r"=[A-Za-z_]\w*[,)]",
    "keyword-only marker": r"\(\*, |, \*, ",
    "out argument": r"\*, .*Tensor\([a-z]!\) \w+\)",
    "scratch out argument": r"_scratch_",
    "TensorOptions": r"ScalarType\? dtype=None, Layout\? layout=None",
    "no returns": r" -> \(\)$",
    "single return": r" -> [A-Za-z_][^(]*$",
    "tuple return": r" -> \(.+, .+\)$",
    "named return": r" -> \(?.*[\w)\]?] \w+\)?$",
    "namespace": r"^\w+::",
    "overload": r"^[\w:]+\.\w+\(",
    "dunder": r"^(\w+::)?__\w+__[.(]",
    "in-place dunder": r"^(\w+::)?__i\w+__[.(]",
    "in-place name": r"^(\w+::)?[a-z]\w*_[.(]",
    "functional name": r"_functional[.(]",
    "self": r"[( ]Tensor(\(a!\))?\S* self[,)]",
}


def test_valid_generator_reaches_every_feature() -> None:
    # Which examples a derandomized run draws still depends on the Hypothesis
    # version and its settings profile, so the budget is several times what
    # any run here needed to see every feature (about 400).
    seen: set[str] = set()

    @settings(
        max_examples=1500,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(strategies.valid_schemas())
    def collect(text: str) -> None:
        seen.update(name for name, pattern in FEATURES.items() if re.search(pattern, text))

    collect()
    assert set(FEATURES) - seen == set()
