"""Every C++ name the functionalization backend derives from an operator name."""

from __future__ import annotations

from schemac.backends.aten.signatures.naming import cpp_name, unambiguous_name
from schemac.ir.schema import FunctionSchema

#: Where the ViewMeta classes and the inverses live.
NAMESPACE = "at::functionalization"


def kernel_name(func: FunctionSchema) -> str:
    """``add_out_out``, ``transpose_int``: the Functionalize kernel of an operator."""
    name = cpp_name(func)
    return f"{name}_{func.name.overload}" if func.name.overload else name


def class_name(func: FunctionSchema) -> str:
    """``transpose_int_ViewMeta``: the ViewMeta specialisation of a view (or in-place view)."""
    return f"{unambiguous_name(func)}_ViewMeta"


def inverse_name(view: FunctionSchema) -> str:
    """``transpose_int_inverse``: the hand-written inverse of a view, in FunctionalInverses."""
    return f"{unambiguous_name(view)}_inverse"
