"""The structured-kernel views: ``meta()`` and ``impl()`` of a structured group.

A structured operator is written once as an out= kernel split in two: a
``meta()`` function shared by all backends, which checks the inputs and
computes the output's shape (declared in ``at::meta::structured_<op>``), and
one ``impl()`` per backend that fills the preallocated output (declared in
``at::native::structured_<kernel>``, a subclass of the meta class).

* ``meta()`` takes the *functional* operator's arguments (the class is named
  after it, ``structured_add_Tensor``) and returns ``void``, or, when the
  out= entry has ``precomputed:``, a ``precompute_out<...>`` struct carrying
  the values it computed for ``impl()``;
* ``impl()`` takes the out= operator's arguments, with each argument named
  in ``precomputed:`` replaced by the values that supersede it, plus the
  added ones, then the outputs.

Types are the structured flavour (``at::OptionalTensorRef``,
``const at::ITensorListRef &``, never symbolic), see
:func:`~schemac.backends.aten.signatures.type_map.structured_argument_type`.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.aten.signatures.signature import Signature
from schemac.backends.aten.signatures.type_map import structured_argument_type
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, FunctionSchema

DEFAULT_META_BASE = "at::impl::MetaBase"
META_RETURN_ALIAS = "meta_return_ty"


@attrs.frozen
class PrecomputedField:
    """One value ``meta()`` hands to ``impl()`` (``int64_t kH``)."""

    type: C.CType
    name: str

    @property
    def template_flag(self) -> str:
        """The ``bool`` template parameter recording that the field was set."""
        return self.name.upper()


@attrs.frozen
class StructuredMeta:
    """``struct structured_<op> : <base> { <ret> meta(...); }`` and its pieces."""

    #: ``add_Tensor``: the functional operator's name; the class is ``structured_<name>``.
    name: str
    base_class: str
    meta: Signature
    precomputed: tuple[PrecomputedField, ...] = ()
    #: Where the class is declared: ATen's ``at::meta``, or an extension
    #: library's own ``<ns>::meta``.
    namespace: str = "at::meta"

    @property
    def class_name(self) -> str:
        return f"structured_{self.name}"

    @property
    def qualified_class_name(self) -> str:
        return f"{self.namespace}::{self.class_name}"

    def meta_func_defn(self) -> str:
        """The head kernels write: ``TORCH_META_FUNC(add_Tensor)(const at::Tensor & self, ...)``."""
        macro = "TORCH_PRECOMPUTE_META_FUNC" if self.precomputed else "TORCH_META_FUNC"
        return f"{macro}({self.name})({', '.join(p.defn() for p in self.meta.params)})"


@attrs.frozen
class StructuredImpl:
    """``struct structured_<kernel> : at::meta::structured_<op> { void impl(...); }``."""

    kernel: str
    meta: StructuredMeta
    impl: Signature

    @property
    def class_name(self) -> str:
        return f"structured_{self.kernel}"

    def impl_func_defn(self) -> str:
        """``TORCH_IMPL_FUNC(add_out)(const at::Tensor & self, ...)``."""
        return f"TORCH_IMPL_FUNC({self.kernel})({', '.join(p.defn() for p in self.impl.params)})"


def _param(arg: Argument) -> C.Param:
    return C.Param(structured_argument_type(arg.type), arg.name, None, arg.name)


def structured_meta(functional: FunctionSchema, out: NativeFunction) -> StructuredMeta:
    """The meta class of the group whose functional member is ``functional``
    and whose out= member (the one carrying ``structured: True``) is ``out``."""
    fields = tuple(
        PrecomputedField(C.strip_reference(structured_argument_type(a.type)), a.name)
        for a in _precomputed_arguments(out)
    )
    returns: C.CType = C.Named(META_RETURN_ALIAS) if fields else C.VOID
    meta = Signature(
        name="meta",
        params=tuple(_param(a) for a in functional.arguments.flat_non_out),
        returns=returns,
    )
    return StructuredMeta(
        name=unambiguous_name(functional),
        base_class=out.structured_inherits or DEFAULT_META_BASE,
        meta=meta,
        precomputed=fields,
    )


def structured_impl(meta: StructuredMeta, out: NativeFunction, kernel: str) -> StructuredImpl:
    """The class one backend's ``kernel`` defines for the group of ``meta``."""
    params = tuple(_param(a) for a in _impl_arguments(out))
    impl = Signature(name="impl", params=params, returns=C.VOID)
    return StructuredImpl(kernel=kernel, meta=meta, impl=impl)


def _precomputed_arguments(out: NativeFunction) -> Iterator[Argument]:
    if out.precomputed is None:
        return
    for _name, replacements in out.precomputed.replace:
        yield from replacements
    yield from out.precomputed.add


def _impl_arguments(out: NativeFunction) -> Iterator[Argument]:
    replace = dict(out.precomputed.replace) if out.precomputed is not None else {}
    for arg in out.func.arguments.flat_non_out:
        if arg.name in replace:
            yield from replace[arg.name]
        else:
            yield arg
    if out.precomputed is not None:
        yield from out.precomputed.add
    yield from out.func.arguments.out
