"""Which backends exist, which ``-t`` targets they answer to, and parsing ``-t``.

A backend is anything with a ``name``, a one-line ``description``, the
``targets`` it answers to and ``emit(module, options) -> files`` (the
:class:`Backend` protocol).  The registry names each backend with the module
that defines it, and imports that module only when the backend is selected, so
``schemac compile -t schema`` never pays for importing the Python-bindings
backend.  Several backends may answer the same target (``python`` is the
bindings and the Tag enum), and one backend may answer several (the
registration backend answers every dispatch-key target).

To add a backend: write it (docs/backends.md), then add one
:class:`BackendEntry` line to :data:`BACKENDS`.  A test checks that every entry
imports and that the loaded backend's name and targets match its entry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Protocol, TypeVar, cast

import attrs

from schemac.backends.output.files import GeneratedFile
from schemac.backends.reuse import Deferred, DeferredGroup, Fragments
from schemac.diagnostics import Diagnostic, InputError
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile, reference_profile


@attrs.frozen
class Target:
    name: str
    description: str


#: Every ``-t`` target, in the order outputs are produced and listed.
TARGETS: tuple[Target, ...] = (
    Target("headers", "ATen C++ headers: Functions.h, Operators.h, ops/*.h, NativeFunctions.h"),
    Target("schema", "operator schemas: RegisterSchema.cpp, ATenOpList.cpp, interned strings, Tag"),
    Target("cpu", "kernel registrations for the CPU dispatch key"),
    Target("cuda", "kernel registrations for the CUDA dispatch key"),
    Target("mps", "kernel registrations for the MPS dispatch key"),
    Target("xpu", "kernel registrations for the XPU dispatch key"),
    Target("meta", "kernel registrations for the Meta dispatch key"),
    Target("composite", "registrations for the Composite* alias keys"),
    Target("quantized", "kernel registrations for the Quantized* dispatch keys"),
    Target("sparse", "kernel registrations for the Sparse* dispatch keys"),
    Target("sparsecsr", "kernel registrations for the SparseCsr* dispatch keys"),
    Target("nested", "kernel registrations for the NestedTensor* dispatch keys"),
    Target("mkldnn", "kernel registrations for the MkldnnCPU dispatch key"),
    Target("zerotensor", "kernel registrations for the ZeroTensor dispatch key"),
    Target("mtia", "kernel registrations for the MTIA dispatch key"),
    Target("hpu", "kernel registrations for the HPU dispatch keys"),
    Target("autograd", "autograd C++: derivative formulas, VariableType, TraceType"),
    Target("python", "Python binding C++: python_functions, python_enum_tag.cpp"),
    Target("backend", "an out-of-tree backend's stubs and registrations (compile --backend)"),
    Target("declarations", "Declarations.yaml: every operator as data, for binding generators"),
    Target("ufunc", "CPU and CUDA kernels of ufunc_inner_loop operators: UfuncCPU_<op>.cpp, ..."),
    Target(
        "functionalization",
        "RegisterFunctionalization_<n>.cpp, FunctionalInverses.h, ViewMetaClasses.{h,cpp}",
    ),
    Target("vmap", "VmapGeneratedPlumbing.h: functorch's batch-rule plumbing"),
    Target("aoti", "AOTInductor C shims of the fallback operators: aoti/c_shim_<device>.cpp"),
    Target("extension", "a torch C++ extension under OUT/<ns>/ (registrations, autograd, APIs)"),
)

TARGET_NAMES: tuple[str, ...] = tuple(t.name for t in TARGETS)

#: The ``-t`` word that selects every target.
ALL = "all"

#: Targets ``all`` leaves out: the extension target lays out a different kind
#: of output (a torch extension, not PyTorch's tree) and rejects ATen's YAML.
NOT_IN_ALL = frozenset({"extension"})


T = TypeVar("T")


class RunMemo:
    """Values derived from the module that the backends of several targets need.

    The driver makes one per run and hands it to every ``emit`` call of that
    run (one module), so a value such as a table of signature views is
    computed by the first backend that asks and reused by the others.  An
    entry must be a pure function of the module: dropping the memo changes
    nothing but speed.  Never module-level state.
    """

    def __init__(self) -> None:
        self._values: dict[str, object] = {}
        #: The names that emit calls still to come in this process read (Note
        #: [Memo values dropped after their last reader] in
        #: :mod:`schemac.backends.driver`); None: not known, any of them.
        self._later: frozenset[str] | None = None

    def get(self, name: str, make: Callable[[], T]) -> T:
        """The value called ``name``, made by ``make()`` on first use."""
        if name not in self._values:
            self._values[name] = make()
        return cast(T, self._values[name])

    def expect_later(self, names: Collection[str] | None) -> None:
        """What the emit calls after the current one read (None: not known);
        the driver says so before each emit call."""
        self._later = None if names is None else frozenset(names)

    def read_later(self, name: str) -> bool:
        """Whether an emit call still to come in this process may read ``name``."""
        later = self._later
        return later is None or name in later

    def done_with(self, name: str) -> None:
        """The current emit call reads ``name`` no more: drop it unless a
        later one reads it (the driver would drop it only after the call)."""
        if not self.read_later(name):
            self._values.pop(name, None)

    def keep_only(self, names: Collection[str]) -> None:
        """Drop every value but those called ``names`` (Note [Memo values
        dropped after their last reader] in :mod:`schemac.backends.driver`)."""
        for name in [n for n in self._values if n not in names]:
            del self._values[name]


@attrs.frozen
class EmitOptions:
    """What one ``emit`` call is asked for; the driver makes one per target."""

    #: The target being emitted (one of the backend's ``targets``).
    target: str
    #: Shared by every emit call of one run; a fresh one by default.
    memo: RunMemo = attrs.field(factory=RunMemo, eq=False, repr=False)
    #: The target release's policy: emitters ask it for named behaviours
    #: (Note [Release profiles]); never compare version numbers.
    profile: ReleaseProfile = attrs.field(factory=reference_profile, repr=False)
    #: Turn the backends' warnings into errors (``--Werror``).
    werror: bool = False
    #: The run's warning log: what backends warned about, for the caller to print.
    warnings: list[Diagnostic] = attrs.field(factory=list, eq=False, repr=False)
    #: Pieces of aggregate files go through it (Note [Fragment reuse]); by
    #: default every piece is rendered.
    fragments: Fragments = attrs.field(factory=Fragments, eq=False, repr=False)

    def finish(self, errors: Sequence[Diagnostic], warnings: Sequence[Diagnostic]) -> None:
        """Raise ``errors`` (and, with ``werror``, ``warnings``) before any file; log the rest.

        The channel of a backend's own diagnostics: the caller prints the
        logged warnings with the passes', rendered like errors.
        """
        if self.werror and warnings:
            errors = [*errors, *(w.as_error() for w in warnings)]
        if errors:
            raise InputError([*errors, *([] if self.werror else warnings)])
        self.warnings.extend(warnings)


class Backend(Protocol):
    """What every backend provides; see the module docstring."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def targets(self) -> tuple[str, ...]: ...

    def emit(
        self, module: Module, options: EmitOptions
    ) -> Iterable[GeneratedFile | Deferred | DeferredGroup]:
        """The backend's files; a :class:`~schemac.backends.reuse.Deferred` one is
        rendered only if OUT does not hold it already (Note [File reuse]), the
        files of a :class:`~schemac.backends.reuse.DeferredGroup` likewise under
        one key (Note [File groups])."""
        ...


@attrs.frozen
class BackendEntry:
    """A backend as the registry knows it before importing it."""

    name: str
    #: ``package.module:attribute`` of the backend object.
    location: str
    targets: tuple[str, ...]
    #: The IR facts (pass ``provides``, docs/passes.md) the backend reads;
    #: ``schemac compile`` runs only the passes that provide them.
    requires: tuple[str, ...] = ()
    #: Which of the module's input files (:data:`SOURCE_KINDS`) the backend's
    #: output depends on; by default all.  A re-run after an edit of a file no
    #: selected backend of a target reads reuses that target's files
    #: (docs/rebuild.md), so a name left out is a file whose edits go unseen.
    reads: tuple[str, ...] = ()
    #: Input files besides ``native_functions.yaml`` whose edits the inputs of
    #: every fragment of this backend cover (Note [Fragment reuse]): their digests
    #: are left out of its fragments' context, so that an edit of one keeps the
    #: pieces it did not change.  Only for a backend all of whose fragments'
    #: renders read nothing of such a file but through their inputs.
    covers: tuple[str, ...] = ()
    #: ``package.module:function`` of the backend's *slice* (Note [Unit slices]
    #: in :mod:`schemac.backends.reuse`): ``slice(module, options)``, every value
    #: of the module the emit call's files are made from.  Its fingerprint stands
    #: in for ``native_functions.yaml`` in the unit's key, so an emit call whose
    #: slice did not change is skipped.  Empty: none (the call runs after every
    #: edit of what it reads).
    slice: str = ""
    #: The aspect of the entries (:data:`~schemac.ir.slots.BLIND_ASPECTS`) that
    #: none of the unit's files depends on: its slice, or without one the whole
    #: module (:attr:`module_slice`), is keyed blind to it (Note [Keys
    #: blind to an aspect] in :mod:`schemac.ir.slots`), so an edit of only that
    #: aspect skips the call.  ``tests/rebuild/test_blind_units.py`` checks
    #: each claim on torch's YAML.  Empty: none.
    blind_to: str = ""
    #: The names of the :class:`RunMemo` values its emit call (and slice) read;
    #: None: not known, any.  Once no unit still to come in a process reads a
    #: value, the driver drops it (Note [Memo values dropped after their last
    #: reader] in :mod:`schemac.backends.driver`).
    memo_reads: tuple[str, ...] | None = None

    def load(self) -> Backend:
        module_name, _, attribute = self.location.partition(":")
        backend: Backend = getattr(importlib.import_module(module_name), attribute)
        return backend

    @property
    def sliced(self) -> bool:
        """Whether the unit has a slice (its own, or the whole module's)."""
        return bool(self.slice or self.blind_to)

    @property
    def slice_before_late(self) -> bool:
        """Whether the unit has a slice that is the same before the late passes
        as after them (it reads none of their facts), so that it may be asked
        before they run (Note [Late passes skipped] in :mod:`.driver`)."""
        if self.slice:
            return self.slice in LATE_FREE_SLICES
        return bool(self.blind_to)  # the module slices leave the autograd table out

    @property
    def module_slice(self) -> str:
        """The slice of a unit blind to an aspect without one of its own: the
        module's fields, with its groups if the unit reads them."""
        if {"groups", "view-groups"} & set(self.requires):
            return MODULE_WITH_GROUPS_SLICE
        return MODULE_SLICE

    def load_slice(self) -> SliceFunction | None:
        """The function :attr:`slice` names, if any; for a unit blind to an
        aspect without one, :attr:`module_slice`."""
        location = self.slice or (self.module_slice if self.blind_to else "")
        if not location:
            return None
        module_name, _, attribute = location.partition(":")
        function: SliceFunction = getattr(importlib.import_module(module_name), attribute)
        return function


#: The slices of a unit blind to an aspect that reads the module as a whole
#: (``BackendEntry.module_slice``).
MODULE_SLICE = "schemac.backends.slices:module_fields"
MODULE_WITH_GROUPS_SLICE = "schemac.backends.slices:module_fields_with_groups"
#: The slices of late units that read no late fact (``BackendEntry.slice_before_late``).
LATE_FREE_SLICES = frozenset({"schemac.backends.autograd.factories:factories_slice"})

#: ``slice(module, options) -> values``: see :attr:`BackendEntry.slice`.
SliceFunction = Callable[[Module, EmitOptions], object]


#: The module's input files, by their ``SourceFiles`` field names.
SOURCE_KINDS = ("native_functions", "tags", "derivatives", "deprecated")
#: The files behind functions, dispatch and tags: what every backend reads.
_YAML = ("native_functions", "tags")

#: What most backends read: every function (synthesised variants included,
#: implicit tags added) with its dispatch resolved.
_FUNCTIONS = ("resolved-dispatch", "implicit-tags", "generated-variants")
#: ... plus the variant families, checked for structured-kernel consistency.
_FAMILIES = (*_FUNCTIONS, "groups", "structured-checked")

#: The :class:`RunMemo` names of the ATen backends' shared state and plan index
#: (:mod:`schemac.backends.aten.run_state`, which imports them from here).
ATEN_STATE = "aten-run-state"
ATEN_PLAN = "aten-plan-index"
#: Not a value of its own but a part of the ATen state's view table: the
#: native (kernel) signature views, which the per-operator headers keep only
#: for an emit call still to come that reads them (the registrations; see
#: :meth:`~schemac.backends.aten.signatures.table.ViewTable.native`).
ATEN_NATIVE_VIEWS = "aten-native-views"

BACKENDS: tuple[BackendEntry, ...] = (
    # Operators.cpp before the headers: its largest file (OperatorsEverything.cpp,
    # 3 MB of text and again of bytes) then renders while only the dispatcher
    # views are alive, not beside everything the headers leave in the run's
    # view table; -t headers -j 1 peaked at 91 MiB there, 86 MiB this way.
    BackendEntry(
        "aten-operators",
        "schemac.backends.aten.registrations.operators:BACKEND",
        ("headers",),
        _FUNCTIONS,
        _YAML,
        memo_reads=(ATEN_STATE,),
        blind_to="kernel-names",
    ),
    BackendEntry(
        "aten-aggregate-headers",
        "schemac.backends.aten.headers.backend:AGGREGATE_BACKEND",
        ("headers",),
        _FAMILIES,
        _YAML,
        memo_reads=(ATEN_STATE, ATEN_PLAN),
        blind_to="kernel-names",
    ),
    BackendEntry(
        "aten-headers",
        "schemac.backends.aten.headers.backend:BACKEND",
        ("headers",),
        _FAMILIES,
        _YAML,
        memo_reads=(ATEN_STATE, ATEN_NATIVE_VIEWS),
    ),
    BackendEntry(
        "aten-schema",
        "schemac.backends.aten.schema_backend:BACKEND",
        ("schema",),
        _FUNCTIONS,
        _YAML,
        blind_to="kernel-names",
    ),
    BackendEntry(
        "aten-backend-select",
        "schemac.backends.aten.registrations.backend_select:BACKEND",
        ("schema",),
        _FUNCTIONS,
        _YAML,
        slice="schemac.backends.aten.registrations.backend_select:backend_select_slice",
        blind_to="kernel-names",
    ),
    BackendEntry(
        "python-enum-tag",
        "schemac.backends.aten.enum_tag:PYTHON_BACKEND",
        ("python",),
        _FUNCTIONS,
        _YAML,
        blind_to="kernel-names+defaults",
    ),
    BackendEntry(
        "aten-registrations",
        "schemac.backends.aten.registrations.targets:BACKEND",
        (
            "cpu",
            "cuda",
            "mps",
            "xpu",
            "meta",
            "composite",
            "quantized",
            "sparse",
            "sparsecsr",
            "nested",
            "hpu",
            "mkldnn",
            "zerotensor",
            "mtia",
        ),
        _FAMILIES,
        _YAML,
        slice="schemac.backends.aten.registrations.targets:registration_slice",
        blind_to="defaults",
    ),
    BackendEntry(
        "aten-view-copy-kernels",
        "schemac.backends.aten.registrations.view_copy:BACKEND",
        ("composite",),
        (*_FAMILIES, "view-groups"),
        _YAML,
        slice="schemac.backends.slices:view_copy_slice",
        blind_to="defaults",
    ),
    BackendEntry(
        "python-bindings",
        "schemac.backends.python.backend:BACKEND",
        ("python",),
        _FUNCTIONS,
        (*_YAML, "deprecated"),
        blind_to="kernel-names",
    ),
    BackendEntry(
        "python-autograd-nodes",
        "schemac.backends.python.backend:NODES_BACKEND",
        ("python",),
        (*_FUNCTIONS, "autograd-infos"),
        (*_YAML, "derivatives"),
        blind_to="kernel-names+defaults",
    ),
    # The pieces of both (Note [Autograd pieces]) are keyed by the derivative
    # infos they print, so an edit of derivatives.yaml prints only the changed ones.
    BackendEntry(
        "autograd",
        "schemac.backends.autograd.backend:BACKEND",
        ("autograd",),
        (*_FUNCTIONS, "autograd-infos"),
        (*_YAML, "derivatives"),
        covers=("derivatives",),
        blind_to="kernel-names+defaults",
    ),
    BackendEntry(
        "autograd-kernels",
        "schemac.backends.autograd.backend:KERNELS_BACKEND",
        ("autograd",),
        (*_FUNCTIONS, "autograd-infos"),
        (*_YAML, "derivatives"),
        covers=("derivatives",),
        blind_to="kernel-names+defaults",
    ),
    # variable_factories.h alone: the one file of the target that shows defaults.
    # It reads no autograd info, but waits for them with the target's other units:
    # with one unit free of the late facts, `-t autograd` alone would run the
    # late passes in a child and emit both large units there one after the other
    # (Note [Late work]), instead of running its passes first and the units in
    # two processes.
    BackendEntry(
        "autograd-factories",
        "schemac.backends.autograd.backend:FACTORIES_BACKEND",
        ("autograd",),
        (*_FUNCTIONS, "autograd-infos"),
        _YAML,
        slice="schemac.backends.autograd.factories:factories_slice",
    ),
    BackendEntry(
        "backend-stubs",
        "schemac.backends.backend_stubs.backend:BACKEND",
        ("backend",),
        _FAMILIES,
        _YAML,
    ),
    BackendEntry(
        "aten-mtia-headers",
        "schemac.backends.aten.headers.mtia:BACKEND",
        ("mtia",),
        _FAMILIES,
        _YAML,
        blind_to="kernel-names",
    ),
    BackendEntry(
        "declarations",
        "schemac.backends.declarations.backend:BACKEND",
        ("declarations",),
        _FUNCTIONS,
        _YAML,
        blind_to="kernel-names",
    ),
    BackendEntry("ufunc", "schemac.backends.ufunc.backend:BACKEND", ("ufunc",), _FAMILIES, _YAML),
    BackendEntry(
        "functionalization",
        "schemac.backends.functionalization.backend:BACKEND",
        ("functionalization",),
        (*_FAMILIES, "view-groups"),
        _YAML,
        slice="schemac.backends.slices:functionalization_slice",
        blind_to="defaults",
    ),
    BackendEntry(
        "vmap-plumbing",
        "schemac.backends.vmap.backend:BACKEND",
        ("vmap",),
        _FUNCTIONS,
        _YAML,
        blind_to="kernel-names+defaults",
    ),
    BackendEntry(
        "aoti",
        "schemac.backends.aoti.backend:BACKEND",
        ("aoti",),
        _FUNCTIONS,
        _YAML,
        slice="schemac.backends.aoti.slice:aoti_slice",
        blind_to="kernel-names",
    ),
    BackendEntry(
        "extension",
        "schemac.backends.extension.backend:BACKEND",
        ("extension",),
        (*_FAMILIES, "autograd-infos"),
    ),
)


class UnknownTargetError(ValueError):
    """``-t`` named a target that does not exist or has no backend (a usage error)."""


def backends_for(target: str) -> tuple[BackendEntry, ...]:
    return tuple(entry for entry in BACKENDS if target in entry.targets)


def target_reads(target: str) -> frozenset[str]:
    """The input files (:data:`SOURCE_KINDS`) the backends of ``target`` read; an
    entry that names none reads them all."""
    return frozenset(
        kind for entry in backends_for(target) for kind in (entry.reads or SOURCE_KINDS)
    )


def fragment_unit(target: str, backend: str) -> str:
    """Whose context a backend's fragments are kept in (Note [Fragment reuse]): the
    target and the backend, so that each is keyed on the files that backend reads."""
    return f"{target}/{backend}"


def unit_reads(unit: str) -> frozenset[str]:
    """The input files a fragment unit (:func:`fragment_unit`) or a target reads."""
    target, _, backend = unit.partition("/")
    if not backend:
        return target_reads(target)
    entry = next((e for e in backends_for(target) if e.name == backend), None)
    return target_reads(target) if entry is None else frozenset(entry.reads or SOURCE_KINDS)


def unit_covers(unit: str) -> frozenset[str]:
    """The input files whose edits the inputs of a fragment unit's pieces (or a
    target's deferred files) cover: ``native_functions`` always, and the
    backend's :attr:`BackendEntry.covers`."""
    target, _, backend = unit.partition("/")
    entry = next((e for e in backends_for(target) if e.name == backend), None) if backend else None
    return frozenset(("native_functions", *(entry.covers if entry is not None else ())))


def required_facts(targets: Iterable[str]) -> frozenset[str]:
    """The IR facts the backends of ``targets`` read (what the pass pipeline must provide)."""
    return frozenset(fact for t in targets for entry in backends_for(t) for fact in entry.requires)


def parse_targets(text: str) -> tuple[str, ...]:
    """The targets a ``-t`` value selects, deduplicated, in :data:`TARGETS` order.

    ``all`` selects every target that has a backend, including mps and xpu.
    """
    valid = f"valid targets: {ALL}, {', '.join(TARGET_NAMES)}"
    words = [word.strip() for word in text.split(",")]
    if not any(words):
        raise UnknownTargetError(f"no target given; {valid}")
    chosen: set[str] = set()
    for word in words:
        if not word:
            continue
        if word == ALL:
            chosen.update(t for t in TARGET_NAMES if backends_for(t) and t not in NOT_IN_ALL)
            continue
        if word not in TARGET_NAMES:
            raise UnknownTargetError(f"unknown target '{word}'; {valid}")
        if not backends_for(word):
            implemented = ", ".join(t for t in TARGET_NAMES if backends_for(t))
            raise UnknownTargetError(
                f"target '{word}' has no backend yet; implemented targets: {implemented}"
            )
        chosen.add(word)
    return tuple(t for t in TARGET_NAMES if t in chosen)
