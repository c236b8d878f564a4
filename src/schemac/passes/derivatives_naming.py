"""Names of backward node classes.

A backward node is a C++ class (``AddBackward0``) whose name is public: it
shows up in ``tensor.grad_fn``, in tests and in profiler traces, so it must be
exactly PyTorch's.  The rule: CamelCase the entry's base name, append
``Backward`` (``_forward`` ops drop their ``Forward``), append the autograd key
unless it is ``Default``, and number overloads that share a prefix in the
order their entries appear in derivatives.yaml, from 0.  Entries without any
differentiable input get no node and do not consume a number.

Foreach operators without their own entry reuse the node of the per-tensor
operator they vectorise, prefixed ``Foreach`` and suffixed with their overload
(``ForeachAddBackward0List``); view copies append ``_copy``.
"""

from __future__ import annotations

from collections import Counter

from schemac.ir.autograd import DEFAULT_AUTOGRAD_KEY


def node_prefix(base_name: str, dispatch_key: str) -> str:
    camel = "".join([part.title() for part in base_name.split("_")])
    prefix = (camel + "Backward").replace("ForwardBackward", "Backward")
    return prefix if dispatch_key == DEFAULT_AUTOGRAD_KEY else prefix + dispatch_key


class NodeNamer:
    """Hands out numbered node names in derivatives.yaml order (one per pass run)."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    def next_name(self, base_name: str, dispatch_key: str) -> str:
        prefix = node_prefix(base_name, dispatch_key)
        name = f"{prefix}{self._counts[prefix]}"
        self._counts[prefix] += 1
        return name


def foreach_node_name(reference_node: str | None, overload: str) -> str:
    return f"Foreach{reference_node}{overload}"


def view_copy_node_name(view_node: str | None) -> str | None:
    return None if view_node is None else f"{view_node}_copy"
