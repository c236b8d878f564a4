"""${view.name}: a PrivateUse1 device whose memory is host memory (schemac's example backend).

``${view.name}.build(directory)`` generates the registrations with schemac and
compiles the C++ with ``torch.utils.cpp_extension``; ``${view.name}.load(library)``
loads the result and makes the device usable as ``"${view.name}"``::

    import ${view.name}, torch
    ${view.name}.load(${view.name}.build("build/"))
    x = torch.ones(3, device="${view.name}")
"""

from __future__ import annotations

import types

import torch

from ${view.name}.build import build

__all__ = ["NAME", "build", "device_module", "load"]

#: What PrivateUse1 is called once the package is loaded.
NAME = "${view.name}"


def _device_module() -> types.ModuleType:
    """``torch.${view.name}``: what torch (and torch.compile) asks a device module for."""
    module = types.ModuleType(f"torch.{NAME}")
    module.is_available = lambda: True  # type: ignore[attr-defined]
    module.device_count = lambda: 1  # type: ignore[attr-defined]
    module.current_device = lambda: 0  # type: ignore[attr-defined]
    module.set_device = lambda device: None  # type: ignore[attr-defined]
    module.synchronize = lambda device=None: None  # type: ignore[attr-defined]
    module.is_initialized = lambda: True  # type: ignore[attr-defined]
    module._is_in_bad_fork = lambda: False  # type: ignore[attr-defined]
    module.manual_seed_all = lambda seed: None  # type: ignore[attr-defined]
    module.get_amp_supported_dtype = lambda: [torch.float32]  # type: ignore[attr-defined]
    return module


device_module = _device_module()


def load(library: str) -> None:
    """Load the built library (kernels and runtime register themselves) and name the device."""
    torch.ops.load_library(library)
    if torch._C._get_privateuse1_backend_name() != NAME:
        torch.utils.rename_privateuse1_backend(NAME)
        torch._register_device_module(NAME, device_module)
        torch.utils.generate_methods_for_privateuse1_backend(for_storage=True)
