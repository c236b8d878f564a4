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

from schemac.backends.cppmodel import check_identifier, identifier_problem
from schemac.diagnostics import NO_SPAN, Diagnostic, InputError, Span
from schemac.ir.defaults import default_problem
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.ir.types import Type


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


def function_diagnostics(function: NativeFunction, usable: set[str]) -> Iterator[Diagnostic]:
    """Every bad name and default of ``function`` (a name may be reported twice).

    ``usable`` holds names already known to be usable; names found usable are added.
    """
    too_long = _length_diagnostic(function)
    if too_long is not None:
        yield too_long
    yield from _duplicate_diagnostics(function)
    yield from _default_diagnostics(function)
    for role, name, span in _named(function):
        if name in usable:
            continue
        diagnostic = check_identifier(name, span) or _macro_diagnostic(name, span)
        if diagnostic is None:
            usable.add(name)
        else:
            yield attrs.evolve(diagnostic, message=f"{role} {diagnostic.message}")


class CleanFunctions:
    """Whether a function has nothing to report, in one pass over its names and arguments.

    Nearly every function is clean, and the diagnostics above walk each one
    three times (names, duplicates, defaults) through generators.  This walk
    visits the same names and defaults once, answering only "clean or not";
    a function it does not pass is handed to those diagnostics, which then
    report exactly what they always did, in the same order
    (tests/backends/test_cpp_names.py checks the two agree).  Memos per call
    of :func:`cpp_name_diagnostics` only: whether a name is usable, or a
    default fits a type, does not depend on where it is written.
    """

    def __init__(self) -> None:
        #: Names known to be usable C++ identifiers (none contains ``::``).
        self.usable: set[str] = set()
        # Keyed by the type's identity (types are shared between arguments,
        # and a (str, int) key hashes in C); each entry keeps its type alive,
        # so an identity cannot be reused within the memo.
        self._fits: dict[tuple[str, int], tuple[Type, bool]] = {}

    def _name_ok(self, name: str) -> bool:
        if name in self.usable:
            return True
        if identifier_problem(name) is not None or name in MACRO_NAMES:
            return False
        self.usable.add(name)
        return True

    def _default_ok(self, default: str, ty: Type) -> bool:
        key = (default, id(ty))
        hit = self._fits.get(key)
        if hit is None:
            hit = self._fits[key] = (ty, default_problem(default, ty) is None)
        return hit[1]

    def __call__(self, function: NativeFunction) -> bool:
        """True only if the diagnostics above would report nothing for ``function``."""
        schema = function.func
        operator = schema.name.name
        if len(operator.base) > MAX_OPERATOR_NAME:
            return False
        usable = self.usable
        if operator.unqualified not in usable and not self._name_ok(operator.unqualified):
            return False
        arguments = schema.arguments.flat_all
        # Set operations run in C: one set of the names finds both a name
        # written twice and (nearly always) that every name is known usable.
        names = {argument.name for argument in arguments}
        if len(names) != len(arguments):
            return False
        if not names <= usable and not all(map(self._name_ok, names)):
            return False
        for argument in arguments:
            default = argument.default
            if default is not None and not self._default_ok(default, argument.type):
                return False
            annotation = argument.annotation
            if annotation is not None and annotation.is_write and str(argument.type) == "Tensor?":
                return False
        for ret in schema.returns:
            if ret.name is not None and ret.name not in usable and not self._name_ok(ret.name):
                return False
        for entry in function.dispatch or ():
            # A usable name has no ``::``, so a kernel found whole is one good part.
            if entry.kernel not in usable and not all(map(self._name_ok, entry.kernel.split("::"))):
                return False
        # Rare fields (a few hundred functions of torch's): the general walk.
        if (
            function.structured_inherits is not None
            or function.ufunc_inner_loop
            or function.precomputed is not None
        ):
            return all(self._name_ok(name) for _, name, _ in _named(function))
        return True


def cpp_name_diagnostics(module: Module) -> tuple[Diagnostic, ...]:
    """One diagnostic per distinct bad name or default and position, in no particular order."""
    found: dict[tuple[Span, str], Diagnostic] = {}
    clean = CleanFunctions()
    # ~18,500 names on torch's files but only a few thousand distinct ones:
    # whether a name is usable does not depend on where it is written.
    usable = clean.usable
    # Only the few functions the one-pass check does not pass are walked by
    # the diagnostics; a clean function has nothing to report.
    for function in module.functions:
        if not clean(function):
            for bad in function_diagnostics(function, usable):
                found.setdefault((bad.span, bad.message), bad)
    # Tags become enumerators (at::Tag::<name>), namespaces C++ namespaces:
    # checked here, so that `check` refuses a keyword or a macro as `compile` does.
    named = {t.name: t.span for t in module.tags}
    for function in module.functions:  # a namespace once, at its first operator
        named.setdefault(function.namespace, function.func.name_span)
    for name, span in named.items():
        wrong = check_identifier(name, span) or _macro_diagnostic(name, span)
        if wrong is not None:
            found.setdefault((span, wrong.message), wrong)
    from schemac.backends.python.routing import python_module_diagnostics

    for wrong in python_module_diagnostics(module.functions):
        found.setdefault((wrong.span, wrong.message), wrong)
    return tuple(found.values())


def check_cpp_names(module: Module) -> None:
    """Raise :class:`~schemac.diagnostics.InputError` with :func:`cpp_name_diagnostics`, if any."""
    problems = cpp_name_diagnostics(module)
    if problems:
        raise InputError(problems)
