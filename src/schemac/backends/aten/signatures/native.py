"""The native-kernel view: ``at::native::add_out(...)`` in NativeFunctions.h.

A kernel takes the non-out arguments then the out arguments (schema order
for both), TensorOptions scattered into four optionals, and defaults only
when the operator is not an out= variant.  Whether sizes are symbolic is the
*kernel's* choice, not the schema's: a kernel whose name contains ``_symint``
takes ``c10::SymInt``; any other kernel of the same operator takes
``int64_t`` (:func:`kernel_is_symint`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import attrs

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.conventions import DEFAULT_CONVENTIONS, Conventions
from schemac.backends.aten.signatures.defaults import cpp_default
from schemac.backends.aten.signatures.naming import native_name
from schemac.backends.aten.signatures.signature import Signature
from schemac.backends.aten.signatures.type_map import native_argument_type, returns_type
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, FunctionSchema

SYMINT_KERNEL_MARK = "_symint"

_OPTIONS_TYPES = (
    ("dtype", C.SCALAR_TYPE),
    ("layout", C.LAYOUT),
    ("device", C.DEVICE),
    ("pin_memory", C.BOOL),
)


@attrs.frozen
class NativeSignature(Signature):
    symint: bool = False


def kernel_is_symint(kernel: str) -> bool:
    return SYMINT_KERNEL_MARK in kernel


def native_signature(
    fn: NativeFunction, *, kernel: str | None = None, symint: bool | None = None
) -> NativeSignature:
    """The signature of ``kernel`` (default: the operator's default kernel name).

    ``symint`` defaults to what the kernel's name says (:func:`kernel_is_symint`).
    """
    if symint is None:
        symint = kernel is not None and kernel_is_symint(kernel)
    return native_signature_of(fn.func, conv=Conventions.of(fn), symint=symint, name=kernel)


def native_signature_of(
    func: FunctionSchema,
    *,
    conv: Conventions = DEFAULT_CONVENTIONS,
    symint: bool = False,
    name: str | None = None,
) -> NativeSignature:
    return NativeSignature(
        name=native_name(func) if name is None else name,
        params=tuple(_params(func, symint=symint, conv=conv)),
        returns=returns_type(func.returns, conv),
        symint=symint,
    )


def _params(func: FunctionSchema, *, symint: bool, conv: Conventions) -> Iterator[C.Param]:
    args = func.arguments
    with_defaults = not func.is_out_fn
    options = args.tensor_options
    kwarg_only: tuple[Argument, ...] = args.kwarg_only
    if options is not None:
        kwarg_only = args.pre_tensor_options_kwarg_only
    for arg in (*args.positional, *kwarg_only):
        yield _param(arg, symint, conv, with_defaults)
    if options is not None:
        default = "{}" if with_defaults else None
        for field, ctype in _OPTIONS_TYPES:
            # Kernels always see the options as optionals, whatever the schema says.
            yield C.Param(C.Optional(ctype), field, default, field)
        for arg in args.post_tensor_options_kwarg_only:
            yield _param(arg, symint, conv, with_defaults)
    for arg in args.out:
        yield _param(arg, symint, conv, False)


# See cpp_api._param: a parameter is a pure function of the argument and the flags.
@functools.lru_cache(maxsize=8192)
def _param(arg: Argument, symint: bool, conv: Conventions, with_default: bool) -> C.Param:
    default = None
    if with_default and arg.default is not None:
        default = cpp_default(arg.default, arg.type, symint=symint)
    ctype = native_argument_type(arg.type, mutable=arg.is_write, symint=symint, conv=conv)
    return C.Param(ctype, arg.name, default, arg.name)
