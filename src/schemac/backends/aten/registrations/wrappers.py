"""The C++ of plain (unstructured) wrappers and of the ``at::<key>::`` functions.

Each :class:`~.plan.Wrapper` yields three pieces of C++, placed in three parts
of the registration file:

* its *definition*, in an anonymous namespace: a function with the
  dispatcher's signature that checks devices, installs a device guard and
  calls the kernel (structured wrappers come from :mod:`.structured`);
* its *registration*, ``m.impl("add.Tensor", TORCH_FN(wrapper_CPU_add_Tensor));``;
* the *direct-call functions* ``at::cpu::add(...)`` (every C++ API overload
  of the operator), which call the wrapper without going through the
  dispatcher.

Note [Wrapper names]
    A wrapper's name must be unique in its file, and several overloads share
    a dispatcher name (``_assert_async`` and ``_assert_async.msg`` are both
    ``_assert_async`` in C++).  Plain wrappers are named
    ``wrapper_<Key>_<overload>_<dispatcher name>`` and structured ones
    ``wrapper_<Key>_<native name>`` (the native name spells the overload);
    these are PyTorch's names, kept so that stack traces and profiles read the
    same with either generator.
"""

from __future__ import annotations

from collections.abc import Iterator

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.registrations.keys import KeyTraits
from schemac.backends.aten.registrations.plan import Wrapper, WrapperKind
from schemac.backends.aten.registrations.translate import shared_call_arguments
from schemac.backends.aten.signatures import Signature
from schemac.backends.aten.signatures.naming import dispatcher_name, native_name
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.cppmodel import cpp_string_literal
from schemac.ir.native import DeviceCheck, NativeFunction
from schemac.ir.schema import Argument
from schemac.ir.types import BaseTy, is_like


def wrapper_signature(wrapper: Wrapper, traits: KeyTraits, views: ViewTable) -> Signature:
    """The registered function's signature (see Note [Wrapper names])."""
    f = wrapper.function
    if wrapper.kind is WrapperKind.STRUCTURED:
        # Sizes are symbolic only if the function's own kernel for the key says so.
        symint = wrapper.kernel is not None and wrapper.kernel.supports_symint
        native = views.native(f, symint=symint)
        return _renamed(native, f"wrapper_{traits.key}_{native_name(f.func)}")
    dispatcher = views.dispatcher(f)
    name = f"wrapper_{traits.key}_{f.func.name.overload}_{dispatcher_name(f.func)}"
    return _renamed(dispatcher, name)


def _renamed(sig: Signature, name: str) -> Signature:
    return Signature(name=name, params=sig.params, returns=sig.returns)


def registration(wrapper: Wrapper, sig: Signature) -> str:
    """The ``m.impl`` line of ``wrapper``, whose signature is ``sig``."""
    name = cpp_string_literal(str(wrapper.name))
    return f"m.impl({name}, TORCH_FN({sig.name}));"


def direct_call_functions(wrapper: Wrapper, target: Signature, views: ViewTable) -> Iterator[str]:
    """``at::<key>::<op>`` for every C++ API overload of the operator,
    calling the wrapper (whose signature is ``target``)."""
    for sig in views.cpp_group(wrapper.function).all():
        # Every key's wrapper of the function takes the same parameters.
        args = shared_call_arguments(views, sig.params, target.params)
        head = views.derived("defn", (sig,), sig.defn)
        yield block(head, [f"return {call(target.name, args)};"])


def is_tensor_like(arg: Argument) -> bool:
    return is_like(arg.type, BaseTy.Tensor)


def device_check(f: NativeFunction, wrapper_name: str) -> list[str]:
    """Checks that every tensor argument is on one device (unless ``device_check: NoCheck``)."""
    if f.device_check is DeviceCheck.NoCheck:
        return ["// No device check"]
    lines = [
        "std::optional<Device> common_device = std::nullopt;",
        "(void)common_device; // Suppress unused variable warning",
    ]
    args = f.func.arguments
    for arg in (*args.out, *args.positional):
        if is_tensor_like(arg):
            lines.append(
                call(
                    "c10::impl::check_and_update_common_device",
                    [
                        "common_device",
                        arg.name,
                        cpp_string_literal(wrapper_name),
                        cpp_string_literal(arg.name),
                    ],
                )
                + ";"
            )
    return lines


def _device_guard(f: NativeFunction, traits: KeyTraits) -> list[str]:
    """The guard of a plain wrapper: the device of the first tensor argument,
    or for factories the requested device."""
    if not (f.device_guard and traits.device_guard):
        return ["// DeviceGuard omitted"]
    args = f.func.arguments
    if args.tensor_options is not None:
        lines = (
            ["globalContext().lazyInitDevice(c10::DeviceType::CUDA);"] if traits.cuda_like else []
        )
        return [*lines, "const DeviceGuard device_guard(device_or_default(device));"]
    self_arg = (args.self_arg,) if args.self_arg is not None else ()
    for arg in (*self_arg, *args.out, *args.positional):
        if is_tensor_like(arg):
            return [f"const OptionalDeviceGuard device_guard(device_of({arg.name}));"]
    return ["// DeviceGuard omitted"]


def kernel_wrapper_definition(
    wrapper: Wrapper,
    traits: KeyTraits,
    sig: Signature,
    views: ViewTable,
    kernel_signature: Signature | None = None,
) -> str:
    """The plain wrapper whose signature is ``sig`` (:func:`wrapper_signature`).

    ``kernel_signature``: the view of the kernel called, when it is not the
    native one (out-of-tree kernels follow the dispatcher's API).
    """
    f, kernel = wrapper.function, wrapper.kernel
    if wrapper.kind is WrapperKind.INPLACE_META:
        self_name = "self" if f.func.arguments.self_arg is None else f.func.arguments.self_arg.name
        return block(
            sig.defn(),
            [
                f"TORCH_CHECK_NOT_IMPLEMENTED({self_name}.is_meta(),",
                '  "Cannot inplace into non-meta tensor with meta tensor argument");',
                f"return {self_name};",
            ],
        )
    if kernel is None:
        raise ValueError(f"wrapper for {f.func.name} has no kernel")
    target = views.native(f, kernel=kernel.name) if kernel_signature is None else kernel_signature
    body = device_check(f, sig.name) if traits.device_guard else ["// No device check"]
    body += _device_guard(f, traits)
    args = shared_call_arguments(views, sig.params, target.params)
    body.append(f"return {call(f'{kernel.namespace}::{kernel.name}', args)};")
    return block(sig.defn(), body)
