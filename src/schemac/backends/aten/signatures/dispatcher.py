"""The dispatcher view: how the boxed-to-unboxed boundary sees an operator.

Arguments appear exactly in schema order, out arguments last, TensorOptions
scattered, no defaults, and sizes symbolic (``c10::SymInt``,
``c10::SymIntArrayRef``).  This is the signature of ``at::_ops::<op>::call``
and of every kernel registered for an external backend; it is the one view
that is a pure function of the schema (plus the per-operator
:class:`~schemac.backends.aten.signatures.conventions.Conventions`).
"""

from __future__ import annotations

import functools

import attrs

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.conventions import DEFAULT_CONVENTIONS, Conventions
from schemac.backends.aten.signatures.naming import dispatcher_name
from schemac.backends.aten.signatures.signature import Signature
from schemac.backends.aten.signatures.type_map import argument_type, returns_type
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, FunctionSchema


@attrs.frozen
class DispatcherSignature(Signature):
    symint: bool = True


def dispatcher_signature(fn: NativeFunction, *, symint: bool = True) -> DispatcherSignature:
    return dispatcher_signature_of(fn.func, conv=Conventions.of(fn), symint=symint)


def dispatcher_signature_of(
    func: FunctionSchema,
    *,
    conv: Conventions = DEFAULT_CONVENTIONS,
    symint: bool = True,
    name: str | None = None,
) -> DispatcherSignature:
    params = tuple(_param(a, symint, conv) for a in func.arguments.flat_all)
    return DispatcherSignature(
        name=dispatcher_name(func) if name is None else name,
        params=params,
        returns=returns_type(func.returns, conv),
        symint=symint,
    )


# See cpp_api._param: a parameter is a pure function of the argument and the flags.
@functools.lru_cache(maxsize=8192)
def _param(arg: Argument, symint: bool, conv: Conventions) -> C.Param:
    ctype = argument_type(arg.type, mutable=arg.is_write, symint=symint, conv=conv)
    return C.Param(ctype, arg.name, source=arg.name)
