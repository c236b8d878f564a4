"""The ``python`` target's entries in the backend registry."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.output.files import GeneratedFile
from schemac.backends.python.emit import iter_python, iter_python_nodes
from schemac.backends.registry import EmitOptions
from schemac.ir.module import Module


@attrs.frozen
class PythonBindingsBackend:
    name: str = "python-bindings"
    description: str = "Python bindings of ATen operators (torch.*, Tensor.*, torch.nn/fft/...)"
    targets: tuple[str, ...] = ("python",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        return iter_python(module, options.profile, options.fragments)


BACKEND = PythonBindingsBackend()


@attrs.frozen
class PythonNodesBackend:
    name: str = "python-autograd-nodes"
    description: str = "Python access to autograd nodes' saved values (python_functions*)"
    targets: tuple[str, ...] = ("python",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        return iter_python_nodes(module)


NODES_BACKEND = PythonNodesBackend()
