"""``ATen/Register<Key>_<n>.cpp``: one dispatch key's kernels, registered.

One file (or, for large keys, a few shards plus ``Register<Key>Everything.cpp``)
per dispatch key.  Its layout, inside ``namespace at``:

1. in an anonymous namespace: the helpers of structured wrappers
   (:mod:`.helpers`), every wrapper (:mod:`.wrappers`, :mod:`.structured`)
   and one ``TORCH_LIBRARY_IMPL(<ns>, <Key>, m)`` block per operator
   namespace registering them;
2. ``namespace <key>``: the direct-call functions (``at::cpu::add``) declared
   by the per-operator ``<op>_<key>_dispatch.h`` headers.

The items' wrapper texts are fragments, in buckets (Note [Fragment reuse] in
:mod:`schemac.backends.reuse`, Note [Fragment buckets] in
:mod:`schemac.backends.buckets`): after an edit only the buckets holding the
edited operators' wrappers are printed again; the files are then laid out
from the pieces.

Sharding (see docs/backends.md): items are whole operator families, keyed by
root name (``add`` for ``add.Tensor``, ``add_`` and ``add.out``) so that one
family's structured classes and headers stay in one file; the shard is picked
by a stable hash of that name (:mod:`schemac.backends.output.sharding`).  CPU,
the largest key, has 4 shards and every other key 1: the same file names as
PyTorch's build expects.  Each shard includes only its own operators' headers.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.registrations.helpers import helper_functions
from schemac.backends.aten.registrations.keys import KeyTraits, key_traits
from schemac.backends.aten.registrations.plan import (
    ItemSource,
    PlanIndex,
    PlannedItem,
    Wrapper,
    WrapperKind,
    plan_key,
    planned_wrappers,
)
from schemac.backends.aten.registrations.structured import structured_wrapper_definition
from schemac.backends.aten.registrations.wrappers import (
    direct_call_functions,
    kernel_wrapper_definition,
    registration,
    wrapper_signature,
)
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.buckets import SEPARATOR, bucketed_texts
from schemac.backends.output import GeneratedFile, ShardedFile, sharded
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates, native_sources
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.profiles import ReleaseProfile

TEMPLATE = "RegisterDispatchKey.cpp.mako"
PACKAGE = "schemac.backends.aten.registrations"

#: Shards per key; keys not listed get one.
NUM_SHARDS = {"CPU": 4}


@attrs.frozen
class RegisterFileView:
    """Everything ``RegisterDispatchKey.cpp.mako`` lays out."""

    key: str
    namespace: str
    shard_note: str
    headers: tuple[str, ...]
    helpers: tuple[str, ...]
    definitions: tuple[str, ...]
    #: ``(operator namespace, m.impl(...) lines)``.
    registrations: tuple[tuple[str, tuple[str, ...]], ...]
    direct_calls: tuple[str, ...]


def _headers(items: tuple[PlannedItem, ...], traits: KeyTraits) -> tuple[str, ...]:
    headers = set()
    for item in items:
        headers.add(f"ATen/ops/{item.root_name}_native.h")
        if traits.is_composite_non_functional:
            headers.add(f"ATen/ops/{item.root_name}.h")  # calls at::<op>_outf
        if traits.has_functions_header:
            headers.add(f"ATen/ops/{item.root_name}_{traits.namespace}_dispatch.h")
    return traits.extra_headers + tuple(sorted(headers))


@attrs.frozen
class _WrapperText:
    """The three pieces of C++ one wrapper contributes to a file, printed once
    and shared by its shard and the ``Everything`` file."""

    namespace: str
    definition: str
    registration: str | None
    direct_calls: tuple[str, ...]


def _wrapper_text(
    wrapper: Wrapper, traits: KeyTraits, views: ViewTable, register: bool
) -> _WrapperText:
    sig = wrapper_signature(wrapper, traits, views)
    if wrapper.kind is WrapperKind.STRUCTURED:
        definition = structured_wrapper_definition(wrapper, traits, sig, views)
    else:
        definition = kernel_wrapper_definition(wrapper, traits, sig, views)
    return _WrapperText(
        namespace=wrapper.function.namespace,
        definition=definition,
        registration=registration(wrapper, sig) if register else None,
        direct_calls=tuple(direct_call_functions(wrapper, sig, views)),
    )


@attrs.frozen
class _KeyContext:
    """What the wrappers of one key share that the run fixes: the key's traits
    (a function of the key, which the inputs hold, and of the release profile)
    and the view cache."""

    traits: KeyTraits
    views: ViewTable


#: The inputs of one item's piece of a bucket: the key, the grouped item its wrappers
#: are planned from (each member's function and dispatch table and the
#: group's structured flag, which is where groups cross operators; the plan
#: is a function of those and the key's traits) and, under selective build,
#: which wrappers are registered.  The grouped item, not the planned one:
#: every key plans the same grouped item, whose encoding a run makes once.
_ItemInputs = tuple[str, ItemSource, tuple[bool, ...] | None]


def _render_item(context: _KeyContext, inputs: _ItemInputs) -> str:
    """The wrapper texts of one item: a line of part lengths, then the parts
    (:func:`_parse_item` reads them back)."""
    _, source, registered = inputs
    parts: list[str] = []
    for number, wrapper in enumerate(planned_wrappers(source, context.traits)):
        register = registered is None or registered[number]
        text = _wrapper_text(wrapper, context.traits, context.views, register)
        parts += (text.namespace, text.definition)
        parts.append("N" if text.registration is None else "R" + text.registration)
        parts.append(str(len(text.direct_calls)))
        parts += text.direct_calls
    return " ".join(str(len(part)) for part in parts) + "\n" + "".join(parts)


def _parse_item(text: str) -> tuple[_WrapperText, ...]:
    """The wrapper texts :func:`_render_item` printed, read back."""
    header, _, body = text.partition("\n")
    parts: list[str] = []
    start = 0
    for length in map(int, header.split()):
        parts.append(body[start : start + length])
        start += length
    texts = []
    at = 0
    while at < len(parts):
        namespace, definition, registered, count = parts[at : at + 4]
        calls = int(count)
        texts.append(
            _WrapperText(
                namespace=namespace,
                definition=definition,
                registration=registered[1:] if registered[0] == "R" else None,
                direct_calls=tuple(parts[at + 4 : at + 4 + calls]),
            )
        )
        at += 4 + calls
    return tuple(texts)


def _registrations(texts: list[_WrapperText]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    by_namespace: dict[str, list[str]] = {}
    for text in texts:
        if text.registration is not None:
            by_namespace.setdefault(text.namespace, []).append(text.registration)
    return tuple((ns, tuple(lines)) for ns, lines in by_namespace.items())


def _file_view(
    items: tuple[PlannedItem, ...],
    texts: dict[int, tuple[_WrapperText, ...]],
    traits: KeyTraits,
    helpers: tuple[str, ...],
    shard_note: str,
) -> RegisterFileView:
    """``texts``: each item's wrapper texts, by the item's identity."""
    wrappers = [text for item in items for text in texts[id(item)]]
    return RegisterFileView(
        key=traits.key,
        namespace=traits.namespace,
        shard_note=shard_note,
        headers=_headers(items, traits),
        helpers=helpers,
        definitions=tuple(w.definition for w in wrappers),
        registrations=_registrations(wrappers),
        direct_calls=tuple(text for w in wrappers for text in w.direct_calls),
    )


def _item_texts(
    items: tuple[PlannedItem, ...],
    traits: KeyTraits,
    registered: frozenset[OperatorName] | None,
    views: ViewTable,
    fragments: Fragments,
) -> dict[int, tuple[_WrapperText, ...]]:
    """Each item's wrapper texts, by the item's identity, printed in buckets by
    the item's first function (Note [Fragment buckets]): ~4,600 items over a
    run's keys were as many fragments to key, look up and index."""
    inputs: list[_ItemInputs] = []
    for item in items:
        flags = None if registered is None else tuple(w.name in registered for w in item.wrappers)
        inputs.append((traits.key, item.source, flags))
    texts = bucketed_texts(
        fragments,
        _render_items,
        f"register {traits.key}",
        inputs,
        [str(item.source.members[0].function.func.name) for item in items],
        _KeyContext(traits, views),
    )
    return {id(item): _parse_item(text) for item, text in zip(items, texts, strict=True)}


def _render_items(context: _KeyContext, inputs: tuple[str, tuple[_ItemInputs, ...]]) -> str:
    """A bucket of items' wrapper texts, each followed by the separator."""
    return "".join(_render_item(context, item) + SEPARATOR for item in inputs[1])


def register_key_files(
    module: Module,
    key: str,
    templates: Templates,
    views: ViewTable | None = None,
    index: PlanIndex | None = None,
    profile: ReleaseProfile | None = None,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile]:
    """The shards and the Everything file of ``key`` (empty files if it has no kernels).

    ``views`` and ``index``: the run's view table and plan index, if the
    caller shares them between keys; ``profile``: the target release's;
    ``fragments``: where each item's wrappers are printed (the target's).
    """
    views = ViewTable() if views is None else views
    traits = key_traits(key)
    if profile is not None:
        traits = traits.for_release(profile)
    items = plan_key(module, traits, index)
    sources = native_sources(module)
    # Under selective build, operators kept only as dependencies of selected
    # ones keep their wrappers (direct calls use them) but are not registered.
    registered = None if module.selection is None else frozenset(module.selection.selected)
    files = ShardedFile(f"ATen/Register{key}.cpp", NUM_SHARDS.get(key, 1))
    # Each wrapper is printed once; its shard and the Everything file share the text.
    pieces = Fragments() if fragments is None else fragments
    texts = _item_texts(items, traits, registered, views, pieces)
    helpers = helper_functions(traits)
    shards = sharded(items, lambda item: item.root_name, files.num_shards)
    for number, shard in enumerate(shards):
        note = f", shard {number + 1} of {files.num_shards}"
        view = _file_view(shard, texts, traits, helpers, note)
        yield GeneratedFile(
            files.shard_path(number), templates.render(TEMPLATE, view, sources=sources)
        )
    everything = templates.render(
        TEMPLATE, _file_view(items, texts, traits, helpers, ""), sources=sources
    )
    yield GeneratedFile(files.everything_path, everything)
