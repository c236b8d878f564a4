"""PyTorch's hand-kept operator lists that decide what autograd code exists.

These sets are not derivable from the YAML: they record decisions PyTorch
made elsewhere (a kernel written by hand in torch/csrc/autograd, an operator
that returns a view of its input, an operator whose outputs never require
grad).  They change from release to release, so they are the target
release's profile data (Note [Release profiles]); this module only gathers
them, once per compile, into the shape the emitters ask.  Names are the C++
API name (``cpp_name``: base name with a trailing ``_`` for in-place, no
overload) unless said otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from schemac.profiles import ReleaseProfile, reference_profile


@attrs.frozen
class NodePointers:
    """How the release holds backward nodes (profile feature ``autograd_node_intrusive_ptr``).

    From 2.13 on a node is a ``c10::intrusive_ptr`` made by ``make_intrusive``
    and finds itself with ``getptr()``; before, a ``std::shared_ptr`` made with
    the ``deleteNode`` deleter, found with ``shared_from_this()``.
    """

    intrusive: bool = True

    def of(self, node: str) -> str:
        """The pointer type of a ``node``."""
        return f"c10::intrusive_ptr<{node}>" if self.intrusive else f"std::shared_ptr<{node}>"

    def make(self, node: str, args: str = "") -> str:
        """A new ``node`` constructed from ``args``."""
        if self.intrusive:
            return f"c10::make_intrusive<{node}>({args})"
        return f"std::shared_ptr<{node}>(new {node}({args}), deleteNode)"

    @property
    def this(self) -> str:
        """Inside a node's member function: the pointer to the node itself."""
        return "getptr()" if self.intrusive else "shared_from_this()"


#: The pointers of 2.13 on (the default).
INTRUSIVE = NodePointers()


@attrs.frozen
class AutogradPolicy:
    """One release's autograd lists, as the autograd emitters read them."""

    #: Operators whose Autograd (and so ADInplaceOrView) kernel is written by hand.
    manual_autograd: frozenset[str]
    #: Operators whose Tracer kernel is written by hand.
    manual_tracer: frozenset[str]
    #: Operators (by base name) the tracer registers but does not record.
    dont_record_trace: frozenset[str]
    #: View operators that change tensor metadata (ADInplaceOrView marks them).
    view_functions_with_metadata_change: frozenset[str]
    #: View operator (by base name) -> the argument its output is a view of.
    view_functions: Mapping[str, str]
    #: Operators (by base name) that may return a view of ``self`` without being
    #: view operators in the strict sense (their result aliases only sometimes).
    returns_views_of_input: frozenset[str]
    #: Operators (by base name) whose outputs need no derivative (integer,
    #: boolean or fresh results).
    dont_require_derivative: frozenset[str]
    #: Operators that reset a tensor's gradient accumulator (by schema base name).
    reset_grad_accumulator: frozenset[str]
    #: Operators (by base name) whose backward formulas are known to be right for
    #: complex tensors; every other differentiable operator refuses complex
    #: outputs that require grad instead of computing a possibly wrong gradient.
    gradient_implemented_for_complex: frozenset[str]
    #: Kernels call ``fire_node_creation_hooks`` on each backward node they
    #: create, once it is complete (the node ``rebase_history`` returns, for
    #: in-place results).
    node_creation_hooks: bool
    #: How nodes are held and made.
    pointers: NodePointers = INTRUSIVE
    #: File family (``variable_type``, ``trace_type``) -> the release's shard
    #: count (profile table ``shard_counts``); a family it lacks keeps its default.
    shard_counts: Mapping[str, str] = attrs.field(factory=dict)

    def shards(self, family: str, default: int) -> int:
        return int(self.shard_counts.get(family, default))

    @classmethod
    def of(cls, profile: ReleaseProfile) -> AutogradPolicy:
        metadata_change = profile.names("view_functions_with_metadata_change")
        # torchgen adds the metadata-changing views to its view table at import.
        views = {
            **profile.table("view_functions"),
            **{name: "self" for name in sorted(metadata_change)},
        }
        manual = profile.names("manual_backend") | profile.names("manual_autograd_and_tracer")
        return cls(
            manual_autograd=manual,
            manual_tracer=manual,
            dont_record_trace=profile.names("dont_record_trace"),
            view_functions_with_metadata_change=metadata_change,
            view_functions=MappingProxyType(views),
            returns_views_of_input=profile.names("returns_views_of_input") | frozenset(views),
            dont_require_derivative=profile.names("dont_require_derivative"),
            reset_grad_accumulator=profile.names("reset_grad_accumulator"),
            # torchgen extends the dense list with the sparse one at import.
            gradient_implemented_for_complex=profile.names("gradient_implemented_for_complex")
            | profile.names("gradient_implemented_for_sparse_complex"),
            node_creation_hooks=profile.has("node_creation_hooks"),
            pointers=NodePointers(intrusive=profile.has("autograd_node_intrusive_ptr")),
            shard_counts=MappingProxyType(dict(profile.table("shard_counts"))),
        )


def reference_policy() -> AutogradPolicy:
    """The default release's lists (library calls that name no release)."""
    return AutogradPolicy.of(reference_profile())
