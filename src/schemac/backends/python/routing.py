"""Where an operator's Python binding lives.

``python_module:`` in native_functions.yaml moves an operator out of
``torch``/``Tensor`` into a submodule (``torch.nn.functional``'s
``torch._C._nn``, ``torch.fft``...).  Operators without one are bound as
``torch.<name>`` if they have a function variant and as ``Tensor.<name>`` if
they have a method variant; a submodule operator is bound there whatever its
variants say.  Each :class:`BindingModule` is one output file.
"""

from __future__ import annotations

import attrs

from schemac.ir.native import NativeFunction, Variant


@attrs.frozen
class BindingModule:
    #: Output file name (``python_fft_functions.cpp``); sharded ones get ``_<i>``.
    filename: str
    #: ``python_module:`` value selecting it; None for ``torch`` and ``Tensor``.
    python_module: str | None
    #: The Python module name that ``handle_torch_function`` reports.
    qualified_name: str
    #: The C++ variable holding the module object, for ``__torch_function__``.
    module_object: str
    #: True for ``Tensor`` methods (the binding unpacks ``self``).
    method: bool = False
    shards: int = 1
    #: For submodules: the ``PyMethodDef[]`` table, init function and attribute name.
    table_name: str = ""
    init_function: str = ""
    attribute: str = ""

    def binds(self, function: NativeFunction) -> bool:
        if self.python_module is not None:
            return function.python_module == self.python_module
        if function.python_module is not None:
            return False
        wanted = Variant.method if self.method else Variant.function
        return wanted in function.variants

    @property
    def static_methods(self) -> bool:
        """``torch.*`` functions are static methods of ``torch._C._VariableFunctions``."""
        return self.qualified_name == "torch"


def _submodule(short: str, object_infix: str, init_infix: str) -> BindingModule:
    return BindingModule(
        filename=f"python_{short}_functions.cpp",
        python_module=short,
        qualified_name=f"torch.{short}",
        module_object=f"THP{object_infix}VariableFunctionsModule",
        table_name=f"{short}_functions",
        init_function=f"init{init_infix}Functions",
        attribute=f"_{short}",
    )


VARIABLE_METHODS = BindingModule(
    filename="python_variable_methods.cpp",
    python_module=None,
    qualified_name="torch.Tensor",
    module_object="THPVariableClass",
    method=True,
)

# The shard count is part of PyTorch's build: torch/csrc/autograd/
# python_torch_functions_manual.cpp gathers exactly three shards.
TORCH_FUNCTIONS = BindingModule(
    filename="python_torch_functions.cpp",
    python_module=None,
    qualified_name="torch",
    module_object="THPVariableFunctionsModule",
    shards=3,
)

SUBMODULES: tuple[BindingModule, ...] = (
    _submodule("nn", "NN", "NN"),
    _submodule("fft", "FFT", "FFT"),
    _submodule("linalg", "Linalg", "Linalg"),
    _submodule("nested", "Nested", "Nested"),
    _submodule("sparse", "Sparse", "Sparse"),
    _submodule("special", "Special", "Special"),
)

BINDING_MODULES: tuple[BindingModule, ...] = (VARIABLE_METHODS, TORCH_FUNCTIONS, *SUBMODULES)
