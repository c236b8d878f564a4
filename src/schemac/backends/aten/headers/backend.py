"""The ``headers`` target: every ATen C++ header, per operator and umbrella.

This module only lays files out: it builds the :class:`Catalog` once, asks
each family module for its view objects and renders them with the
package's templates.  Paths are relative to the output directory, which a
C++ build puts first on its include path (``#include <ATen/ops/add.h>``).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.collector import module_frozen
from schemac.backends.aten.headers import (
    dispatch_keys,
    functions,
    host_splices,
    metas,
    natives,
    ops_structs,
    redispatch,
    registration_decls,
    tensor_body,
)
from schemac.backends.aten.headers.catalog import Catalog, Entry, Family
from schemac.backends.aten.headers.export_macros import dispatch_export
from schemac.backends.aten.headers.pieces import catalog_pieces
from schemac.backends.aten.registrations.plan import PlanIndex
from schemac.backends.aten.run_state import AtenRunState, aten_run_state
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.host_text import spliced_file
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.registry import ATEN_NATIVE_VIEWS, EmitOptions
from schemac.backends.reuse import Deferred, DeferredGroup, Fragments, rendered_files
from schemac.backends.templating import Templates, module_sources
from schemac.ir.host import ATEN, HostFile, HostTemplates
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile, reference_profile

OPS_DIR = "ATen/ops"


@attrs.frozen
class _Renderer:
    templates: Templates
    sources: Provenance
    #: The host release's template text (schemac.ir.host), when given.
    host_templates: HostTemplates | None = None
    #: The run's view table and release policy (the per-operator files' context).
    views: ViewTable = attrs.field(factory=ViewTable)
    profile: ReleaseProfile = attrs.field(factory=reference_profile)
    #: Whether ``views`` keeps the native signature views the ``_native.h``
    #: files compute: only when an emit call still to come reads them
    #: (``RunMemo.read_later``); the texts are the same either way.
    keep_native_views: bool = True

    def host(self, name: str) -> HostFile | None:
        """PyTorch's own template ``name``, to splice into instead of schemac's skeleton."""
        return None if self.host_templates is None else self.host_templates.get(ATEN, name)

    def text(self, template: str, view: object) -> str:
        return self.templates.render(template, view, sources=self.sources)

    def file(
        self, path: str, template: str, view: object, family: Family | None = None
    ) -> GeneratedFile:
        text = self.text(template, view)
        span = family.entries[0].fn.span if family is not None else None
        return GeneratedFile(path, text) if span is None else GeneratedFile(path, text, span=span)


# The per-operator files are deferred (Note [File reuse]): each names the
# family (its functions, dispatch tables and variant groups) and whatever
# module-wide fact it reads as its inputs, and renders only from those and
# the run's _Renderer.


def _render_ops(r: _Renderer, family: Family) -> str:
    return r.text("operator_structs.h.mako", ops_structs.operators_header(family))


def _render_function(r: _Renderer, family: Family) -> str:
    return r.text("function.h.mako", functions.function_header(family, r.views))


@attrs.frozen
class _DeclaredKeys:
    """The module's :func:`~.natives.declared_keys`, one object read by every
    ``_native.h``: as a class with ``reuse_fields`` its encoding is remembered
    (Note [File reuse]), where a bare tuple's forty-odd strings were encoded
    again into each of the 1,342 files' keys."""

    keys: tuple[str, ...]

    reuse_fields = ("keys",)


def _render_native(r: _Renderer, inputs: tuple[Family, _DeclaredKeys]) -> str:
    family, declared = inputs
    header = natives.native_header(
        family, declared.keys, r.views, r.profile, keep_views=r.keep_native_views
    )
    return r.text("native.h.mako", header)


def _render_meta(r: _Renderer, family: Family) -> str:
    meta = metas.meta_header(family)
    assert meta is not None, "deferred only for a family with structured groups"
    return r.text("meta.h.mako", meta)


def _render_dispatch(r: _Renderer, inputs: tuple[str, list[Entry], str, str]) -> str:
    root, entries, key, export = inputs
    return r.text("dispatch.h.mako", dispatch_keys.dispatch_header(root, entries, key, export))


def _per_operator(r: _Renderer, catalog: Catalog) -> Iterator[DeferredGroup]:
    """A family's files, one group (Note [File groups]): its three or four
    files are made from the family (and the module's dispatch keys) alone."""
    keys = _DeclaredKeys(natives.declared_keys(catalog))
    renders = (_render_ops, _render_function, _render_native)
    with_meta = (*renders, _render_meta)
    for family in catalog.families:
        root = family.root
        span = family.entries[0].fn.span
        paths = (f"{OPS_DIR}/{root}_ops.h", f"{OPS_DIR}/{root}.h", f"{OPS_DIR}/{root}_native.h")
        inputs = (family, family, (family, keys))
        if family.structured_groups:
            yield DeferredGroup(
                (*paths, f"{OPS_DIR}/{root}_meta.h"), with_meta, (*inputs, family), r, span
            )
        else:
            yield DeferredGroup(paths, renders, inputs, r, span)


def _per_key(
    r: _Renderer, module: Module, catalog: Catalog, index: PlanIndex
) -> Iterator[GeneratedFile | DeferredGroup]:
    """Every key's ``ops/<op>_<key>_dispatch.h``, one group per root name
    (Note [File groups]: ~1,300 keys for torch's 3,370 files), then each key's
    ``<key>Functions.h`` and ``_inl.h``."""
    declared = dispatch_keys.declared_by_keys(module, catalog, dispatch_keys.HEADER_KEYS, index)
    by_root: dict[str, list[tuple[str, list[Entry]]]] = {}
    for key, roots in declared.items():
        for root, entries in roots.items():
            by_root.setdefault(root, []).append((key, entries))
    exports = {key: dispatch_export(catalog.profile, key) for key in declared}
    for root, keyed in by_root.items():
        yield DeferredGroup(
            tuple(dispatch_keys.dispatch_header_path(root, key) for key, _ in keyed),
            (_render_dispatch,) * len(keyed),
            tuple((root, entries, key, exports[key]) for key, entries in keyed),
            r,
        )
    del by_root
    for key, roots in declared.items():
        yield from _key_umbrellas(r, key, roots)


def _key_umbrellas(
    r: _Renderer, key: str, declared: dict[str, list[Entry]]
) -> Iterator[GeneratedFile]:
    umbrella = dispatch_keys.key_umbrella(key, declared)
    yield r.file(f"ATen/{key}Functions.h", "KeyFunctions.h.mako", umbrella)
    yield r.file(f"ATen/{key}Functions_inl.h", "KeyFunctions_inl.h.mako", umbrella)


def _key_files(
    r: _Renderer, module: Module, catalog: Catalog, index: PlanIndex, key: str
) -> Iterator[GeneratedFile | Deferred]:
    """``ops/<op>_<key>_dispatch.h`` (deferred), ``<key>Functions.h`` and ``_inl.h``."""
    export = dispatch_export(catalog.profile, key)
    declared = dispatch_keys.declared_by_root(module, catalog, key, index)
    for root, entries in declared.items():
        path = dispatch_keys.dispatch_header_path(root, key)
        yield Deferred(path, _render_dispatch, (root, entries, key, export), r)
    yield from _key_umbrellas(r, key, declared)


def iter_key_headers(
    module: Module, key: str, state: AtenRunState, profile: ReleaseProfile | None = None
) -> Iterator[GeneratedFile | Deferred]:
    """One dispatch key's headers (:func:`_key_files`), for a key outside
    :data:`~.dispatch_keys.HEADER_KEYS` (``mtia``): the per-operator ones
    deferred, so that an edit renders only the edited operators'."""
    catalog = state.catalog(profile)
    yield from _key_files(_renderer(module, state, catalog), module, catalog, state.plan, key)


def _umbrellas(r: _Renderer, catalog: Catalog, fragments: Fragments) -> Iterator[GeneratedFile]:
    yield r.file("ATen/Operators.h", "Operators.h.mako", ops_structs.all_operators(catalog))
    yield r.file(
        "ATen/MethodOperators.h", "MethodOperators.h.mako", ops_structs.method_operators(catalog)
    )
    umbrella = functions.functions_umbrella(catalog)
    host = r.host("Functions.h")
    if host is None:
        yield r.file("ATen/Functions.h", "Functions.h.mako", umbrella)
    else:
        yield spliced_file("ATen/Functions.h", host, host_splices.functions_h(umbrella))
    yield r.file(
        "ATen/NativeFunctions.h", "NativeFunctions.h.mako", natives.native_umbrella(catalog)
    )
    yield r.file(
        "ATen/NativeMetaFunctions.h", "NativeMetaFunctions.h.mako", metas.meta_umbrella(catalog)
    )
    pieces = catalog_pieces(catalog, fragments)
    yield r.file(
        "ATen/RedispatchFunctions.h",
        "RedispatchFunctions.h.mako",
        redispatch.redispatch_header(p.redispatch for p in pieces),
    )
    yield r.file(
        "ATen/RegistrationDeclarations.h",
        "RegistrationDeclarations.h.mako",
        registration_decls.registration_declarations(p.registration for p in pieces),
    )
    if not tensor_body.defines_tensor_class(catalog):
        return
    methods = ((p.method_declarations, p.method_definitions) for p in pieces)
    body = tensor_body.tensor_body(catalog, methods)
    host = r.host("TensorBody.h")
    if host is None:
        yield r.file("ATen/core/TensorBody.h", "TensorBody.h.mako", body)
    else:
        definitions = r.templates.render("tensor_method_definitions.mako", body)
        fillings = host_splices.tensor_body_h(body, definitions)
        yield spliced_file("ATen/core/TensorBody.h", host, fillings)
    # The out-of-line halves of Functions.h and TensorBody.h (TensorMaker,
    # Tensor::item<T>): PyTorch's text alone, so only when the host gave it.
    for path, name in host_splices.HOST_ONLY_SOURCES:
        source = r.host(name)
        if source is not None:
            yield spliced_file(path, source, {})


def _renderer(
    module: Module, state: AtenRunState, catalog: Catalog, keep_native_views: bool = True
) -> _Renderer:
    return _Renderer(
        state.templates(__package__ or ""),
        module_sources(module),
        module.host_templates,
        catalog.views,
        catalog.profile,
        keep_native_views,
    )


def iter_operator_headers(
    module: Module,
    state: AtenRunState | None = None,
    profile: ReleaseProfile | None = None,
    keep_native_views: bool = True,
) -> Iterator[DeferredGroup]:
    """The per-operator headers (``ops/<op>_ops.h``, ``<op>.h``, ``_native.h``, ``_meta.h``),
    each deferred (Note [File reuse]).  ``state``: the run's shared views, plan
    index and catalog, if other targets share them; ``profile``: the target
    release's (the reference release's by default); ``keep_native_views``:
    whether the state's view table keeps the kernels' signature views made
    here, for a later reader."""
    state = AtenRunState.of(module) if state is None else state
    catalog = state.catalog(profile)
    renderer = _renderer(module, state, catalog, keep_native_views)
    yield from _per_operator(renderer, catalog)


def iter_aggregate_headers(
    module: Module,
    state: AtenRunState | None = None,
    profile: ReleaseProfile | None = None,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile | Deferred | DeferredGroup]:
    """The headers made per dispatch key (``ops/<op>_<key>_dispatch.h``,
    ``<key>Functions.h``) and the umbrellas (Functions.h, Operators.h,
    TensorBody.h, ...).  ``fragments``: where the per-function pieces of the
    aggregate headers are rendered (Note [Fragment reuse]; each rendered here
    by default)."""
    state = AtenRunState.of(module) if state is None else state
    catalog = state.catalog(profile)
    renderer = _renderer(module, state, catalog)
    yield from _per_key(renderer, module, catalog, state.plan)
    # The umbrellas read no plan: RedispatchFunctions.h, the peak of a process
    # emitting these headers, is rendered without the plan index (~2.7 MiB
    # traced on torch's files) unless a later emit call reads it.
    state.done_with_plan()
    yield from _umbrellas(renderer, catalog, Fragments() if fragments is None else fragments)


def iter_headers(
    module: Module,
    state: AtenRunState | None = None,
    profile: ReleaseProfile | None = None,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile | Deferred | DeferredGroup]:
    """Every header of the ``headers`` target, each as soon as it is rendered
    (:func:`iter_operator_headers`, then :func:`iter_aggregate_headers`)."""
    state = AtenRunState.of(module) if state is None else state
    yield from iter_operator_headers(module, state, profile)
    yield from iter_aggregate_headers(module, state, profile, fragments)


def emit_headers(
    module: Module, state: AtenRunState | None = None, profile: ReleaseProfile | None = None
) -> tuple[GeneratedFile, ...]:
    """Every header (:func:`iter_headers`), rendered."""
    return tuple(rendered_files(iter_headers(module, state, profile)))


# Two backends, so that split emission (Note [Split emission]) can deal the
# target's work into two processes: the per-operator headers and the rest are
# about equal halves (0.8 s and 0.7 s of CPU on torch's YAML, each alone).  In
# one process the second reuses the first's catalog and views (AtenRunState).


@attrs.frozen
class HeadersBackend:
    name: str = "aten-headers"
    description: str = "ATen per-operator headers: ops/<op>.h, _ops.h, _native.h, _meta.h"
    targets: tuple[str, ...] = ("headers",)

    def emit(
        self, module: Module, options: EmitOptions
    ) -> Iterator[GeneratedFile | Deferred | DeferredGroup]:
        # A generator: each header reaches the driver (and the stager) as soon
        # as it is rendered; the module stays frozen until the last.
        with module_frozen():
            yield from iter_operator_headers(
                module,
                aten_run_state(module, options),
                options.profile,
                keep_native_views=options.memo.read_later(ATEN_NATIVE_VIEWS),
            )


@attrs.frozen
class AggregateHeadersBackend:
    name: str = "aten-aggregate-headers"
    description: str = (
        "ATen headers per dispatch key and across operators: <key>Functions.h,"
        " ops/<op>_<key>_dispatch.h, Functions.h, Operators.h, TensorBody.h, ..."
    )
    targets: tuple[str, ...] = ("headers",)

    def emit(
        self, module: Module, options: EmitOptions
    ) -> Iterator[GeneratedFile | Deferred | DeferredGroup]:
        with module_frozen():
            yield from iter_aggregate_headers(
                module, aten_run_state(module, options), options.profile, options.fragments
            )


BACKEND = HeadersBackend()
AGGREGATE_BACKEND = AggregateHeadersBackend()
