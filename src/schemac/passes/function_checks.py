"""Rules about one native function that the loader leaves to the middle end.

The loader checks what an entry says on its own (types of values, known tags
and keys).  These rules need the resolved tags or the set of all operator
names, or they are conventions of PyTorch's code generator rather than of the
file format; each is the same rule PyTorch asserts, reported with a position.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Collection, Iterable

from schemac.diagnostics import DiagnosticSink, Span
from schemac.ir.names import BaseOperatorName
from schemac.ir.native import DeviceCheck, NativeFunction, Variant
from schemac.ir.schema import Argument
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType

#: keyword.iskeyword's set, looked up directly (one test per argument of every function).
_KEYWORDS = frozenset(keyword.kwlist)

#: Existing operators whose argument names are Python keywords; the Python
#: bindings special-case exactly these, so new ones are errors.
KEYWORD_ARGUMENT_EXCEPTIONS = frozenset(
    {
        ("_has_compatible_shallow_copy_type", "from"),
        ("random_.from", "from"),
        ("uniform_", "from"),
    }
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
        if arg_name in _KEYWORDS and (name, arg_name) not in KEYWORD_ARGUMENT_EXCEPTIONS:
            keyword_args.append(arg)
        if not mentions_dropout and "dropout" in arg_name:
            mentions_dropout = True
    # The heuristic matters only without the tag.  Out arguments do not count
    # as Generators, as in PyTorch's heuristic; "rand" decides alone.
    if "nondeterministic_seeded" not in f.tags and _looks_random(
        f,
        name,
        mentions_dropout,
        "rand" not in name and any_of_base(arguments.flat_non_out, BaseTy.Generator),
    ):
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
    written = dict(f.field_spans)
    for field in fields:
        if field in written:
            return written[field]
    return f.span


def _looks_random(
    f: NativeFunction, name: str, mentions_dropout: bool, takes_generator: bool
) -> bool:
    """PyTorch's heuristic for operators that consume random state.

    ``name``: ``str(f.name)``; ``mentions_dropout``: whether it or an argument's
    name contains "dropout"; ``takes_generator``: whether a non-out argument
    is a Generator (:func:`is_generator`).
    """
    if "rand" in name or takes_generator:
        return True
    return (
        mentions_dropout
        and "backward" not in name
        and str(f.func.name.name) != "_cudnn_init_dropout_state"
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
