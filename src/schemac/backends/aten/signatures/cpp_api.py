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
from schemac.ir.types import BaseTy, Type, is_like

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
                    yield _param_of(field, symint, no_defaults, conv)
            else:
                yield _options_param(item)
        else:
            yield _param_of(item, symint, no_defaults, conv)


def _param_of(
    arg: Argument, symint: bool, no_defaults: frozenset[str], conv: Conventions
) -> C.Param:
    default = None if arg.name in no_defaults else arg.default
    return _param(arg.type, arg.is_write, arg.name, default, symint, conv)


# Operators repeat a small set of arguments (``Tensor self`` thousands of
# times); a parameter is a pure function of what it reads of the argument and
# the flags.
#
# Note [Parameter memos keyed by what they read]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The parameter memos of the signature views (here, in ``dispatcher`` and
# ``native``) were keyed by the ``Argument`` itself.  Hashing one hashes its
# annotation too, and attrs caches each hash on the object as an int subclass
# of 64 bytes: ~18,000 of them on torch's functions (arguments, annotations,
# returns, types), ~1.2 MiB made in every process that computes views, the
# two processes of a split ``-t headers`` each.  Keyed by the fields the
# parameter is made from (the type, interned and hashed once per distinct
# type, the name, the default, whether it is written), no argument is hashed,
# and arguments that differ only in what a view does not print (a
# dispatcher parameter has no default) share one entry.  A field read here
# must be in the key: each memo's function takes nothing else of the argument.
@functools.lru_cache(maxsize=8192)
def _param(
    ty: Type, mutable: bool, name: str, default_value: str | None, symint: bool, conv: Conventions
) -> C.Param:
    default = None if default_value is None else cpp_default(default_value, ty, symint=symint)
    return C.Param(
        argument_type(ty, mutable=mutable, symint=symint, conv=conv), name, default, name
    )


def _options_param(options: TensorOptionsArguments) -> C.Param:
    default = None
    if all(a.default == "None" for a in options.all()):
        default = "{}"
    elif options.dtype.default == "long":
        # ``ScalarType dtype=long`` is the only non-None options default in use.
        default = "at::kLong"
    return C.Param(C.TENSOR_OPTIONS, "options", default, OPTIONS_SOURCE)
