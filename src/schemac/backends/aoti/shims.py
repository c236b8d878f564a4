"""The shim functions of one ``c_shim_<device>.cpp``: which operators, which kernel each calls.

A per-key file (cpu, cuda, mps, xpu) calls a kernel directly, bypassing the
dispatcher: the key's own kernel (for a structured operator, its out=
delegate's), else the first composite kernel the operator has (explicit,
explicit non-functional, implicit), else the operator gets no shim for that
key.  ``c_shim_aten.cpp`` calls ``at::<op>``, through the dispatcher.
Operators come in the order of their ``aten.<name>.<overload>`` names; each
operator's versions newest first (Note [AOTI shim versions] in policy.py).
"""

from __future__ import annotations

import attrs

from schemac.backends.aoti.c_abi import NotInAbi, lower_argument, lower_return
from schemac.backends.aoti.policy import ShimmedOperator, ShimPolicy, ShimVersion
from schemac.backends.aten.signatures.cpp_api import has_symint
from schemac.backends.aten.signatures.defaults import UnsupportedDefault, cpp_default
from schemac.backends.aten.signatures.naming import cpp_name, root_name
from schemac.backends.aten.signatures.naming import unambiguous_name as struct_name
from schemac.backends.cppmodel import CppFunction, CppParameter
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.schema import Argument

#: The shim files, by device name; None: the dispatcher (``c_shim_aten.cpp``).
DEVICE_KEYS: dict[str, str | None] = {
    "aten": None,
    "cpu": "CPU",
    "cuda": "CUDA",
    "mps": "MPS",
    "xpu": "XPU",
}
#: Kernels a per-key shim falls back to, in order, when the key has none.
COMPOSITE_FALLBACKS = (
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "CompositeImplicitAutograd",
)
#: Headers a CUDA shim file needs for device guards and streams.
CUDA_EXTRA_HEADERS = (
    "c10/cuda/CUDAGuard.h",
    "ATen/cuda/ATenCUDAGeneral.h",
    "ATen/cuda/CUDADevice.h",
    "ATen/cuda/CUDAContext.h",
)
RESULT = "tmp_result"


@attrs.frozen
class ShimFunction:
    """One ``extern "C"`` shim: its C signature and the ATen call it makes."""

    function: CppFunction
    call: str
    arguments: tuple[str, ...]
    #: One statement per result, storing it through its ``ret<i>`` pointer.
    stores: tuple[str, ...]
    since: str | None

    @property
    def name(self) -> str:
        return self.function.name

    def declaration(self) -> str:
        return self.function.declaration()

    def definition(self) -> str:
        result = f"auto {RESULT} = " if self.stores else ""
        lines = [f"{result}{self.call}({', '.join(self.arguments)});", *self.stores]
        inner = "".join(f"  {line}\n" for line in lines)
        body = f"AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({{\n{inner}}});\n"
        return self.function.definition(body)


@attrs.frozen
class ShimFile:
    """``aoti/c_shim_<device>.cpp`` as the template reads it."""

    device: str
    #: The dispatch key whose kernels it calls; None for the dispatcher.
    key: str | None
    functions: tuple[ShimFunction, ...]
    #: ``ATen/ops/*`` headers, for builds with per-operator headers.
    operator_headers: tuple[str, ...]

    @property
    def header(self) -> str:
        return f"torch/csrc/inductor/aoti_torch/generated/c_shim_{self.device}.h"

    @property
    def path(self) -> str:
        return f"aoti/c_shim_{self.device}.cpp"

    @property
    def monolithic_headers(self) -> tuple[str, ...]:
        """The headers of a build without per-operator headers."""
        own = "ATen/Functions.h" if self.key is None else f"ATen/{self.key}Functions.h"
        return (own, *(f"ATen/{key}Functions.h" for key in COMPOSITE_FALLBACKS))

    @property
    def extra_headers(self) -> tuple[str, ...]:
        return CUDA_EXTRA_HEADERS if self.key == "CUDA" else ()

    @property
    def for_dispatcher(self) -> bool:
        return self.key is None


def kernel_key(module: Module, fn: NativeFunction, key: str) -> str | None:
    """The dispatch key whose ``at::<key>::`` kernel a ``key`` shim of ``fn`` calls."""
    if key in module.resolution(fn.func.name).dispatch:
        return key
    delegate = fn.structured_delegate
    if (
        delegate is not None
        and module.find_function(delegate) is not None
        and key in module.resolution(delegate).dispatch
    ):
        return key
    dispatch = module.resolution(fn.func.name).dispatch
    return next((k for k in COMPOSITE_FALLBACKS if k in dispatch), None)


def _call(fn: NativeFunction, kernel: str | None) -> str:
    symint = has_symint(fn.func)
    name = cpp_name(fn.func, symint=symint)
    if kernel is not None:
        return f"at::{kernel.lower()}::{name}"
    if symint and Variant.function not in fn.variants:
        # A method-only operator has no at::<op>_symint; the symint:: template does.
        return f"at::symint::{name.removesuffix('_symint')}<c10::SymInt>"
    return f"at::{name}"


def _skipped_value(arg: Argument) -> str:
    """What an older version passes for an argument it does not take: its default."""
    if arg.default is None:
        return "std::nullopt"
    return cpp_default(arg.default, arg.type, symint=False)


@attrs.frozen
class ShimShape:
    """One version of an operator's shim, the same for every device: C
    parameters, the ATen call's arguments, the result stores."""

    suffix: str
    params: tuple[CppParameter, ...]
    arguments: tuple[str, ...]
    stores: tuple[str, ...]
    since: str | None


def _shape(
    fn: NativeFunction, version: ShimVersion, dropped: frozenset[str], nullable: bool
) -> ShimShape:
    schema = fn.func
    ordered = (
        (*schema.arguments.out, *schema.arguments.flat_non_out)
        if schema.is_out_fn
        else schema.arguments.flat_all
    )
    params: list[CppParameter] = []
    arguments: list[str] = []
    for arg in ordered:
        if arg.name in dropped:
            arguments.append(_skipped_value(arg))
            continue
        lowered = lower_argument(arg)
        params.extend(lowered.params)
        arguments.append(lowered.expr)
    stores: list[str] = []
    # An out= or in-place shim returns nothing: the caller holds the tensors.
    if not schema.is_out_fn and not schema.name.name.inplace:
        single = len(schema.returns) == 1
        for index, ret in enumerate(schema.returns):
            lowered_ret = lower_return(ret, index)
            params.append(lowered_ret.param)
            value = RESULT if single else f"std::get<{index}>({RESULT})"
            target = lowered_ret.param.name
            store = f"*{target} = {lowered_ret.convert.format(value=value)};"
            stores.append(f"if ({target}) {{ {store} }}" if nullable else store)
    suffix = "" if version.number == 1 else f"_v{version.number}"
    return ShimShape(suffix, tuple(params), tuple(arguments), tuple(stores), version.since)


@attrs.frozen
class ShimmedFunction:
    """A listed operator found in the module, with its shim versions, newest
    first; none when its types have no C ABI form."""

    fn: NativeFunction
    shapes: tuple[ShimShape, ...]

    def shims(self, device: str, call: str) -> tuple[ShimFunction, ...]:
        prefix = f"aoti_torch_{device}_{struct_name(self.fn.func)}"
        return tuple(
            ShimFunction(
                CppFunction("AOTITorchError", prefix + shape.suffix, shape.params),
                call,
                shape.arguments,
                shape.stores,
                shape.since,
            )
            for shape in self.shapes
        )


def _shapes(fn: NativeFunction, op: ShimmedOperator, policy: ShimPolicy) -> tuple[ShimShape, ...]:
    nullable = policy.returns_may_be_null(struct_name(fn.func))
    try:
        return tuple(
            _shape(fn, version, dropped, nullable) for version, dropped in op.newest_first()
        )
    except (NotInAbi, UnsupportedDefault):
        return ()


def shimmed_functions(
    functions: dict[str, NativeFunction], table: dict[str, ShimmedOperator], policy: ShimPolicy
) -> tuple[ShimmedFunction, ...]:
    """The operators of ``table`` found in ``functions``, in name order (an
    operator the YAML lacks has no shim)."""
    return tuple(
        ShimmedFunction(functions[name], _shapes(functions[name], table[name], policy))
        for name in sorted(table)
        if name in functions
    )


def shim_file(module: Module, functions: tuple[ShimmedFunction, ...], device: str) -> ShimFile:
    """``c_shim_<device>.cpp`` of ``functions`` (the aten table's for "aten")."""
    key = DEVICE_KEYS[device]
    shims: list[ShimFunction] = []
    headers: set[str] = set()
    for shimmed in functions:
        fn = shimmed.fn
        kernel = None if key is None else kernel_key(module, fn, key)
        if key is not None and kernel is None:
            continue
        shims.extend(shimmed.shims(device, _call(fn, kernel)))
        # torchgen includes the header of an operator it cannot shim as well.
        dispatch = "" if kernel is None else f"_{kernel.lower()}_dispatch"
        headers.add(f"ATen/ops/{root_name(fn.func)}{dispatch}.h")
    return ShimFile(device, key, tuple(shims), tuple(sorted(headers)))
