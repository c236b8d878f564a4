"""The ``aoti`` backend: ``aoti/c_shim_<device>.cpp`` for aten, cpu, cuda, mps and xpu."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aoti.policy import ShimPolicy
from schemac.backends.aoti.shims import (
    DEVICE_KEYS,
    ShimFile,
    shim_file,
    shimmed_functions,
)
from schemac.backends.aoti.slice import functions_by_shim_name
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
