"""Native-function entries: one ``- func:`` item of native_functions.yaml.

A :class:`NativeFunction` is the entry as written, typed: every field the real
file uses, each with the span it came from (``field_spans``) so that passes can
point their diagnostics at the exact YAML key.  Defaults that PyTorch fills in
(the CompositeImplicitAutograd kernel of an entry with no ``dispatch:``, the
kernels of synthesised variants) are *not* filled in here; the resolution pass
does that, so a dump of the front end's IR shows the file as written.
"""

from __future__ import annotations

import enum

import attrs

from schemac.diagnostics import NO_FIELD_SPANS, NO_SPAN, FieldSpans, Span, as_field_spans
from schemac.ir.names import OperatorName
from schemac.ir.schema import Argument, FunctionSchema
from schemac.ir.slots import SourceKeyed, set_source_key

_SPAN = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)


class Variant(enum.Enum):
    function = "function"
    method = "method"


class DeviceCheck(enum.Enum):
    ExactSame = "ExactSame"
    NoCheck = "NoCheck"


@attrs.frozen
class DispatchEntry:
    """One line of a ``dispatch:`` table: ``CPU, CUDA: add_kernel``."""

    keys: tuple[str, ...]
    kernel: str
    span: Span = _SPAN
    #: Span of the kernel name (the value).
    kernel_span: Span = _SPAN


@attrs.frozen
class UfuncInnerLoop:
    """``ufunc_inner_loop: {Generic: add (AllAndComplex, BFloat16, Half)}``."""

    key: str
    name: str
    supported_dtypes: tuple[str, ...]
    span: Span = _SPAN


@attrs.frozen
class Precompute:
    """``precomputed:`` of a structured kernel.

    ``replace`` maps a kernel argument name to the precomputed arguments that
    supersede it in the ``impl`` signature; ``add`` lists arguments added
    without replacing any.
    """

    replace: tuple[tuple[str, tuple[Argument, ...]], ...] = ()
    add: tuple[Argument, ...] = ()
    span: Span = _SPAN


class _FunctionViews(SourceKeyed):
    """The slot of a function's view test (Note [IR classes without __getattr__]),
    beside that of its source key (Note [Functions keyed by their source])."""

    __slots__ = ("_is_view_op",)
    _is_view_op: bool


def set_loaded_key(
    function: NativeFunction, key: str, blind: tuple[str, ...] | None = None
) -> None:
    """Record that ``function`` is exactly what loading the entry ``key`` names
    gives, and ``blind`` its blind keys (Note [Keys blind to an aspect] in
    :mod:`schemac.ir.slots`).

    Note [Functions keyed by their source]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Every key of a re-run (Note [File reuse] in ``backends/reuse.py``) encodes
    the functions it covers, and encoding a function walks its schema, its
    arguments and their types: ~60 ms a run for torch's 2,600 loaded functions,
    on an edit's critical path.  But loading an entry is, spans aside (which
    fingerprints skip), a pure function of the entry's text and the column it
    starts at, given schemac's code and options (which every key covers through
    the run key): no other entry, no other file changes a loaded function's
    compared fields (tags.yaml only adds errors, and a run with errors keeps no
    state).  So the loader records a digest of those (its *source key*) on
    each function it makes, and the fingerprints encode such a function as that
    digest instead of walking it.  The key stays exact: equal source keys mean
    equal functions, and any edit of the entry's text changes the digest; lines
    inserted above it do not, as they do not change its walked encoding.

    Only the loader sets it, on functions it has just made, and only when
    nothing outside the entry's text can change what it composes to: the file
    has no YAML anchor (so no alias can reach into another entry) and no
    directive (``%TAG`` changes what a tag means), and its marks index the
    text (CPython's C YAML parser counts bytes: the text must be ASCII).  It
    lives in a slot outside the attrs fields, so ``attrs.evolve``, copies and
    pickles (all through ``__init__``) make functions without one: a function a
    pass changed is walked as before, unless the pass says how the new value
    follows from a keyed one (:func:`~schemac.ir.slots.derive_source_key`):
    the resolution pass does for the implicit tags it adds and for each
    function's resolution, which it computes from the function alone, and
    the autogen pass for each variant it synthesises from one source function.
    """
    set_source_key(function, key, blind)


@attrs.frozen
class NativeFunction(_FunctionViews):
    func: FunctionSchema
    namespace: str = "aten"
    #: Span of the whole entry (its ``- func:`` line).
    span: Span = _SPAN
    variants: frozenset[Variant] = frozenset({Variant.function})
    #: The ``dispatch:`` table as written; None when the entry has none.
    dispatch: tuple[DispatchEntry, ...] | None = None
    structured: bool = False
    structured_delegate: OperatorName | None = None
    structured_inherits: str | None = None
    precomputed: Precompute | None = None
    device_guard: bool = True
    device_check: DeviceCheck = DeviceCheck.ExactSame
    manual_kernel_registration: bool = False
    manual_cpp_binding: bool = False
    python_module: str | None = None
    category_override: str | None = None
    autogen: tuple[OperatorName, ...] = ()
    #: Tags in the order written, without duplicates.
    tags: tuple[str, ...] = ()
    ufunc_inner_loop: tuple[UfuncInnerLoop, ...] = ()
    cpp_no_default_args: frozenset[str] = frozenset()
    use_const_ref_for_mutable_tensors: bool = False
    #: True for entries a pass synthesised (out= / functional variants).
    generated: bool = False
    #: YAML key -> span of its value, for diagnostics about one field.
    field_spans: FieldSpans = attrs.field(
        default=NO_FIELD_SPANS, converter=as_field_spans, eq=False, hash=False, repr=False
    )

    @property
    def name(self) -> OperatorName:
        return self.func.name

    # Computed once per function: synthesis, view grouping and derivative
    # matching each ask every function.
    @property
    def is_view_op(self) -> bool:
        """Whether it returns an alias of an input (or is an in-place view)."""
        try:
            return self._is_view_op
        except AttributeError:
            answer = self._returns_alias()
            object.__setattr__(self, "_is_view_op", answer)
            return answer

    def _returns_alias(self) -> bool:
        func = self.func
        for ret in func.returns:
            if ret.annotation is not None and not ret.annotation.is_write:
                return True
        if "inplace_view" in self.tags and str(func.name) not in ("resize_", "resize_as_"):
            return True
        # A plain loop, not any() over a generator: asked of every function.
        for a in func.arguments.flat_all:
            if a.annotation is not None and "*" in a.annotation.alias_set_after:
                return True
        return False

    def span_of(self, field: str) -> Span:
        """Where ``field`` was written; the entry's span if it was not."""
        span = self.field_spans.get(field)
        return self.span if span is None else span

    def kernel_for(self, key: str) -> str | None:
        """The kernel written for ``key`` in this entry's own dispatch table."""
        for entry in self.dispatch or ():
            if key in entry.keys:
                return entry.kernel
        return None
