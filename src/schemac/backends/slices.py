"""Slices of backends made from the module's groups (Note [Unit slices] in
:mod:`schemac.backends.reuse`).

Here rather than in the backends' own modules: a slice is computed before its
emit call, and a unit it skips should not pay for importing its backend
(the functionalization backend's modules, ~10 ms)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar, cast

import attrs

from schemac.backends.registry import EmitOptions
from schemac.ir.groups import VariantGroup, ViewGroup
from schemac.ir.module import Module
from schemac.ir.schema import view_twin_key


@attrs.frozen(eq=False)
class GroupedMembers:
    """Every variant family and every view group, in module order, each with its
    members' functions and resolved dispatch tables (None for a member the module
    lacks): all that a backend made from the groups alone reads of the module
    (the functionalization kernels, ``CompositeViewCopyKernels.cpp``).  A
    function in no group (``isclose``) is not in it."""

    families: tuple[object, ...]
    views: tuple[object, ...]

    #: Remembered by the run's fingerprints (Note [File reuse]): one run memo
    #: holds one, so the units reading it digest it once.
    reuse_fields = ("families", "views")


def module_fields(module: Module, options: EmitOptions) -> object:
    """The module: the slice of a unit blind to an aspect of the entries
    (``BackendEntry.blind_to``; Note [Keys blind to an aspect] in
    :mod:`schemac.ir.slots`) without a slice of its own, that reads neither
    the variant families nor the view groups.  Every field an emit call can
    read is in it but those the others determine (see
    :data:`_DETERMINED_ELSEWHERE`), so the unit's claim of blindness is all it
    rests on.  Made once per run and process."""
    return _memoised(module, options, groups=False)


def module_fields_with_groups(module: Module, options: EmitOptions) -> object:
    """:func:`module_fields` with the variant families and view groups, for a
    unit that reads them (its ``requires`` names ``groups`` or ``view-groups``).

    The groups are kept apart because the passes making them run only when a
    unit still to emit requires them: after an edit of derivatives.yaml alone,
    the module of the units left has none, and a slice holding them would
    differ from the next run's for nothing."""
    return _memoised(module, options, groups=True)


def _memoised(module: Module, options: EmitOptions, *, groups: bool) -> ModuleFields:
    name = "module-fields-with-groups" if groups else "module-fields"
    made = options.memo.get(name, lambda: _Made(module, _fields(module, groups=groups)))
    return made.members if made.module is module else _fields(module, groups=groups)


@attrs.frozen(eq=False)
class ModuleFields:
    """Some of a module's fields, in field order (:func:`module_fields`)."""

    fields: tuple[object, ...]

    #: Remembered by the run's fingerprints (Note [File reuse]): the units
    #: reading it in one process digest it once.
    reuse_fields = ("fields",)


#: The module fields a slice need not hold, because its key holds what decides them.
#:
#: * Those loaded from an input file other than native_functions.yaml, as they
#:   are (tags, derivative entries, deprecated signatures): a slice key holds the
#:   digest of every other file its unit reads (Note [Unit slices]), and a unit
#:   reads nothing of a file it does not list.
#: * The resolutions: the resolve pass makes each from its function alone,
#:   under the run's options (Note [Functions keyed by their source] in
#:   :mod:`schemac.ir.native`).
#: * The autograd table: the late pass makes it from the functions, the
#:   derivative entries and the formula helpers (an input file too), and a
#:   unit reading it reads derivatives.yaml (else its unit key would miss an
#:   edit there already).  Left out, the slice is also the same before the late
#:   passes and after them, in either process of a split run.
#:
#: Walking the derivative entries and the table was most of a whole-module
#: slice's cost (~30 -> ~13 ms a walk).
_DETERMINED_ELSEWHERE = frozenset({"tags", "derivatives", "deprecated", "resolutions", "autograd"})
#: The groups, held only by :func:`module_fields_with_groups`: which functions
#: form a family depends on their signatures, defaults included.
_GROUP_FIELDS = frozenset({"grouped_functions", "grouped_views"})


def _fields(module: Module, *, groups: bool) -> ModuleFields:
    left_out = _DETERMINED_ELSEWHERE if groups else _DETERMINED_ELSEWHERE | _GROUP_FIELDS
    fields = [
        getattr(module, field.name)
        for field in attrs.fields(Module)
        if field.eq and field.name not in left_out
    ]
    return ModuleFields((*fields, _signature_classes(module)))


def _signature_classes(module: Module) -> tuple[tuple[int, int], ...]:
    """Which functions share a signature: for each, the position of the first
    function with its family key, and of the first with its family key after
    a ``_copy`` twin's base name is mapped to its view's (:func:`view_twin_key`).

    A slice blind to defaults shows no default, but the passes relate functions
    by signatures that hold them: the variant families and the canonical
    function of a derivatives.yaml entry by the family key, a view and its
    ``_copy`` twin (which takes the view's formulas) by the mapped one.  An edit
    of one function's default can part it from its partners.  The relations,
    not the defaults, are what such a unit depends on, and they are the same
    after an edit that keeps every signature's partners
    (``tests/rebuild/test_family_parting_edit.py``; ~3 ms for torch's functions)."""
    first: dict[object, int] = {}
    twins: dict[object, int] = {}
    classes = []
    for index, f in enumerate(module.functions):
        key = cast(tuple[Hashable, ...], f.func.family_key)
        family = first.setdefault(key, index)
        classes.append((family, twins.setdefault(view_twin_key(key), index)))
    return tuple(classes)


def grouped_members(module: Module, options: EmitOptions) -> GroupedMembers:
    """The module's :class:`GroupedMembers`, made once per run (``options.memo``)."""
    made = options.memo.get("grouped-members", lambda: _Made(module, _grouped_members(module)))
    # A memo belongs to one module; a caller reusing options across modules gets its own.
    return made.members if made.module is module else _grouped_members(module)


def _grouped_members(module: Module) -> GroupedMembers:
    def read(group: VariantGroup | ViewGroup) -> object:
        members = []
        for name in group.members():
            f = module.find_function(name)
            members.append((f, None if f is None else module.resolutions.get(name)))
        return (group, tuple(members))

    families = tuple(read(g) for g in module.groups)
    views = tuple(read(g) for g in module.view_groups)
    return GroupedMembers(families, views)


_Members = TypeVar("_Members")


@attrs.frozen(eq=False)
class _Made(Generic[_Members]):
    """A memo entry: the module it was made from (a memo belongs to one module)."""

    module: Module
    members: _Members


def functionalization_slice(module: Module, options: EmitOptions) -> object:
    """What the functionalization files are made from.

    ``functionalization_plan`` (:mod:`schemac.backends.functionalization.plan`)
    walks the variant families and the view groups only: a function in
    neither (``isclose``, most functional operators without an out= twin)
    gets nothing.  Of each group it reads the members' functions and
    resolved dispatch (which are CompositeImplicitAutograd, a composite view's
    kernel); the kernels and ViewMeta classes are made from those functions,
    the release policy and the view cache (the run context).  Under
    selective build nothing is registered; the banner reads the input path
    and the release."""
    selective = module.selection is not None
    groups = grouped_members(module, options)
    return (module.sources.native_functions, module.release, selective, groups)


def view_copy_slice(module: Module, options: EmitOptions) -> object:
    """What ``CompositeViewCopyKernels.cpp`` is made from
    (:mod:`schemac.backends.aten.registrations.view_copy`): its kernels and
    headers are looked up from the view groups and the variant families alone
    (each kernel's functions and the ``_copy`` twin's dispatch), and the
    banner reads the input path and the release."""
    return (module.sources.native_functions, module.release, grouped_members(module, options))
