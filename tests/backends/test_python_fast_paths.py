"""The python target's shortcuts agree with the plain definitions they stand for.

Each shortcut answers a question about a schema more cheaply (a substring
test on the schema's text, a memo keyed by identity); a schema generated
here may contain the words the shortcuts look for in any place - types,
argument and return names, overload names - and both answers must match.
"""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from schemac import parse_schema
from schemac.backends.aten.signatures.cpp_api import has_symint
from schemac.backends.python.dispatch import CallMemo, takes_symint
from schemac.backends.python.operators import UNTRACED_OPERATORS, is_traceable, python_bindings
from schemac.backends.python.signatures import ArgumentMemo, cpp_function_name, python_argument
from schemac.backends.python.skips import PythonSkips
from schemac.diagnostics import SchemacError, Span
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Annotation, Argument, FunctionSchema
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, is_like
from schemac.profiles import reference_profile
from schemac.profiles.catalog import load_profile, supported_releases

_TYPES = ("Tensor", "Tensor?", "Tensor[]", "int", "SymInt", "SymInt[]", "SymInt[2]", "SymInt?",
          "Storage", "Storage?", "Storage[]", "Scalar", "int[]")  # fmt: skip
_NAMES = ("x", "y", "SymInt", "Storage", "self", "z")
_OPERATORS = ("f", "f.SymInt", "f.Storage", "Storage", "SymInt_f", "_pin_memory")
_RETURNS = ("Tensor", "Tensor[]", "Tensor?", "int", "SymInt", "Storage", "()", "Tensor Storage",
            "(int SymInt, Tensor y)")  # fmt: skip


@st.composite
def _schemas(draw: st.DrawFn) -> FunctionSchema:
    arguments = [
        f"{draw(st.sampled_from(_TYPES))} {name}"
        for name in draw(st.lists(st.sampled_from(_NAMES), max_size=4, unique=True))
    ]
    operator = draw(st.sampled_from(_OPERATORS))
    text = f"{operator}({', '.join(arguments)}) -> {draw(st.sampled_from(_RETURNS))}"
    try:
        return parse_schema(text)
    except SchemacError:
        assume(False)
        raise


def _traceable_by_definition(function: NativeFunction) -> bool:
    func = function.func
    if func.name.name.base in UNTRACED_OPERATORS:
        return False
    if not any(is_like(r.type, BaseTy.Tensor) for r in func.returns):
        return False
    return all(a.type != BaseType(BaseTy.Storage) for a in func.arguments.flat_all)


@settings(max_examples=300, deadline=None)
@given(_schemas())
def test_takes_symint_is_has_symint(schema: FunctionSchema) -> None:
    assert takes_symint(schema) == has_symint(schema)


@settings(max_examples=300, deadline=None)
@given(_schemas())
def test_is_traceable_follows_its_definition(schema: FunctionSchema) -> None:
    function = NativeFunction(schema)
    assert is_traceable(function) == _traceable_by_definition(function)


def test_the_shortcuts_on_torchs_functions(schemac_module) -> None:  # type: ignore[no-untyped-def]
    for function in schemac_module.functions:
        assert takes_symint(function.func) == has_symint(function.func)
        assert is_traceable(function) == _traceable_by_definition(function)


# Fresh type objects per draw, so that equal types are often distinct objects.
_TYPE_MAKERS = (
    lambda: BaseType(BaseTy.Tensor),
    lambda: OptionalType(BaseType(BaseTy.Tensor)),
    lambda: BaseType(BaseTy.int),
    lambda: ListType(BaseType(BaseTy.int)),
    lambda: ListType(BaseType(BaseTy.int), 2),
    lambda: OptionalType(BaseType(BaseTy.int)),
)
_SHARED_TYPES = tuple(make() for make in _TYPE_MAKERS)
#: Defaults each of those types can take.
_TYPE_DEFAULTS: tuple[tuple[str | None, ...], ...] = (
    (None,), (None, "None"), (None, "1", "2"), (None, "[1]"), (None, "1", "[1, 2]"),
    (None, "None", "1"),
)  # fmt: skip


@st.composite
def _arguments(draw: st.DrawFn) -> Argument:
    index = draw(st.integers(0, len(_TYPE_MAKERS) - 1))
    ty = _SHARED_TYPES[index] if draw(st.booleans()) else _TYPE_MAKERS[index]()
    annotation = draw(
        st.sampled_from(
            (None, Annotation(("a",)), Annotation(("a",), True), Annotation(("b",), True))
        )
    )
    return Argument(
        draw(st.sampled_from(("x", "self"))),
        ty,
        draw(st.sampled_from(_TYPE_DEFAULTS[index])),
        annotation,
        Span("f.yaml", draw(st.integers(1, 3)), 1, 1, 2),
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(_arguments(), min_size=2, max_size=8))
def test_argument_memo_shares_exactly_equal_arguments(arguments: list[Argument]) -> None:
    # What a PythonArgument and the views keyed on its identity read of an argument.
    def value(arg: Argument) -> tuple[object, ...]:
        return (arg.name, arg.type, arg.default, arg.is_write)

    memo = ArgumentMemo()
    made = memo(tuple(arguments))
    for first, python_first in zip(arguments, made, strict=True):
        assert python_first == python_argument(first)
        for second, python_second in zip(arguments, made, strict=True):
            assert (python_first is python_second) == (value(first) == value(second))
    assert memo(tuple(arguments)) == made


def test_plain_calls_bind_every_parsed_argument(schemac_module) -> None:  # type: ignore[no-untyped-def]
    """dispatch_call binds a plain call (no TensorOptions, no out=) as ``dict(parsed)``.

    That stands for its general loop, which binds each parser argument, in
    order, to its parsed expression: checked here for every such call of
    torch's bindings.
    """
    bindings = python_bindings(schemac_module)
    memo = CallMemo(bindings.arguments)
    checked = 0
    for _, per_module in bindings.per_module:
        for binding in per_module:
            for group in binding.groups:
                sig = group.signature
                for function in (group.base, group.out):
                    if function is None or function.func.is_out_fn or sig.tensor_options:
                        continue
                    if function.func.arguments.tensor_options is not None:
                        continue
                    parsed = memo.parsed(sig)
                    by_loop = {arg.name: parsed[arg.name] for arg in sig.arguments()}
                    assert list(parsed.items()) == list(by_loop.items())
                    checked += 1
    assert checked > 2000


def _skipped_by_definition(patterns: tuple[str, ...], name: str) -> bool:
    """A name is skipped when one of the release's patterns matches all of it."""
    return any(re.fullmatch(pattern, name) for pattern in patterns)


def _skip_rules() -> list[tuple[tuple[str, ...], PythonSkips]]:
    rules = []
    for release in supported_releases():
        profile = load_profile(release)
        rules.append((profile.ordered("python_skipped_name_patterns"), PythonSkips.of(profile)))
    return rules


_SKIP_RULES = _skip_rules()
#: The patterns' own text, with the edits that decide a match at their ends.
_SKIP_WORDS = sorted(
    {
        word + suffix
        for patterns, _ in _SKIP_RULES
        for pattern in patterns
        for word in (pattern, pattern.lstrip("_"), re.sub(r"[^a-z_]", "", pattern))
        for suffix in ("", "_", "_out", "x", "_backward")
    }
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_SKIP_WORDS), st.sampled_from(("", "_", "x")))
def test_the_plain_name_skips_follow_the_patterns(word: str, prefix: str) -> None:
    # A plain-name pattern is answered by a set lookup, the rest by the regex.
    for patterns, skips in _SKIP_RULES:
        name = prefix + word
        assert skips.is_skipped_name(name) == _skipped_by_definition(patterns, name), name


def test_the_skips_on_torchs_functions(schemac_module) -> None:  # type: ignore[no-untyped-def]
    profile = reference_profile()
    patterns, skips = profile.ordered("python_skipped_name_patterns"), PythonSkips.of(profile)
    for function in schemac_module.functions:
        name = cpp_function_name(function.func)
        assert skips.is_skipped_name(name) == _skipped_by_definition(patterns, name), name


def test_dispatch_facts_are_let_go_after_their_last_expected_ask() -> None:
    """CallMemo.expect: the facts are computed once, dropped after the last ask
    counted, and computed again (the same) only if asked once more."""
    twice = NativeFunction(parse_schema("f.a(Tensor self) -> Tensor"))
    unexpected = NativeFunction(parse_schema("g(Tensor self) -> Tensor"))
    memo = CallMemo()
    memo.expect([twice, twice])
    first = memo.facts(twice)
    assert memo.facts(twice) is first  # the second ask: a hit, then let go
    assert id(twice) not in memo._facts
    assert memo.facts(twice) == first  # asked once more than counted: the same facts
    kept = memo.facts(unexpected)
    assert memo.facts(unexpected) is kept  # not counted: kept, as without expect


def test_a_sources_counted_asks_are_its_bindings_asks(schemac_module) -> None:  # type: ignore[no-untyped-def]
    """BindingSource.facts_asked counts, before any signature is made, the asks
    binding_view makes of the binding made from the source (binding_facts_asked):
    every source of torch's bindings."""
    from collections import Counter

    from schemac.backends.python.bindings import binding_facts_asked
    from schemac.backends.python.operators import Signatures, binding_sources, operator_binding

    sources = binding_sources(schemac_module)
    signatures = Signatures()
    checked = 0
    for _, items in sources.per_module:
        for source in items:
            binding = operator_binding(source, signatures)
            assert binding is not None
            counted = Counter(map(id, source.facts_asked()))
            assert counted == Counter(map(id, binding_facts_asked(binding))), source.python_name
            checked += 1
    assert checked > 1500
