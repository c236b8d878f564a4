"""Rules about one native function that the loader leaves to the middle end.

The loader checks what an entry says on its own (types of values, known tags
and keys).  These rules need the resolved tags or the set of all operator
names, or they are conventions of PyTorch's code generator rather than of the
file format; each is the same rule PyTorch asserts, reported with a position.
Where a release changed a rule (the randomness heuristic, the operators
allowed a keyword as argument name), the rule's data is the target release's
profile (:class:`FunctionRules`).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Collection, Iterable

import attrs

from schemac.diagnostics import DiagnosticSink, Span
from schemac.ir.names import BaseOperatorName
from schemac.ir.native import DeviceCheck, NativeFunction, Variant
from schemac.ir.schema import Argument
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType
from schemac.profiles import ReleaseProfile

#: keyword.iskeyword's set, looked up directly (one test per argument of every function).
_KEYWORDS = frozenset(keyword.kwlist)


@attrs.frozen
class FunctionRules:
    """The release-dependent data of the rules below, from a release profile."""

    #: ``(operator, argument)`` pairs whose argument may be a Python keyword:
    #: the Python bindings special-case exactly these, so new ones are errors.
    keyword_exceptions: frozenset[tuple[str, str]]
    #: Substrings that keep a name containing "rand" from looking random.
    random_exemptions: tuple[str, ...]
    #: Base names of dropout operators that are not random.
    dropout_not_random: frozenset[str]

    @classmethod
    def of(cls, profile: ReleaseProfile) -> FunctionRules:
        pairs = (item.partition(":") for item in profile.ordered("keyword_argument_exceptions"))
        return cls(
            frozenset((op, arg) for op, _, arg in pairs),
            profile.ordered("random_name_exemptions"),
            profile.names("dropout_not_random"),
        )


#: In-place views that have no out-of-place view twin by design.
#: See Note [resize_ in Functionalization] in PyTorch.
INPLACE_VIEWS_WITHOUT_VIEW = frozenset({"resize_", "resize_as_"})


#: The variants an out= operator may have.
_FUNCTION_ONLY = frozenset({Variant.function})


def check_function(
    f: NativeFunction,
    base_names: Callable[[], Collection[BaseOperatorName]],
    sink: DiagnosticSink,
    rules: FunctionRules,
) -> None:
    """``base_names``: every operator's base name, asked for only when a rule needs it
    (rarely: collecting them costs more than all the rules that run on every function)."""
    func = f.func
    name = str(func.name)
    arguments = func.arguments
    if arguments.out and f.variants != _FUNCTION_ONLY:
        sink.error(
            f.span_of("variants"),
            f"out= operator '{name}' must only have the function variant",
            "remove 'method' from 'variants' (Python binds out= results only for functions)",
        )

    if f.cpp_no_default_args:
        defaulted = {a.name for a in func.arguments.flat_all if a.default is not None}
        for missing in sorted(f.cpp_no_default_args - defaulted):
            sink.error(
                f.span_of("cpp_no_default_args"),
                f"cpp_no_default_args names '{missing}', which is not an argument with a default",
            )

    if name.startswith("_foreach") and f.device_check is not DeviceCheck.NoCheck:
        sink.error(
            first_span(f, "device_check", "func"),
            f"foreach operator '{name}' must use 'device_check: NoCheck'",
            "foreach kernels take a slow path for tensors on different devices",
        )

    # One walk over the arguments serves the keyword rule and the randomness
    # heuristic; the keyword errors come after the randomness one, as each
    # rule reports in turn.
    keyword_args: list[Argument] = []
    mentions_dropout = "dropout" in name
    for arg in arguments.flat_all:
        arg_name = arg.name
        if arg_name in _KEYWORDS and (name, arg_name) not in rules.keyword_exceptions:
            keyword_args.append(arg)
        if not mentions_dropout and "dropout" in arg_name:
            mentions_dropout = True
    # The heuristic matters only without the tag.  Out arguments do not count
    # as Generators, as in PyTorch's heuristic; "rand" decides alone.
    if "nondeterministic_seeded" not in f.tags and _looks_random(f, name, mentions_dropout, rules):
        sink.error(
            first_span(f, "tags", "func"),
            f"'{name}' looks random but lacks the 'nondeterministic_seeded' tag",
            "add 'tags: nondeterministic_seeded' (or rename it if it is deterministic)",
        )

    for arg in keyword_args:
        sink.error(
            arg.span,
            f"argument name '{arg.name}' is a Python keyword",
            "the Python bindings cannot use it; rename the argument",
        )

    if (
        "inplace_view" in f.tags
        and name not in INPLACE_VIEWS_WITHOUT_VIEW
        and str(func.name.name) != "set_"
    ):
        base = func.name.name
        if not base.inplace:
            sink.error(
                f.span_of("tags"),
                f"'{name}' is tagged inplace_view but its name does not end in '_'",
                "in-place operators are named with a trailing underscore",
            )
        elif base.without_inplace() not in base_names():
            sink.error(
                f.span_of("tags"),
                f"'{name}' is tagged inplace_view but there is no view operator "
                f"'{base.without_inplace()}'",
                "add the out-of-place view operator with a matching schema",
            )


def first_span(f: NativeFunction, *fields: str) -> Span:
    """The span of the first of ``fields`` the entry wrote; the entry's otherwise."""
    for field in fields:
        span = f.field_spans.get(field)
        if span is not None:
            return span
    return f.span


def _looks_random(
    f: NativeFunction, name: str, mentions_dropout: bool, rules: FunctionRules
) -> bool:
    """PyTorch's heuristic for operators that consume random state.

    ``name``: ``str(f.name)``; ``mentions_dropout``: whether it or an argument's
    name contains "dropout".  A name with "rand" decides alone, unless the
    release exempts it (``_philox_`` names since 2.15, from ``rules``); then,
    as for any name, taking a Generator (not as an out argument) or being a
    forward dropout does.
    """
    if "rand" in name and not any(part in name for part in rules.random_exemptions):
        return True
    if any_of_base(f.func.arguments.flat_non_out, BaseTy.Generator):
        return True
    return (
        mentions_dropout
        and "backward" not in name
        and str(f.func.name.name) not in rules.dropout_not_random
    )


def any_of_base(arguments: Iterable[Argument], base: BaseTy) -> bool:
    """``any(is_like(a.type, base) for a in arguments)``, with is_like inlined.

    Asked of every argument of every function: two calls per argument fewer.
    """
    for arg in arguments:
        ty = arg.type
        while type(ty) is OptionalType or type(ty) is ListType:
            ty = ty.elem
        if type(ty) is BaseType and ty.name is base:
            return True
    return False
