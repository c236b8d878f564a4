"""Random damage to valid YAML never crashes the loader.

Every mutant either loads or raises a :class:`SchemacError` whose diagnostics
all have a real position; any other exception is a bug (it would reach the
user as a traceback).  Mutations are byte-level and line-level, seeded, so a
failure reproduces.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from schemac.diagnostics import SchemacError
from schemac.frontend.loader import load_module
from schemac.frontend.yaml_nodes import ScalarNode, SequenceNode, parse_yaml_text, scalar_value

ROOT = Path(__file__).resolve().parents[2]
TOYOPS = ROOT / "examples" / "toyops"

#: Characters that matter to YAML or to the schema language.
_NOISE = [
    *" \t\n:-,[]{}()!?*|>'\"#&=.0123456789aAzZ_",
    " -> ",
    ", ",
    "(a!)",
    "Tensor",
    "True",
    "\n  ",
    "\n- ",
]


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    choice = rng.randrange(7)
    if choice == 0 and text:  # delete a span of characters
        at = rng.randrange(len(text))
        return text[:at] + text[at + rng.randint(1, 8) :]
    if choice == 1:  # insert noise
        at = rng.randrange(len(text) + 1)
        return text[:at] + rng.choice(_NOISE) + text[at:]
    if choice == 2 and len(lines) > 1:  # duplicate a line
        at = rng.randrange(len(lines))
        return "\n".join([*lines[: at + 1], lines[at], *lines[at + 1 :]])
    if choice == 3 and len(lines) > 1:  # swap two lines
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
        return "\n".join(lines)
    if choice == 4 and len(lines) > 1:  # drop a line
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if choice == 5 and text:  # replace a character
        at = rng.randrange(len(text))
        return text[:at] + rng.choice(_NOISE) + text[at + 1 :]
    # change indentation of a line
    at = rng.randrange(len(lines))
    lines[at] = rng.choice(["", " ", "    ", "\t"]) + lines[at].lstrip()
    return "\n".join(lines)


def _check_never_crashes(tmp_path: Path, texts: dict[str, str]) -> None:
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    try:
        load_module(
            tmp_path / "native_functions.yaml",
            tmp_path / "tags.yaml",
            tmp_path / "derivatives.yaml",
        )
    except SchemacError as error:
        for diagnostic in error.diagnostics:
            assert diagnostic.span.line >= 1 and diagnostic.span.column >= 1, diagnostic
            assert diagnostic.message


#: More with SCHEMAC_FUZZ_SEEDS=60 (3,600 mutants, about a minute).
SEEDS = int(os.environ.get("SCHEMAC_FUZZ_SEEDS", "6"))
FILES = ("native_functions.yaml", "tags.yaml", "derivatives.yaml")


@pytest.mark.parametrize("seed", range(SEEDS))
def test_mutated_yaml_never_crashes(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    originals = {name: (TOYOPS / name).read_text(encoding="utf-8") for name in FILES}
    for _ in range(60):
        target = rng.choices(FILES, weights=(6, 1, 3))[0]
        mutated = originals[target]
        for _ in range(rng.randint(1, 4)):
            mutated = _mutate(mutated, rng)
        _check_never_crashes(tmp_path, {**originals, target: mutated})


def test_arbitrary_yaml_values_never_crash(tmp_path: Path) -> None:
    """Every key of an entry given every kind of value."""
    values = ["", "3", "True", "[]", "{}", "[a, 1]", "{a: b}", "'x'", "null", "-1.5", "a, b"]
    keys = [
        "func", "variants", "dispatch", "structured", "structured_delegate", "precomputed",
        "device_guard", "device_check", "autogen", "tags", "ufunc_inner_loop",
        "cpp_no_default_args", "python_module",
    ]  # fmt: skip
    originals = {name: (TOYOPS / name).read_text(encoding="utf-8") for name in FILES}
    for key in keys:
        for value in values:
            entry = f"- func: neg(Tensor self) -> Tensor\n  {key}: {value}\n"
            if key == "func":
                entry = f"- func: {value}\n"
            _check_never_crashes(tmp_path, {**originals, "native_functions.yaml": entry})
            schema = "scale(Tensor self, Scalar factor, *, Scalar offset=0) -> Tensor"
            derivative = f"- name: {schema}\n  {key}: {value}\n"
            _check_never_crashes(tmp_path, {**originals, "derivatives.yaml": derivative})


@given(
    st.one_of(
        st.text(alphabet="yYnNtTfFoOeEsSrRuUlL~0123456789.+-_:xabc <=", max_size=8),
        st.sampled_from(
            ["yes", "No", "ON", "off", "null", "~", "", "1_000", "0x1F", "1e3", ".inf"]
        ),
    )
)
def test_scalar_values_are_typed_as_yaml_safe_load_types_them(text: str) -> None:
    """Deferred typing of plain scalars (yaml_nodes._DeferredResolver) changes no value."""
    source = f"- key: {text}\n"
    try:
        expected = yaml.safe_load(source)
    except yaml.YAMLError:
        return
    if not isinstance(expected, list) or not isinstance(expected[0], dict):
        return
    document, problems = parse_yaml_text(source, "t.yaml")
    assert document is not None and not problems
    assert isinstance(document.root, SequenceNode)
    value = document.root.value[0].value[0][1]
    if isinstance(value, ScalarNode):
        assert scalar_value(value) == expected[0]["key"]
        assert type(scalar_value(value)) is type(expected[0]["key"])
