"""Out= and in-place variants a backend gets from its functional kernel.

A backend that lists only ``abs`` still serves ``abs_`` and ``abs.out``: the
generated wrapper calls the functional variant's wrapper and copies the
result into the written argument, through ``at::_copy_from`` (in-place: the
shape is already right) or ``at::_copy_from_and_resize`` (out=: the user's
tensor may need resizing).  Both copies are operators the device itself
provides, so the copy may cross devices.

A functional factory takes the TensorOptions its out= variant does not
(``empty.out`` has none): they are read off the out tensor.
"""

from __future__ import annotations

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.registrations.translate import call_arguments
from schemac.backends.aten.signatures import Signature
from schemac.backends.aten.signatures import cxx_types as C
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, SchemaKind
from schemac.ir.types import ListType

#: A TensorOptions field of the functional variant, read from a written tensor.
_FROM_TENSOR = {
    "dtype": "{t}.scalar_type()",
    "layout": "{t}.layout()",
    "device": "{t}.device()",
    "pin_memory": "::std::nullopt",
}


def _written(f: NativeFunction) -> tuple[Argument, ...]:
    args = f.func.arguments
    if f.func.kind() is SchemaKind.out:
        return args.out
    return () if args.self_arg is None else (args.self_arg,)


def copy_back_definition(
    f: NativeFunction, sig: Signature, functional: NativeFunction, functional_sig: Signature
) -> str:
    """The wrapper ``sig`` of ``f``, computing through the wrapper ``functional_sig``."""
    copy = "at::_copy_from" if f.func.kind() is SchemaKind.inplace else "at::_copy_from_and_resize"
    written = _written(f)
    scope = {p.source or p.name for p in sig.params}
    first = written[0].name if written else "self"
    extra: dict[str, tuple[str, C.CType]] = {
        p.source or p.name: (_FROM_TENSOR[p.source or p.name].format(t=first), p.type)
        for p in functional_sig.params
        if (p.source or p.name) in _FROM_TENSOR and (p.source or p.name) not in scope
    }
    result = f"{sig.name}_tmp"
    args = call_arguments(sig.params, functional_sig.params, extra=extra)
    body = [f"auto {result} = {call(functional_sig.name, args)};"]
    names = [a.name for a in written]
    if len(f.func.returns) > 1:
        body += [f"{copy}(std::get<{i}>({result}), {name});" for i, name in enumerate(names)]
        body.append(f"return {sig.returns}({', '.join(names)});")
    elif len(f.func.returns) == 1:
        body += [f"{copy}({result}, {names[0]});", f"return {names[0]};"]
    else:
        for arg in written:
            if isinstance(arg.type, ListType):
                loop = f"for (int64_t i = 0; i < {result}.size(); ++i)"
                body.append(block(loop, [f"{copy}({result}[i], {arg.name}[i]);"]))
            else:
                body.append(f"{copy}({result}, {arg.name});")
        body.append("return;")
    return block(sig.defn(), body)
