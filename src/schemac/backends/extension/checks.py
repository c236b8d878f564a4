"""What makes a module unfit for an extension library, found before any output.

Errors (every one in the module, reported together, nothing written):

* an operator in ``aten`` (or with no namespace): an extension may not add
  operators to ATen's library;
* operators in two namespaces: one extension is one ``TORCH_LIBRARY``;
* a mutating or view operator that returns an alias of an input while
  claiming ``pt2_compliant_tag``: torch.compile would refuse it;
* features of the ATen format the extension target does not build
  (``precomputed:``, ufunc inner loops, ``autogen:`` of functional variants).

Warnings (rendered the same way, the compile still succeeds; errors with ``--Werror``):

* an alias-returning operator without the tag (it works eagerly; PT2 cannot
  functionalize it);
* an operator with neither a Meta kernel, nor a structured meta function,
  nor a composite kernel: fake tensors cannot run it until a Python fake is
  registered (``torch.library.register_fake``).

Unknown tags and dispatch keys, and kernel names that are not C++ names, are
the front end's and ``cpp_names``' errors, reported before this runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from schemac.backends.registry import EmitOptions
from schemac.diagnostics import Diagnostic, InputError, Severity, Span
from schemac.ir.dispatch import COMPOSITE_KEYS
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind

PT2_TAG = "pt2_compliant_tag"
ATEN = "aten"


def library_namespace(module: Module, options: EmitOptions) -> str:
    """The one non-``aten`` namespace of ``module``; raises with every problem found.

    The warnings go to the run's log (``options.finish``): printed with the
    passes' at the end, errors under ``--Werror``.
    """
    errors, warnings = _problems(module)
    options.finish(errors, warnings)
    namespaces = [f.namespace for f in module.functions if f.namespace != ATEN]
    if not namespaces:
        raise InputError([_error(module.sources.native_functions, "no operators to compile")])
    return namespaces[0]


def _error(file: str, message: str) -> Diagnostic:
    return Diagnostic(Span.point(file, 1, 1), message, "an extension needs at least one operator")


def _problems(module: Module) -> tuple[list[Diagnostic], list[Diagnostic]]:
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    first: NativeFunction | None = None
    for f in module.functions:
        if f.generated:
            continue
        if f.namespace == ATEN:
            errors.append(
                Diagnostic(
                    f.func.name_span,
                    f"operator '{f.func.name}' is in the aten namespace",
                    "an extension library defines its own operators: write 'mylib::"
                    f"{f.func.name}' (one namespace for the whole file)",
                )
            )
            continue
        if first is None:
            first = f
        elif f.namespace != first.namespace:
            errors.append(
                Diagnostic(
                    f.func.name_span,
                    f"operator '{f.namespace}::{f.func.name}' is in a second namespace",
                    f"every operator of the library must be in '{first.namespace}'"
                    f" (line {first.span.line} set it)",
                )
            )
        for diag in _function_problems(module, f):
            (warnings if diag.severity is Severity.WARNING else errors).append(diag)
    return errors, warnings


def _function_problems(module: Module, f: NativeFunction) -> Iterator[Diagnostic]:
    aliased = [r for r in f.func.returns if r.annotation is not None]
    if aliased:
        mutating = f.func.kind() in (SchemaKind.inplace, SchemaKind.out, SchemaKind.mutable)
        what = "a mutated argument" if mutating else "an input (a view)"
        hint = (
            "return () from a mutating operator: torch.compile refuses a custom operator"
            " whose output aliases an input"
        )
        if PT2_TAG in f.tags:
            yield Diagnostic(
                aliased[0].span,
                f"'{f.func.name}' carries {PT2_TAG} but returns {what}",
                hint,
            )
        else:
            yield Diagnostic(
                aliased[0].span,
                f"'{f.func.name}' returns {what}: it works eagerly, but torch.compile"
                " cannot functionalize it",
                hint,
                Severity.WARNING,
            )
    if f.precomputed is not None:
        yield Diagnostic(
            f.span_of("precomputed"),
            "precomputed: is not supported by the extension target",
            "compute the values in the impl() function",
        )
    if f.ufunc_inner_loop:
        yield Diagnostic(
            f.span_of("ufunc_inner_loop"),
            "ufunc_inner_loop: is not supported by the extension target",
            "write CPU and CUDA kernels in dispatch:",
        )
    for name in f.autogen:
        if not name.overload.startswith("out"):
            yield Diagnostic(
                f.span_of("autogen"),
                f"autogen: '{name}' is not an out= variant; the extension target only"
                " makes out= variants",
                "write the functional variant and its kernel yourself",
            )
    if not _has_fake(module, f):
        yield Diagnostic(
            f.func.name_span,
            f"'{f.func.name}' has no Meta kernel and no composite kernel, so fake tensors"
            " (torch.compile, opcheck) cannot run it",
            f"add a Meta: kernel, or register a Python fake:"
            f' @torch.library.register_fake("{f.namespace}::{f.func.name}")',
            Severity.WARNING,
        )


def _has_fake(module: Module, f: NativeFunction) -> bool:
    if f.structured or f.structured_delegate is not None:
        return True
    resolution = module.resolutions.get(f.func.name)
    if resolution is None:
        return True
    keys = set(resolution.dispatch)
    return "Meta" in keys or bool(keys & set(COMPOSITE_KEYS))
