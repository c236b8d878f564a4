"""Rules about one native function that the loader leaves to the middle end.

The loader checks what an entry says on its own (types of values, known tags
and keys).  These rules need the resolved tags or the set of all operator
names, or they are conventions of PyTorch's code generator rather than of the
file format; each is the same rule PyTorch asserts, reported with a position.
"""

from __future__ import annotations

import keyword

from schemac.diagnostics import DiagnosticSink, Span
from schemac.ir.names import BaseOperatorName
from schemac.ir.native import DeviceCheck, NativeFunction, Variant
from schemac.ir.types import BaseTy, is_like

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


def check_function(
    f: NativeFunction, base_names: frozenset[BaseOperatorName], sink: DiagnosticSink
) -> None:
    func = f.func
    name = str(f.name)
    if func.is_out_fn and f.variants != frozenset({Variant.function}):
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

    if _looks_random(f, name) and "nondeterministic_seeded" not in f.tags:
        sink.error(
            first_span(f, "tags", "func"),
            f"'{name}' looks random but lacks the 'nondeterministic_seeded' tag",
            "add 'tags: nondeterministic_seeded' (or rename it if it is deterministic)",
        )

    for arg in func.arguments.flat_all:
        if keyword.iskeyword(arg.name) and (name, arg.name) not in KEYWORD_ARGUMENT_EXCEPTIONS:
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
        elif base.without_inplace() not in base_names:
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


def _looks_random(f: NativeFunction, name: str) -> bool:
    """PyTorch's heuristic for operators that consume random state (``name``: ``str(f.name)``)."""
    if "rand" in name:
        return True
    # Plain loops rather than any() over generators: this runs for every function.
    arguments = f.func.arguments
    for part in (arguments.positional, arguments.kwarg_only):
        for a in part:
            if is_like(a.type, BaseTy.Generator):
                return True
    mentions_dropout = "dropout" in name
    if not mentions_dropout:
        for a in arguments.flat_all:
            if "dropout" in a.name:
                mentions_dropout = True
                break
    return (
        mentions_dropout
        and "backward" not in name
        and str(f.func.name.name) != "_cudnn_init_dropout_state"
    )
