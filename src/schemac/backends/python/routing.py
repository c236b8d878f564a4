"""Where an operator's Python binding lives.

``python_module:`` in native_functions.yaml moves an operator out of
``torch``/``Tensor`` into a submodule (``torch.nn.functional``'s
``torch._C._nn``, ``torch.fft``...).  Operators without one are bound as
``torch.<name>`` if they have a function variant and as ``Tensor.<name>`` if
they have a method variant; a submodule operator is bound there whatever its
variants say.  Each :class:`BindingModule` is one output file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, TypeVar

import attrs

from schemac.diagnostics import Diagnostic, did_you_mean
from schemac.ir.native import NativeFunction, Variant

_Item = TypeVar("_Item")


@attrs.frozen
class BindingModule:
    #: Note [Fragment buckets]: every ``eq`` field (set below the class), so that a
    #: fingerprint encodes each of the few modules once per run, not per binding.
    reuse_fields: ClassVar[tuple[str, ...]]

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


BindingModule.reuse_fields = tuple(f.name for f in attrs.fields(BindingModule) if f.eq)


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


def partition(
    items: Sequence[_Item],
    function_of: Callable[[_Item], NativeFunction],
    modules: Sequence[BindingModule],
) -> list[list[_Item]]:
    """Per module of ``modules``, the items whose function it binds (in ``items`` order).

    The same as asking every module's :meth:`BindingModule.binds` about every
    item, but a function with a ``python_module`` is looked up once instead of
    being offered to each of the eight modules.
    """
    buckets: list[list[_Item]] = [[] for _ in modules]
    by_python_module = {
        m.python_module: buckets[i] for i, m in enumerate(modules) if m.python_module is not None
    }
    plain = [(m, buckets[i]) for i, m in enumerate(modules) if m.python_module is None]
    for item in items:
        function = function_of(item)
        if function.python_module is not None:
            bucket = by_python_module.get(function.python_module)
            if bucket is not None:
                bucket.append(item)
            continue
        for module, bucket in plain:
            if module.binds(function):
                bucket.append(item)
    return buckets


def python_module_diagnostics(functions: Iterable[NativeFunction]) -> list[Diagnostic]:
    """A ``python_module`` of an ``aten`` operator that no binding module emits.

    Such an operator would silently vanish from every Python binding.  Other
    namespaces (extension libraries) bind into modules of their own, so any
    module path the front end accepted is theirs to choose.
    """
    known = {m.python_module for m in SUBMODULES}
    problems = []
    for function in functions:
        module = function.python_module
        if module is None or module in known or function.namespace != "aten":
            continue
        problems.append(
            Diagnostic(
                function.span_of("python_module"),
                f"python_module '{module}' is not a module torch's Python bindings have",
                did_you_mean(module, sorted(str(k) for k in known))
                or "write one of " + ", ".join(sorted(str(k) for k in known)),
            )
        )
    return problems
