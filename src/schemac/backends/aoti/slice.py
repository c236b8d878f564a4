"""Which operators the shim files are made from, without the shims' printing.

A module of its own so that the ``aoti`` unit's slice (Note [Unit slices] in
:mod:`schemac.backends.reuse`), computed before the emit call, does not
import what a skipped unit never runs (:mod:`.shims` and the C ABI lowering).
"""

from __future__ import annotations

from schemac.backends.aoti.policy import ShimPolicy
from schemac.backends.aten.signatures.naming import base_name
from schemac.backends.registry import EmitOptions
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction


def shim_op_name(fn: NativeFunction) -> str:
    """``aten.add.Tensor``, ``aten.abs.default``: the name fallback_ops.py keys by."""
    name = fn.func.name
    if name.name.namespace is None:  # the common case: the cached spelling is it
        text = str(name)
        return f"{fn.namespace}.{text}" if name.overload else f"{fn.namespace}.{text}.default"
    return f"{fn.namespace}.{base_name(name)}.{name.overload or 'default'}"


def functions_by_shim_name(module: Module) -> dict[str, NativeFunction]:
    return {shim_op_name(fn): fn for fn in module.functions}


def aoti_slice(module: Module, options: EmitOptions) -> object:
    """What the shim files are made from.

    Only the operators the release's shim tables name are shimmed
    (:func:`~.shims.shimmed_functions`, found by their ``aten.<name>.<overload>``
    names), and a shim reads its function (schema, variants, structured
    delegate), its resolved dispatch table (:func:`~.shims.kernel_key`) and its
    structured delegate's, if the module has that function; the tables and
    the null-return list are the release profile's (the run context), the
    banner's provenance the input paths and the release.  So an edit of any
    other operator leaves the five files as they are."""
    policy = ShimPolicy.of(options.profile)
    rows: list[object] = []
    if not policy.empty:
        functions = functions_by_shim_name(module)
        for name in sorted({*policy.key_ops, *policy.aten_ops}):
            fn = functions.get(name)
            if fn is None:
                continue
            delegate = fn.structured_delegate
            found = delegate is not None and module.find_function(delegate) is not None
            through = module.resolution(delegate) if found and delegate is not None else None
            rows.append((name, fn, module.resolution(fn.func.name), through))
    src = module.sources
    return (src.native_functions, src.tags, module.release, tuple(rows))
