"""Which wrapper each operator gets in one dispatch key's registration file.

For every item of the module's grouped listing (a variant group or a lone
function) and one dispatch key, :func:`plan_key` decides what the file
contains, following PyTorch's rules:

* a structured group whose out= kernel for the key is structured gets
  structured wrappers for all its members (a class deriving from the
  kernel's ``structured_<kernel>`` class per member kind);
* ``Meta`` gets structured wrappers for *every* structured group, built from
  the shared ``meta()`` alone (no ``impl()``): that is how structured
  operators get meta kernels for free;
* ``CompositeExplicitAutogradNonFunctional`` likewise gets functional and
  in-place wrappers for every structured group, calling the out= operator
  through the dispatcher (never an out= wrapper: that is the kernel a backend
  must write);
* every other function with a kernel for the key gets a plain wrapper that
  calls the kernel, with the key's device check and guard;
* ``Meta`` also gets a stub for in-place operators without a meta kernel or a
  composite one, which only checks that ``self`` is a meta tensor.

The plan is data (frozen records), so the emitters are straight-line code and
the conformance tests can count registrations without rendering C++.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence

import attrs

from schemac.backends.aten.registrations.keys import KeyTraits
from schemac.ir.dispatch import COMPOSITE_EXPLICIT_NON_FUNCTIONAL
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import Kernel, Resolution
from schemac.ir.schema import SchemaKind

#: The key whose file also gets in-place stubs and wrappers of every structured
#: group (:attr:`KeyTraits.is_meta`).
_META = "Meta"


class WrapperKind(enum.Enum):
    #: Calls the key's kernel for the function (``at::native::add_out``).
    KERNEL = "kernel"
    #: A structured class per member kind; ``meta()`` then ``impl()``.
    STRUCTURED = "structured"
    #: Meta stub for an in-place operator: checks ``self.is_meta()``.
    INPLACE_META = "inplace-meta"


@attrs.frozen
class StructuredGroup:
    """What structured wrappers of one group need besides the function itself."""

    functional: NativeFunction
    out: NativeFunction
    #: The backend's structured kernel; None for the generated Meta and
    #: CompositeExplicitAutogradNonFunctional wrappers.
    kernel: Kernel | None


@attrs.frozen
class Wrapper:
    function: NativeFunction
    kind: WrapperKind
    #: The function's own kernel for the key: the one a KERNEL wrapper calls;
    #: for a STRUCTURED wrapper it only decides whether sizes are symbolic.
    kernel: Kernel | None = None
    structured: StructuredGroup | None = None

    @property
    def name(self) -> OperatorName:
        return self.function.func.name


@attrs.frozen
class PlannedItem:
    """The wrappers of one grouped item; ``root_name`` picks its shard and headers."""

    root_name: str
    wrappers: tuple[Wrapper, ...]
    #: The grouped item planned (``wrappers`` is :func:`planned_wrappers` of it
    #: and the key's traits): what a file made from the wrappers reads.
    source: ItemSource = attrs.field(eq=False, repr=False)


@attrs.frozen
class _Member:
    """A function of the grouped listing with what planning reads of it."""

    function: NativeFunction
    resolution: Resolution | None
    kind: SchemaKind
    #: The resolved dispatch table (empty without a resolution).
    kernels: Mapping[str, Kernel]
    has_composite_kernel: bool

    #: The other fields are computed from these (Note [File reuse]).
    reuse_fields = ("function", "resolution")


@attrs.frozen
class ItemSource:
    """One grouped item: a variant group (``structured`` set from it) or a lone function."""

    members: tuple[_Member, ...]
    is_group: bool
    structured: bool = False
    functional: _Member | None = None
    out: _Member | None = None
    #: Every key some member has a kernel for: a plain key outside this set
    #: gets no wrapper from the item (only Meta and the generated
    #: CompositeExplicitAutogradNonFunctional kernels need no kernel of their own).
    kernel_keys: frozenset[str] = attrs.field(init=False, eq=False, repr=False)
    #: Every key whose file may have wrappers for this item (:func:`may_plan`):
    #: :attr:`kernel_keys`, Meta for a structured group or an in-place member,
    #: CompositeExplicitAutogradNonFunctional for a structured group.
    may_keys: frozenset[str] = attrs.field(init=False, eq=False, repr=False)

    #: Every field planning reads (Note [File reuse]): an item is read by the
    #: plan of every key, so its encoding is made once per run and shared.
    reuse_fields = ("members", "is_group", "structured", "functional", "out")

    def __attrs_post_init__(self) -> None:
        keys = frozenset(key for m in self.members for key in m.kernels)
        object.__setattr__(self, "kernel_keys", keys)
        generated = []
        if self.structured or any(m.kind is SchemaKind.inplace for m in self.members):
            generated.append(_META)
        if self.structured:
            generated.append(COMPOSITE_EXPLICIT_NON_FUNCTIONAL)
        object.__setattr__(self, "may_keys", keys.union(generated) if generated else keys)


@attrs.frozen
class PlanIndex:
    """The module's grouped listing with every function and dispatch table looked up once.

    Planning a key walks every grouped item; looking the functions and their
    resolutions up by ``OperatorName`` for each of the ~30 keys of a run cost
    more than the planning itself.  Build it once per run with :meth:`of` and
    pass it to every :func:`plan_key` of that module.
    """

    items: tuple[ItemSource, ...]
    #: plan_key's answers so far, by dispatch key (the headers and the
    #: registrations of one run plan the same keys, the registrations with
    #: the release's traits: a plan reads only the key of its traits).
    _planned: dict[str, tuple[PlannedItem, ...]] = attrs.field(
        factory=dict, init=False, eq=False, repr=False
    )
    #: The items each key may plan, in module order (:meth:`candidates`).
    _by_may_key: dict[str, tuple[ItemSource, ...]] | None = attrs.field(
        default=None, init=False, eq=False, repr=False
    )

    @classmethod
    def of(cls, module: Module) -> PlanIndex:
        members: dict[OperatorName, _Member] = {}
        # The maps' pairs, not the Mapping protocol: a Python call per key and
        # lookup otherwise, for every function of every run that plans.
        resolutions = dict(module.resolutions.items_)
        for f in module.functions:
            resolution = resolutions.get(f.func.name)
            members[f.func.name] = _Member(
                function=f,
                resolution=resolution,
                kind=f.func.kind(),
                kernels={} if resolution is None else dict(resolution.dispatch.items_),
                has_composite_kernel=resolution is not None and resolution.has_composite_kernel,
            )
        items = []
        for grouped in module.grouped_functions:
            if isinstance(grouped, OperatorName):
                found = members.get(grouped)
                items.append(ItemSource(members=() if found is None else (found,), is_group=False))
                continue
            group_members = (members.get(name) for name in grouped.members())
            items.append(
                ItemSource(
                    members=tuple(m for m in group_members if m is not None),
                    is_group=True,
                    structured=grouped.structured,
                    functional=members.get(grouped.functional),
                    out=members.get(grouped.out),
                )
            )
        return cls(tuple(items))

    def candidates(self, traits: KeyTraits) -> tuple[ItemSource, ...]:
        """The items :func:`may_plan` admits for ``traits.key``, in module order.

        A run asks this for ~20 keys (each registration unit's slice): one pass
        sorting every item under its :attr:`~ItemSource.may_keys` answers them
        all, instead of a ``may_plan`` call per item and key (~71,000 calls on
        torch's files)."""
        by_key = self._by_may_key
        if by_key is None:
            lists: dict[str, list[ItemSource]] = {}
            for item in self.items:
                for key in item.may_keys:
                    lists.setdefault(key, []).append(item)
            by_key = {key: tuple(found) for key, found in lists.items()}
            object.__setattr__(self, "_by_may_key", by_key)
        return by_key.get(traits.key, ())


def plan_key(
    module: Module, traits: KeyTraits, index: PlanIndex | None = None
) -> tuple[PlannedItem, ...]:
    """The non-empty items of ``traits.key``'s registration file, in module order.

    ``index``: the module's :class:`PlanIndex`, if the caller plans several keys.
    """
    return plan_keys(module, (traits,), index)[0]


def plan_keys(
    module: Module, traits: Sequence[KeyTraits], index: PlanIndex | None = None
) -> list[tuple[PlannedItem, ...]]:
    """:func:`plan_key` of each of ``traits``, the keys not planned yet in one
    walk of the grouped listing: each item is planned for the keys it
    :func:`may_plan` among them (the headers plan eleven keys; a walk per key
    asked each item eleven times about keys most items have no kernel for)."""
    index = PlanIndex.of(module) if index is None else index
    planned = index._planned
    todo = {t.key: t for t in traits if t.key not in planned}
    if todo:
        found: dict[str, list[PlannedItem]] = {key: [] for key in todo}
        wanted = frozenset(todo)
        for item in index.items:
            for key in item.may_keys & wanted:
                wrappers = planned_wrappers(item, todo[key])
                if wrappers:
                    root = wrappers[0].function.func.name.name.base
                    found[key].append(PlannedItem(root, wrappers, item))
        for key, items in found.items():
            planned[key] = tuple(items)
    return [planned[t.key] for t in traits]


def may_plan(item: ItemSource, traits: KeyTraits) -> bool:
    """Whether ``traits.key``'s file may have wrappers for ``item``: every item
    :func:`planned_wrappers` gives some for, and a few more.  The one filter of
    :func:`plan_key` and of the registration units' slices (Note [Registration
    slices] in :mod:`.targets`), so the two cannot drift apart.

    A key gets wrappers from the items with a kernel for it (:func:`_plain`,
    and a structured group's own kernel); Meta and
    CompositeExplicitAutogradNonFunctional also from every structured group
    (:func:`_structured_group`), Meta from every in-place member
    (:func:`_needs_inplace_meta_stub`): :attr:`ItemSource.may_keys`."""
    return traits.key in item.may_keys


def planned_wrappers(item: ItemSource, traits: KeyTraits) -> tuple[Wrapper, ...]:
    """The wrappers ``traits.key``'s file has for the grouped ``item`` (a
    :attr:`PlannedItem.source`).  Planning reads only ``traits.key`` (and what
    follows from it: :attr:`~KeyTraits.is_meta`, ...), never the release's
    part of the traits, so plans are shared by key (:attr:`PlanIndex._planned`)."""
    return tuple(_plan_item(item, traits))


def _plan_item(item: ItemSource, traits: KeyTraits) -> Iterator[Wrapper]:
    if not item.is_group:
        for member in item.members:
            yield from _plain(member, traits)
        return
    functional, out = item.functional, item.out
    if item.structured and functional is not None and out is not None:
        structured = _structured_group(functional, out, traits)
        if structured is not None:
            for m in item.members:
                if traits.is_composite_non_functional and m.kind is SchemaKind.out:
                    continue  # the out= kernel is what a backend implements
                own = m.kernels.get(traits.key)
                yield Wrapper(m.function, WrapperKind.STRUCTURED, kernel=own, structured=structured)
            return
    for m in item.members:
        yield from _plain(m, traits)


def _structured_group(
    functional: _Member, out: _Member, traits: KeyTraits
) -> StructuredGroup | None:
    if traits.is_meta or traits.is_composite_non_functional:
        return StructuredGroup(functional.function, out.function, None)
    kernel = out.kernels.get(traits.key)
    if kernel is None or not kernel.structured:
        return None
    return StructuredGroup(functional.function, out.function, kernel)


def _plain(m: _Member, traits: KeyTraits) -> Iterator[Wrapper]:
    if m.function.manual_kernel_registration:
        return
    kernel = m.kernels.get(traits.key)
    if kernel is not None:
        yield Wrapper(m.function, WrapperKind.KERNEL, kernel=kernel)
    elif traits.is_meta and _needs_inplace_meta_stub(m):
        yield Wrapper(m.function, WrapperKind.INPLACE_META)


def _needs_inplace_meta_stub(m: _Member) -> bool:
    return (
        m.kind is SchemaKind.inplace
        and not m.has_composite_kernel
        # A stub cannot check a list of tensors in place.
        and len(m.function.func.returns) == 1
    )
