"""The public C++ API view: ``at::add(...)`` and ``Tensor::add(...)``.

One schema gives up to four C++ overloads (a :class:`CppSignatureGroup`):

* the *plain* signature, the one users call.  TensorOptions arguments are
  gathered into one ``at::TensorOptions options``, out arguments come *first*
  (``at::add_out(out, self, other)``) and defaults are kept;
* the *faithful* signature, present when the plain one rearranged something
  (the schema has TensorOptions or out arguments): arguments in schema order,
  TensorOptions scattered into ``dtype, layout, device, pin_memory``, no
  defaults.  For out= operators it is the ``_outf`` overload;
* for schemas mentioning ``SymInt``, both again with symbolic sizes and a
  ``_symint`` suffix (see Note [SymInt in C++ signatures]).

As a Tensor method, ``self`` is the implicit object and is left out.

An operator with ``manual_cpp_binding: True`` has its public C++ function
written by hand; the generated one is a *fallback binding* named
``__dispatch_<name>`` that the hand-written code may call.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import attrs

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.conventions import DEFAULT_CONVENTIONS, Conventions
from schemac.backends.aten.signatures.defaults import cpp_default
from schemac.backends.aten.signatures.naming import cpp_name
from schemac.backends.aten.signatures.signature import Signature
from schemac.backends.aten.signatures.type_map import argument_type, returns_type
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, FunctionSchema, TensorOptionsArguments
from schemac.ir.types import BaseTy, is_like

OPTIONS_SOURCE = "dtype,layout,device,pin_memory"
FALLBACK_PREFIX = "__dispatch_"


@attrs.frozen
class CppSignature(Signature):
    method: bool = False
    faithful: bool = False
    symint: bool = False
    #: The name without the ``_symint`` suffix (what generic wrappers use).
    plain_name: str = ""


@attrs.frozen
class CppSignatureGroup:
    signature: CppSignature
    faithful: CppSignature | None = None
    symint: CppSignature | None = None
    symint_faithful: CppSignature | None = None

    @property
    def most_faithful(self) -> CppSignature:
        return self.faithful or self.signature

    def all(self, *, include_symint: bool = True) -> Iterator[CppSignature]:
        """Every overload, plain first, in the order headers declare them."""
        yield self.signature
        if self.faithful is not None:
            yield self.faithful
        if include_symint:
            if self.symint is not None:
                yield self.symint
            if self.symint_faithful is not None:
                yield self.symint_faithful


def has_symint(func: FunctionSchema) -> bool:
    return any(is_like(a.type, BaseTy.SymInt) for a in func.arguments.flat_all)


def cpp_signature_group(
    fn: NativeFunction, *, method: bool = False, fallback_binding: bool = False
) -> CppSignatureGroup:
    """The overloads of ``fn``; with ``fallback_binding``, named ``__dispatch_*``."""
    return cpp_signature_group_of(
        fn.func,
        method=method,
        cpp_no_default_args=fn.cpp_no_default_args,
        conv=Conventions.of(fn),
        fallback_binding=fallback_binding,
    )


def cpp_signature_group_of(
    func: FunctionSchema,
    *,
    method: bool = False,
    cpp_no_default_args: frozenset[str] = frozenset(),
    conv: Conventions = DEFAULT_CONVENTIONS,
    fallback_binding: bool = False,
) -> CppSignatureGroup:
    rearranged = func.arguments.tensor_options is not None or bool(func.arguments.out)
    # The overloads differ in parameters and name only: one return type for the four.
    returns = returns_type(func.returns, conv)

    def make(faithful: bool, symint: bool) -> CppSignature:
        return cpp_signature(
            func,
            method=method,
            faithful=faithful,
            symint=symint,
            cpp_no_default_args=cpp_no_default_args,
            conv=conv,
            fallback_binding=fallback_binding,
            returns=returns,
        )

    symbolic = has_symint(func)
    return CppSignatureGroup(
        signature=make(False, False),
        faithful=make(True, False) if rearranged else None,
        symint=make(False, True) if symbolic else None,
        symint_faithful=make(True, True) if symbolic and rearranged else None,
    )


def cpp_signature(
    func: FunctionSchema,
    *,
    method: bool,
    faithful: bool,
    symint: bool,
    cpp_no_default_args: frozenset[str] = frozenset(),
    conv: Conventions = DEFAULT_CONVENTIONS,
    fallback_binding: bool = False,
    returns: C.CType | None = None,
) -> CppSignature:
    """``returns``: the C++ return type of ``func`` under ``conv``, if the caller has it."""
    params = tuple(
        _params(
            func,
            method=method,
            faithful=faithful,
            symint=symint,
            no_defaults=cpp_no_default_args,
            conv=conv,
        )
    )
    if faithful:
        params = tuple(p.without_default() for p in params)
    prefix = FALLBACK_PREFIX if fallback_binding else ""
    plain_name = prefix + cpp_name(func, faithful=faithful, symint=False)
    return CppSignature(
        name=prefix + cpp_name(func, faithful=faithful, symint=True) if symint else plain_name,
        params=params,
        returns=returns_type(func.returns, conv) if returns is None else returns,
        method=method,
        faithful=faithful,
        symint=symint,
        plain_name=plain_name,
    )


def _params(
    func: FunctionSchema,
    *,
    method: bool,
    faithful: bool,
    symint: bool,
    no_defaults: frozenset[str],
    conv: Conventions,
) -> Iterator[C.Param]:
    args = func.arguments
    positional = args.positional
    if method:
        positional = tuple(a for a in positional if a.name != "self")
    options = args.tensor_options
    non_out: list[Argument | TensorOptionsArguments] = [*positional]
    if options is None:
        non_out.extend(args.kwarg_only)
    else:
        non_out.extend(args.pre_tensor_options_kwarg_only)
        non_out.append(options)
        non_out.extend(args.post_tensor_options_kwarg_only)
    ordered = [*non_out, *args.out] if faithful else [*args.out, *non_out]
    for item in ordered:
        if isinstance(item, TensorOptionsArguments):
            if faithful:
                for field in item.all():
                    yield _param(field, symint, no_defaults, conv)
            else:
                yield _options_param(item)
        else:
            yield _param(item, symint, no_defaults, conv)


# Operators repeat a small set of arguments (``Tensor self`` thousands of
# times); a parameter is a pure function of the argument and the flags.
@functools.lru_cache(maxsize=8192)
def _param(arg: Argument, symint: bool, no_defaults: frozenset[str], conv: Conventions) -> C.Param:
    default = None
    if arg.default is not None and arg.name not in no_defaults:
        default = cpp_default(arg.default, arg.type, symint=symint)
    return C.Param(
        argument_type(arg.type, mutable=arg.is_write, symint=symint, conv=conv),
        arg.name,
        default,
        arg.name,
    )


def _options_param(options: TensorOptionsArguments) -> C.Param:
    default = None
    if all(a.default == "None" for a in options.all()):
        default = "{}"
    elif options.dtype.default == "long":
        # ``ScalarType dtype=long`` is the only non-None options default in use.
        default = "at::kLong"
    return C.Param(C.TENSOR_OPTIONS, "options", default, OPTIONS_SOURCE)
