"""Every C++ name derived from an operator name, each in one place.

``add.out`` is ``at::add_out`` / ``at::add_outf`` in the C++ API,
``add_out`` to the dispatcher, ``add_out_out`` as a native kernel's default
name, ``add_out`` as the operator struct in ``at::_ops``; symbolic-size
overloads add ``_symint`` before the out suffix.  No emitter builds these
strings itself.
"""

from __future__ import annotations

from schemac.ir.names import OperatorName
from schemac.ir.schema import FunctionSchema


def base_name(name: OperatorName) -> str:
    """``add_``, ``__and__``: the base name without namespace or overload."""
    return name.name.unqualified


def cpp_name(func: FunctionSchema, *, faithful: bool = False, symint: bool = False) -> str:
    """The C++ API function name: ``add``, ``add_out``, ``add_outf``, ``empty_symint``."""
    name = base_name(func.name)
    if symint:
        name += "_symint"
    if func.is_out_fn:
        name += "_outf" if faithful else "_out"
    return name


def dispatcher_name(func: FunctionSchema) -> str:
    return cpp_name(func)


def native_name(func: FunctionSchema) -> str:
    """The default kernel name: ``add_out_out``, ``sum_dim_IntList``."""
    name = base_name(func.name)
    if func.is_out_fn:
        name += "_out"
    if func.name.overload:
        name += f"_{func.name.overload}"
    return name


def unambiguous_name(func: FunctionSchema) -> str:
    """``add_Tensor``: the name of the operator struct in ``at::_ops``."""
    name = base_name(func.name)
    return f"{name}_{func.name.overload}" if func.name.overload else name


def root_name(func: FunctionSchema) -> str:
    """``add`` for ``add_.Tensor``, ``and`` for ``__iand__``: the name of the
    per-operator header files, shared by all variants of one operator."""
    return func.name.name.base
