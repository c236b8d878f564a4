"""Which operators a selective build keeps, as PyTorch's build tooling writes it.

A mobile or embedded build ships only the operators its models use.  PyTorch's
tracer writes them to a YAML file (``selected_operators.yaml``): operator
names such as ``aten::add.Tensor`` or ``aten::add`` with per-operator flags,
plus dtype lists per kernel (``kernel_metadata``) and other switches the
runtime reads.  A plain list of names (the older allow-list form) means the
same with every flag on.

:class:`OperatorSelection` is that file, typed.  Its selection rules are
PyTorch's: a function named ``ns::name.overload`` is selected when that exact
name is listed, or when ``ns::name`` is listed with ``include_all_overloads``.
The selective-build pass applies them to the module; the kernel metadata and
the remaining switches travel on with the module for the backends.
"""

from __future__ import annotations

import attrs

from schemac.diagnostics import NO_SPAN, Span
from schemac.ir.names import OperatorName

_SPAN = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)


def strip_overload(name: str) -> str:
    """``aten::add.Tensor`` -> ``aten::add``."""
    return name.split(".", 1)[0]


@attrs.frozen
class SelectedOperator:
    """One ``operators:`` entry; every flag defaults to True, as in PyTorch."""

    name: str
    is_root_operator: bool = True
    is_used_for_training: bool = True
    include_all_overloads: bool = True
    debug_info: tuple[str, ...] | None = None
    span: Span = _SPAN


@attrs.frozen
class OperatorSelection:
    include_all_operators: bool = False
    include_all_non_op_selectives: bool = False
    operators: tuple[SelectedOperator, ...] = ()
    #: Kernel tag -> dtypes its kernel is built for.
    kernel_metadata: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: ExecuTorch: operator -> kernel keys.
    et_kernel_metadata: tuple[tuple[str, tuple[str, ...]], ...] = ()
    custom_classes: frozenset[str] = frozenset()
    build_features: frozenset[str] = frozenset()
    debug_info: tuple[str, ...] | None = None
    #: The file the selection came from, for diagnostics and depfiles.
    source: str | None = None
    _by_name: dict[str, SelectedOperator] = attrs.field(
        init=False, eq=False, hash=False, repr=False
    )

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {op.name: op for op in self.operators})

    def operator(self, name: str) -> SelectedOperator | None:
        return self._by_name.get(name)

    def is_operator_selected(self, name: str) -> bool:
        """``name`` is ``ns::base`` or ``ns::base.overload``."""
        if self.include_all_operators or name in self._by_name:
            return True
        base = self._by_name.get(strip_overload(name))
        return base is not None and base.include_all_overloads

    def is_root_operator(self, name: str) -> bool:
        if not self.is_operator_selected(name):
            return False
        if self.include_all_operators:
            return True
        exact = self._by_name.get(name)
        if exact is not None:
            return exact.is_root_operator
        base = self._by_name.get(strip_overload(name))
        return base is not None and base.include_all_overloads and base.is_root_operator

    def is_operator_selected_for_training(self, name: str) -> bool:
        if not self.is_operator_selected(name):
            return False
        if self.include_all_operators:
            return True
        exact = self._by_name.get(name)
        base = self._by_name.get(strip_overload(name))
        return (exact is not None and exact.is_used_for_training) or (
            base is not None and base.include_all_overloads and base.is_used_for_training
        )

    def is_kernel_dtype_selected(self, kernel_tag: str, dtype: str) -> bool:
        if self.include_all_operators or self.include_all_non_op_selectives:
            return True
        return any(tag == kernel_tag and dtype in dtypes for tag, dtypes in self.kernel_metadata)


@attrs.frozen
class SelectionResult:
    """What the selective-build pass did, kept on the module for the backends.

    ``selected`` are the functions the selection names (by PyTorch's rules);
    ``dependencies`` are functions kept only because a selected one needs them
    (see docs/selective-build.md).  A backend registers ``selected`` and may
    skip registering ``dependencies``.
    """

    selection: OperatorSelection
    selected: tuple[OperatorName, ...] = ()
    dependencies: tuple[OperatorName, ...] = ()
