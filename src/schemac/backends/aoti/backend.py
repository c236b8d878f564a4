"""The ``aoti`` backend: ``aoti/c_shim_<device>.cpp`` for aten, cpu, cuda, mps and xpu."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aoti.policy import ShimPolicy
from schemac.backends.aoti.shims import (
    DEVICE_KEYS,
    ShimFile,
    functions_by_shim_name,
    shim_file,
    shimmed_functions,
)
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates, module_sources
from schemac.ir.module import Module


def shim_files(module: Module, options: EmitOptions) -> Iterator[ShimFile]:
    """One file per device, none when the release names no fallback operators
    (a library outside PyTorch: its operators have no AOTInductor ABI)."""
    policy = ShimPolicy.of(options.profile)
    if policy.empty:
        return
    functions = functions_by_shim_name(module)
    per_key = shimmed_functions(functions, policy.key_ops, policy)
    aten = shimmed_functions(functions, policy.aten_ops, policy)
    for device, key in DEVICE_KEYS.items():
        yield shim_file(module, aten if key is None else per_key, device)


def aoti_slice(module: Module, options: EmitOptions) -> object:
    """What the shim files are made from (Note [Unit slices] in
    :mod:`schemac.backends.reuse`).

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
    return (module_sources(module).files, module.release, tuple(rows))


@attrs.frozen
class AotiBackend:
    name: str = "aoti"
    description: str = "AOTInductor C shims: aoti/c_shim_<device>.cpp"
    targets: tuple[str, ...] = ("aoti",)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile]:
        templates = options.memo.get("aoti-templates", lambda: Templates(__package__ or ""))
        sources = module_sources(module)
        for file in shim_files(module, options):
            yield GeneratedFile(
                file.path, templates.render("c_shim.cpp.mako", file, sources=sources)
            )


BACKEND = AotiBackend()
