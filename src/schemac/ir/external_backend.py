"""An out-of-tree backend's YAML (torchgen's ``gen_backend_stubs`` format), as written.

A device vendor lists the operators its dispatch key implements
(``supported``), those it overrides autograd for (``autograd``, registered to
``Autograd<Backend>``), the kernels that take symbolic sizes (``symint``) and,
beyond torchgen, the structured groups whose ``impl()`` alone it writes
(``structured``).  Every entry keeps the span of the text it came from, so
the checks against native_functions.yaml (an unknown operator, a family split
between ``supported`` and ``autograd``) point at the exact line.

The class only records what the file says; what the names mean (which
function, which group) is decided where the module is known.
"""

from __future__ import annotations

import attrs

from schemac.diagnostics import NO_SPAN, Span


@attrs.frozen
class BackendOp:
    """One operator name of a list (``add.Tensor``), where it was written."""

    name: str
    span: Span = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)


def _ops(values: tuple[BackendOp, ...] | list[BackendOp]) -> tuple[BackendOp, ...]:
    return tuple(values)


def _strings(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.frozen
class ExternalBackend:
    """The whole backend YAML; see docs/backend_yaml.md for each key."""

    #: ``XLA``, ``PrivateUse1``: the dispatch key the kernels register to.
    backend: str
    #: Where the kernel class lives (``torch_xla``, ``my::device``).
    cpp_namespace: str
    file: str
    #: ``<Backend>NativeFunctions`` when the file does not name one.
    class_name: str | None = None
    supported: tuple[BackendOp, ...] = attrs.field(default=(), converter=_ops)
    autograd: tuple[BackendOp, ...] = attrs.field(default=(), converter=_ops)
    symint: tuple[BackendOp, ...] = attrs.field(default=(), converter=_ops)
    #: schemac's extension: structured groups the backend implements by ``impl()``.
    structured: tuple[BackendOp, ...] = attrs.field(default=(), converter=_ops)
    #: Only gates the generated out=/in-place wrappers (torchgen's meaning).
    use_out_as_primary: bool = False
    device_guard: bool = False
    #: schemac's extension: headers every registration file includes.
    extra_headers: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    backend_span: Span = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)
    class_name_span: Span = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)
    autograd_span: Span = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)

    @property
    def kernel_class(self) -> str:
        return self.class_name or f"{self.backend}NativeFunctions"

    @property
    def autograd_key(self) -> str:
        return f"Autograd{self.backend}"
