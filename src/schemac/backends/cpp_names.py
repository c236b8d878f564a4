"""Every YAML name that becomes a C++ name, checked once before any backend runs.

Operator names become functions (``at::add``), argument and return names
become parameters and struct fields, kernel names become ``at::native::``
functions, ``structured_inherits`` a base class.  A name that is not a C++
identifier, or is a C++ keyword (``default``, ``template``), would make every
C++ backend print code that does not compile, so the driver rejects it here,
at the YAML position, before any output exists.  (Namespaces and tags are
checked where they are printed, by the schema target.)  Argument defaults are
checked here too: the grammar (like torchgen) takes any literal, but the C++
and Python APIs can only spell one that fits the argument's type.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.cppmodel import check_identifier
from schemac.diagnostics import NO_SPAN, Diagnostic, Span
from schemac.ir.defaults import default_problem
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction


def _known(span: Span, fallback: Span) -> Span:
    return fallback if span == NO_SPAN else span


def _named(function: NativeFunction) -> Iterator[tuple[str, str, Span]]:
    schema = function.func
    yield "operator name", schema.name.name.unqualified, schema.name_span
    for argument in schema.arguments.flat_all:
        yield "argument name", argument.name, argument.span
    for ret in schema.returns:
        if ret.name is not None:
            yield "return name", ret.name, ret.span
    for entry in function.dispatch or ():
        # ``ns::kernel`` names a kernel in another namespace: check each part.
        for part in entry.kernel.split("::"):
            yield "kernel name", part, entry.kernel_span
    if function.structured_inherits is not None:
        for part in function.structured_inherits.split("::"):
            yield "structured_inherits", part, function.span_of("structured_inherits")
    for loop in function.ufunc_inner_loop:
        yield "ufunc inner loop", loop.name, loop.span
    if function.precomputed is not None:
        span = function.precomputed.span
        for name, replacements in function.precomputed.replace:
            yield "precomputed argument", name, span
            for argument in replacements:
                yield "precomputed argument", argument.name, _known(argument.span, span)
        for argument in function.precomputed.add:
            yield "precomputed argument", argument.name, _known(argument.span, span)


#: For a default :func:`~schemac.ir.defaults.default_problem` rejects.
_DEFAULT_HINT = (
    "None needs an optional type (T?), a list is written [1, 2], a string is quoted, "
    "a sized list (int[2]) may take one number"
)


def _duplicate_diagnostics(function: NativeFunction) -> Iterator[Diagnostic]:
    """Two arguments of one name, or a mutable optional Tensor: no C++ signature has them.

    Both parse (torchgen's parser takes them too, so parse_schema must), but
    PyTorch's files never write them and the C++ API cannot express them.
    """
    seen: set[str] = set()
    for argument in function.func.arguments.flat_all:
        if argument.is_write and str(argument.type) == "Tensor?":
            yield Diagnostic(
                argument.span,
                f"mutable optional argument '{argument.name}' (Tensor(a!)?) is not supported",
                "the C++ API passes a mutable Tensor by reference, which cannot be "
                "optional; make it 'Tensor(a!)' or drop the '!'",
            )
        if argument.name in seen:
            yield Diagnostic(
                argument.span,
                f"argument name '{argument.name}' is used twice in '{function.func.name}'",
                "rename one of them",
            )
        seen.add(argument.name)


def _default_diagnostics(function: NativeFunction) -> Iterator[Diagnostic]:
    """Defaults the backends would have to print as C++ or Python and cannot."""
    for argument in function.func.arguments.flat_all:
        if argument.default is not None:
            problem = default_problem(argument.default, argument.type)
            if problem is not None:
                yield Diagnostic(argument.span, problem, _DEFAULT_HINT)


#: Identifiers the headers every generated file includes define as macros: a
#: parameter or function of that name would be macro-expanded into nonsense.
MACRO_NAMES = frozenset(
    {
        "NULL", "EOF", "errno", "assert", "stdin", "stdout", "stderr", "offsetof",
        "TORCH_API", "C10_API", "TORCH_CHECK", "C10_EXPORT", "C10_IMPORT", "CAFFE2_API",
        "AT_ERROR", "C10_UNUSED", "C10_NODISCARD", "C10_NOINLINE", "C10_ALWAYS_INLINE",
        "C10_LIKELY", "C10_UNLIKELY", "TORCH_INTERNAL_ASSERT", "TORCH_WARN", "TORCH_LIBRARY",
        "TORCH_LIBRARY_IMPL", "TORCH_FN", "HUGE_VAL", "INFINITY", "NAN",
    }
)  # fmt: skip


def _macro_diagnostic(name: str, span: Span) -> Diagnostic | None:
    if name not in MACRO_NAMES:
        return None
    return Diagnostic(
        span,
        f"'{name}' is a macro in the C/C++ or torch headers and cannot name a C++ entity",
        "rename it in the YAML file",
    )


#: Per-operator files are named ``ATen/ops/<name>_<longest suffix>.h`` (about 60
#: characters besides the name) and output paths stop at 200 characters.
MAX_OPERATOR_NAME = 120


def _length_diagnostic(function: NativeFunction) -> Diagnostic | None:
    base = function.func.name.name.base
    if len(base) <= MAX_OPERATOR_NAME:
        return None
    return Diagnostic(
        function.func.name_span,
        f"operator name '{base[:40]}...' is {len(base)} characters long, more than "
        f"{MAX_OPERATOR_NAME}",
        "the per-operator header file names are built from it; use a shorter name",
    )


def cpp_name_diagnostics(module: Module) -> tuple[Diagnostic, ...]:
    """One diagnostic per distinct bad name or default and position, in no particular order."""
    found: dict[tuple[Span, str], Diagnostic] = {}
    # ~18,500 names on torch's files but only a few thousand distinct ones:
    # whether a name is usable does not depend on where it is written.
    usable: set[str] = set()
    for function in module.functions:
        too_long = _length_diagnostic(function)
        if too_long is not None:
            found.setdefault((too_long.span, too_long.message), too_long)
        for bad in (*_duplicate_diagnostics(function), *_default_diagnostics(function)):
            found.setdefault((bad.span, bad.message), bad)
        for role, name, span in _named(function):
            if name in usable:
                continue
            diagnostic = check_identifier(name, span) or _macro_diagnostic(name, span)
            if diagnostic is None:
                usable.add(name)
            else:
                diagnostic = attrs.evolve(diagnostic, message=f"{role} {diagnostic.message}")
                found.setdefault((span, diagnostic.message), diagnostic)
    # Tags become enumerators (at::Tag::<name>), namespaces C++ namespaces; the
    # schema target checks them for keywords, a macro name would get past it.
    named = {t.name: t.span for t in module.tags}
    for function in module.functions:  # a namespace once, at its first operator
        named.setdefault(function.namespace, function.func.name_span)
    for name, span in named.items():
        macro = _macro_diagnostic(name, span)
        if macro is not None:
            found.setdefault((span, macro.message), macro)
    return tuple(found.values())
