"""Where PyTorch's two schema parsers disagree, sorted into named classes.

torchgen's ``FunctionSchema.parse`` (Python, used by the code generator) and
c10's ``torch._C.parse_schema`` (C++, used at run time) read the same language
differently.  :func:`classify` names the classes a disagreement falls in; the
classes, and schemac's choice for each, are documented in
docs/schema-parsers.md and pinned by ``test_c10_classes.py``.

Run it over fuzzed strings to see the classes and an example of each::

    PYTHONPATH=src python -m tests.grammar.c10_classes --examples 5000
"""

from __future__ import annotations

import argparse
import difflib
import re
import warnings
from collections.abc import Callable
from typing import Any

from schemac import SchemacError, parse_schema
from schemac.diagnostics import SchemaSemanticError

from .reference import c10_parse, strictness_classes, torchgen_parse

#: Words c10's lexer reserves (probed from c10; a test keeps this list honest).
C10_RESERVED_WORDS = frozenset(
    [
        "False",
        "None",
        "NoneType",
        "True",
        "and",
        "as",
        "assert",
        "break",
        "class",
        "continue",
        "def",
        "del",
        "elif",
        "else",
        "for",
        "global",
        "if",
        "import",
        "in",
        "is",
        "not",
        "or",
        "pass",
        "raise",
        "return",
        "while",
        "with",
    ]
)

#: Base types torchgen knows and c10 does not.
C10_UNKNOWN_TYPES = frozenset({"DimVector", "GraphModule"})


# -- torchgen accepts, c10 rejects ----------------------------------------------
def _names(schema: Any) -> list[str]:
    name = schema.name
    names = [name.name.base, name.overload_name, name.name.namespace or ""]
    names += [a.name for a in schema.arguments.flat_all]
    names += [r.name for r in schema.returns if r.name]
    return names


def _types(schema: Any) -> list[str]:
    return [str(a.type) for a in schema.arguments.flat_all] + [str(r.type) for r in schema.returns]


def free_text_names_or_defaults(schema: Any) -> bool:
    """Names or defaults that are free text to torchgen, tokens to c10."""
    return bool(strictness_classes(schema))


def reserved_word_names(schema: Any) -> bool:
    """A name is a TorchScript keyword ('def', 'None', 'return', ...)."""
    return any(n in C10_RESERVED_WORDS for n in _names(schema))


def types_unknown_to_c10(schema: Any) -> bool:
    """DimVector and GraphModule exist only in torchgen."""
    return any(re.split(r"[?\[]", t)[0] in C10_UNKNOWN_TYPES for t in _types(schema))


def custom_classes(schema: Any) -> bool:
    """c10 resolves ``__torch__.torch.classes.*`` against registered classes."""
    return any(t.startswith("__torch__.") for t in _types(schema))


def overloads_starting_with_a_digit(schema: Any) -> bool:
    """c10 lexes the overload as an identifier; torchgen allows '.0'."""
    return schema.name.overload_name[:1].isdigit()


def sized_lists_inside_lists(schema: Any) -> bool:
    """``int[2][]``, ``int[2]?[]``: c10 allows a size only on the outermost list."""
    return any(re.search(r"\[\d+\]\??\[", t) for t in _types(schema))


def required_after_default(schema: Any) -> bool:
    """A positional argument without a default follows one with a default.

    c10 asserts against it (as Python would); torchgen accepts it.
    """
    seen_default = False
    for arg in schema.arguments.flat_positional:
        if arg.default is None and seen_default:
            return True
        seen_default = seen_default or arg.default is not None
    return False


def nested_optionals(schema: Any) -> bool:
    """``T??``: c10 collapses it to ``T?`` or rejects it (``int[3]??``)."""
    return any("??" in t for t in _types(schema))


def defaults_c10_cannot_type(schema: Any) -> bool:
    """A default c10 cannot read as a value of the argument's type.

    c10 parses defaults as typed constants ('int x=[1]', 'Tensor x=1',
    'Device d=cpu' fail); torchgen keeps any text.
    """
    for arg in schema.arguments.flat_all:
        if arg.default is None:
            continue
        bare = f"f({str(arg).split('=', 1)[0]}) -> ()"
        if c10_parse(bare) is not None and c10_parse(f"f({arg}) -> ()") is None:
            return True
    return False


TORCHGEN_ONLY: dict[str, Callable[[Any], bool]] = {
    "free_text_names_or_defaults": free_text_names_or_defaults,
    "reserved_word_names": reserved_word_names,
    "types_unknown_to_c10": types_unknown_to_c10,
    "custom_classes": custom_classes,
    "nested_optionals": nested_optionals,
    "overloads_starting_with_a_digit": overloads_starting_with_a_digit,
    "sized_lists_inside_lists": sized_lists_inside_lists,
    "required_after_default": required_after_default,
    "defaults_c10_cannot_type": defaults_c10_cannot_type,
}


# -- c10 accepts, torchgen rejects ------------------------------------------------
#: schemac's semantic messages that name a rule torchgen has and c10 lacks.
_SEMANTIC_CLASSES = (
    ("annotation_on_non_tensor", "alias annotation on"),
    ("alias_set_too_large", "more than two members"),
    ("bare_kwarg_marker", "'*' is not followed"),
    ("unnamed_return_with_alias_after", "unnamed return"),
    ("tensor_options_twice", "appear twice"),
    ("kwarg_marker_twice", "'*' appears twice"),
    ("c10_only_types", "unknown type"),
)


def _c10_only_classes(text: str, c10_text: str) -> list[str]:
    """Classes for a string c10 accepts (printing ``c10_text``) and torchgen rejects.

    schemac reports the same rejections as torchgen, with a message per rule,
    so its diagnosis of the canonically spaced text names the class.
    """
    try:
        parse_schema(_canonical_spacing(text))
    except SchemaSemanticError as error:
        messages = " ".join(d.message for d in error.diagnostics)
        matched = [name for name, needle in _SEMANTIC_CLASSES if needle in messages]
        return matched or ["codegen_schema_rules"]
    except SchemacError:
        if torchgen_parse(c10_text) is None:
            return ["c10_only_syntax"]
    # Either the canonical spacing parses, or c10's own printing of the text
    # does: only the spelling was off.
    return ["non_canonical_spelling"]


def _canonical_spacing(text: str) -> str:
    text = re.sub(r"\s*,\s*", ", ", text.strip())
    text = re.sub(r"\s*->\s*", " -> ", text)
    return re.sub(r"\s+", " ", text)


# -- both accept, print differently ----------------------------------------------
def _sorted_alias_sets(text: str) -> str:
    def normalise(match: re.Match[str]) -> str:
        before, bang, after = match.group(1), match.group(2) or "", match.group(3)
        members = sorted(set(before.split("|")))
        out = "|".join(members) + bang
        if after and after != "*":
            after_members = sorted(set(after.split("|")))
            if after_members != members:
                out += " -> " + "|".join(after_members)
        elif after:
            out += " -> *"
        return f"({out})"

    return re.sub(r"\(([a-z](?:\|[a-z])*)(!?)(?: -> (\*|[a-z](?:\|[a-z])*))?\)", normalise, text)


_REPRINTS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("alias_sets_as_sets", _sorted_alias_sets),
    ("nested_optionals", lambda t: re.sub(r"\?+", "?", t.replace("Union(Scalar)?", "Scalar?"))),
    ("device_index_printed_as_int", lambda t: re.sub(r"\bDeviceIndex\b", "int", t)),
    (
        "defaults_reprinted",
        # c10 prints a string default of a non-string type raw, commas and
        # all ("ScalarType a=',a'" comes back as "a=,a"): a raw default runs
        # to the next ", " or the closing parenthesis.
        lambda t: re.sub(r"""=(\[[^\]]*\]|"[^"]*"|'[^']*'|[^)]*?)(?=, |\))""", "=D", t),
    ),
)


def _both_accept_classes(tg_text: str, c10_text: str) -> list[str]:
    """Apply each known reprinting to both texts; keep those that close the gap."""
    classes = []
    for name, normalise in _REPRINTS:
        if tg_text == c10_text:
            break
        new_tg, new_c10 = normalise(tg_text), normalise(c10_text)
        if _similarity(new_tg, new_c10) > _similarity(tg_text, c10_text):
            classes.append(name)
            tg_text, c10_text = new_tg, new_c10
    if tg_text != c10_text:
        classes.append("unclassified")
    return classes


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def classify(text: str) -> tuple[str, list[str]]:
    """(kind of disagreement, classes) for ``text``; kind is 'agree' if none.

    Kinds: 'torchgen_only' (c10 rejects), 'c10_only' (torchgen rejects),
    'printed_differently' (both accept, canonical strings differ).
    """
    tg = torchgen_parse(text)
    c10 = c10_parse(text)
    if tg is None and c10 is None:
        return "agree", []
    if tg is not None and c10 is not None:
        if str(tg) == c10:
            return "agree", []
        if free_text_names_or_defaults(tg):
            return "printed_differently", ["free_text_names_or_defaults"]
        return "printed_differently", _both_accept_classes(str(tg), c10)
    if tg is not None:
        classes = [name for name, predicate in TORCHGEN_ONLY.items() if predicate(tg)]
        return "torchgen_only", classes or ["unclassified"]
    assert c10 is not None
    return "c10_only", _c10_only_classes(text, c10)


def _main() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from . import strategies

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    found: dict[tuple[str, str], list[str]] = {}

    @settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.one_of(strategies.loose_schemas(), strategies.mutated_schemas()))
    def explore(text: str) -> None:
        kind, classes = classify(text)
        for name in classes:
            found.setdefault((kind, name), []).append(text)

    explore()
    for (kind, name), texts in sorted(found.items()):
        print(f"{kind:20} {name:35} {len(texts):6}  e.g. {min(texts, key=len)!r}")


if __name__ == "__main__":
    _main()
