"""``ATen/Operators_<n>.cpp``: the bodies of ``at::_ops::<op>::call`` / ``redispatch``.

``ATen/Operators.h`` (the ``headers`` target) declares one struct per
operator in ``at::_ops``; this file defines its two entry points.  Both look
the operator up in the dispatcher once, through a ``C10_NOINLINE`` factory so
that the lookup code is not inlined into every caller, keep the typed handle
in a function-local static, and call it: ``call`` enters the dispatcher at
the top, ``redispatch`` continues below the given key set.

Sharded by root name into 5 files plus ``OperatorsEverything.cpp``, like
PyTorch's build expects; this backend answers the ``headers`` target beside
the header backend.  The definitions are printed in buckets of fragments
(Note [Fragment buckets] in :mod:`schemac.backends.buckets`): an operator's
text is a function of its function alone, and ~13 us each is too little to
pay for a fragment of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import attrs

from schemac.backends.aten.collector import module_frozen
from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.aten.signatures.naming import root_name, unambiguous_name
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.buckets import SEPARATOR, bucketed_texts
from schemac.backends.output import GeneratedFile, ShardedFile, sharded
from schemac.backends.registry import EmitOptions
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates, native_sources
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction

PACKAGE = "schemac.backends.aten.registrations"
NUM_SHARDS = 5


@attrs.frozen
class OperatorsFileView:
    shard_note: str
    headers: tuple[str, ...]
    definitions: tuple[str, ...]


def operator_definitions(f: NativeFunction, views: ViewTable) -> str:
    """The handle factory, ``call`` and ``redispatch`` of one operator."""
    name = unambiguous_name(f.func)
    sig = views.dispatcher(f)
    factory = f"create_{name}_typed_handle"
    schema_comment = f"// {f.namespace}::{f.func}"
    lookup = block(
        f"static C10_NOINLINE c10::TypedOperatorHandle<{name}::schema> {factory}()",
        [
            "return c10::Dispatcher::singleton()",
            f"    .findSchemaOrThrow({name}::name, {name}::overload_name)",
            f"    .typed<{name}::schema>();",
        ],
    )
    args = list(sig.param_names)
    call_body = [f"static auto op = {factory}();", f"return {call('op.call', args)};"]
    redispatch_body = [
        f"static auto op = {factory}();",
        f"return {call('op.redispatch', ['dispatchKeySet', *args])};",
    ]
    call_defn = block(sig.defn(f"{name}::call"), call_body)
    redispatch_defn = block(sig.defn(f"{name}::redispatch", redispatch=True), redispatch_body)
    return "\n".join([schema_comment, lookup, call_defn, redispatch_defn])


def _view(
    functions: Iterable[NativeFunction], definitions: dict[int, str], note: str
) -> OperatorsFileView:
    """``definitions``: each function's text, by the function's identity."""
    functions = tuple(functions)
    headers = sorted({f"ATen/ops/{root_name(f.func)}_ops.h" for f in functions})
    return OperatorsFileView(note, tuple(headers), tuple(definitions[id(f)] for f in functions))


def _render_bucket(views: ViewTable, inputs: tuple[str, tuple[NativeFunction, ...]]) -> str:
    """A bucket of :func:`operator_definitions` (Note [Fragment buckets])."""
    return "".join(operator_definitions(f, views) + SEPARATOR for f in inputs[1])


def operators_files(
    module: Module,
    templates: Templates,
    views: ViewTable | None = None,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile]:
    """``views``: the run's view table, if other emitters share it;
    ``fragments``: where the definitions are printed (the target's)."""
    views = ViewTable() if views is None else views
    files = ShardedFile("ATen/Operators.cpp", NUM_SHARDS)
    sources = native_sources(module)
    # Printed once each; a function's shard and the Everything file share the text.
    functions = module.functions
    texts = bucketed_texts(
        Fragments() if fragments is None else fragments,
        _render_bucket,
        "operators",
        functions,
        [str(f.func.name) for f in functions],
        views,
    )
    definitions = {id(f): text for f, text in zip(functions, texts, strict=True)}
    del texts  # the definitions' only holder is now ``definitions``, cleared below
    shards = sharded(module.functions, lambda f: root_name(f.func), NUM_SHARDS)
    for index, shard in enumerate(shards):
        view = _view(shard, definitions, f", shard {index + 1} of {NUM_SHARDS}")
        # Not kept in a local: a shard's text is not held while the next renders.
        yield GeneratedFile(
            files.shard_path(index),
            templates.render("Operators.cpp.mako", view, sources=sources),
        )
    view = _view(module.functions, definitions, "")
    # The view holds every definition now; the file is made from it alone, so
    # once it is rendered the definitions (3 MB) go before the file is staged.
    definitions.clear()
    everything = templates.render("Operators.cpp.mako", view, sources=sources)
    del view
    yield GeneratedFile(files.everything_path, everything)


@attrs.frozen
class OperatorsBackend:
    name: str = "aten-operators"
    description: str = "Operators_<n>.cpp: at::_ops::<op>::call and redispatch"
    targets: tuple[str, ...] = ("headers",)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile]:
        # A generator: each shard is staged (and its text dropped) before the
        # next is rendered; together they are 6 MB of text.
        with module_frozen():
            views = aten_run_state(module, options).views
            yield from operators_files(module, Templates(PACKAGE), views, options.fragments)


BACKEND = OperatorsBackend()
