"""The ``python`` target's files: one binding file per Python module, plus return types.

Each file is a skeleton template filled with the printed bindings
(binding_text.py, one per operator name), the method-table entries and, for
module functions, forward declarations.  ``torch.*`` functions are split into shards
with the output layer's stable sharding; which shard an operator lands in does
not matter to PyTorch, which gathers all of them into one table.

Note [Printed views]: Mako keeps every rendered template's context, and so
the view it was rendered with, in a reference cycle that only the cyclic
collector frees.  The node views of python_functions_<i>.cpp are a good part
of what this backend allocates, so their file view lets go of them once the
file is printed: reference counting then frees them at once, instead of a
later collection walking them all.  (Binding views are printed one by one
and never reach a template.)
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Sequence

import attrs

from schemac.backends.buckets import SEPARATOR, bucketed_parts
from schemac.backends.host_text import Filling, splice
from schemac.backends.output.files import GeneratedFile
from schemac.backends.output.sharding import ShardedFile, sharded
from schemac.backends.python.autograd_nodes import NodeView, node_views
from schemac.backends.python.binding_text import (
    CHECK_HAS_TORCH_FUNCTION,
    HAS_TORCH_FUNCTION,
    binding_text,
)
from schemac.backends.python.bindings import (
    binding_view,
    forward_declaration,
    method_table_entry,
)
from schemac.backends.python.dispatch import CallMemo
from schemac.backends.python.node_getters import getters_text
from schemac.backends.python.operators import (
    FACT_ASKS,
    BindingSource,
    PythonBindingSources,
    Signatures,
    binding_sources,
    operator_binding,
)
from schemac.backends.python.return_types import StructSeq, structseqs
from schemac.backends.python.routing import (
    SUBMODULES,
    TORCH_FUNCTIONS,
    VARIABLE_METHODS,
    BindingModule,
)
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates, module_sources
from schemac.diagnostics import Diagnostic, InputError
from schemac.ir.host import AUTOGRAD, HostFile
from schemac.ir.module import Module
from schemac.ir.names import BaseOperatorName
from schemac.ir.native import NativeFunction
from schemac.profiles import ReleaseProfile

OUTPUT_DIR = "python"
TEMPLATES_PACKAGE = "schemac.backends.python"


@attrs.frozen
class BindingFileView:
    """What a binding-file skeleton is filled with."""

    operator_headers: tuple[str, ...]
    #: Each binding function's C++ (binding_text.py).
    bindings: tuple[str, ...]
    table_entries: tuple[str, ...]
    forward_declarations: tuple[str, ...] = ()
    shard_id: str = ""
    qualified_name: str = ""
    short_name: str = ""
    module_object: str = ""
    table_name: str = ""
    init_function: str = ""
    attribute: str = ""


@attrs.frozen
class ReturnTypesView:
    types: tuple[StructSeq, ...]

    def fields_initializer(self, seq: StructSeq) -> str:
        return ", ".join(f'{{"{name}", ""}}' for name in seq.fields)


@attrs.frozen
class _BindingContext:
    """What every binding's render shares: the compile's memos and the release's spelling."""

    memo: CallMemo
    signatures: Signatures
    torch_function_test: str
    #: Every bound overload: it only words the hint of a missing-twin error,
    #: never a text (Note [Binding sources]).
    everywhere: tuple[NativeFunction, ...]


#: The texts a bucket holds per binding: the binding function, its
#: method-table entry and its forward declaration (empty for methods).  A
#: binding a selective build leaves without overloads has three empty texts.
_PARTS = 3


def _bindings_text(context: _BindingContext, bucket: tuple[str, tuple[BindingSource, ...]]) -> str:
    # Each binding is made from its source here, only for the buckets that are
    # rendered (Note [Binding sources]); each view is printed at once and
    # dropped: only the texts are kept.
    memo = context.memo
    texts = []
    problems: list[Diagnostic] = []
    for source in bucket[1]:
        try:
            texts.append(_binding_texts(context, source))
        except InputError as error:
            problems += error.diagnostics  # the bucket's other bindings are still checked
        finally:
            memo.binding_done()
    if problems:
        raise InputError(problems)
    return "".join(texts)


def _binding_texts(context: _BindingContext, source: BindingSource) -> str:
    binding = operator_binding(source, context.signatures, context.everywhere)
    if binding is None:
        return SEPARATOR * _PARTS
    view = binding_view(binding, context.memo)
    text = binding_text(view, torch_function_test=context.torch_function_test)
    forward = forward_declaration(binding) or ""
    return f"{text}{SEPARATOR}{method_table_entry(binding)}{SEPARATOR}{forward}{SEPARATOR}"


def _file_view(
    pieces: Fragments,
    context: _BindingContext,
    label: str,
    sources: Sequence[BindingSource],
    **extra: str,
) -> BindingFileView:
    # Note [Fragment buckets]: a binding's texts are a function of its source
    # (Note [Binding sources]: the name, the file, its overloads and the
    # deprecated.yaml entries calling them, whether the build is selective)
    # and of the release, so a bucket is keyed by its sources.
    names = [s.python_name for s in sources]
    parts = bucketed_parts(pieces, _bindings_text, label, sources, names, context, parts=_PARTS)
    # A binding's function text is never empty: an empty one was left unbound.
    bound = [(source, texts) for source, texts in zip(sources, parts, strict=True) if texts[0]]
    return BindingFileView(
        # ``scale`` and ``scale_`` (or ``__and__`` and ``__iand__``) share one
        # per-operator header; list it once (PyTorch's generator repeats it).
        operator_headers=tuple(dict.fromkeys(source.name.base for source, _ in bound)),
        bindings=tuple(texts[0] for _, texts in bound),
        table_entries=tuple(texts[1] for _, texts in bound),
        forward_declarations=tuple(texts[2] for _, texts in bound if texts[2]),
        **extra,
    )


@attrs.frozen
class _BindingFile:
    """One binding file to print: its sources, template and skeleton's fields."""

    path: str
    template: str
    sources: tuple[BindingSource, ...]
    #: A submodule's file: PyTorch's template of it is its own (else the template's).
    host_name: str | None = None
    extra: tuple[tuple[str, str], ...] = ()


def _binding_file_plan(sources: PythonBindingSources) -> Iterator[_BindingFile]:
    yield _BindingFile(
        VARIABLE_METHODS.filename,
        "python_variable_methods.cpp.mako",
        sources.for_module(VARIABLE_METHODS),
    )
    layout = ShardedFile(TORCH_FUNCTIONS.filename, TORCH_FUNCTIONS.shards)
    torch = sources.for_module(TORCH_FUNCTIONS)
    shards = sharded(torch, lambda s: s.name.base, TORCH_FUNCTIONS.shards)
    for index, shard in enumerate(shards):
        yield _BindingFile(
            layout.shard_path(index),
            "python_torch_functions.cpp.mako",
            shard,
            extra=(("shard_id", f"_{index}"),),
        )
    for target in SUBMODULES:
        yield _BindingFile(
            target.filename,
            "python_submodule_functions.cpp.mako",
            sources.for_module(target),
            host_name=target.filename,
            extra=_submodule_fields(target),
        )


def _submodule_fields(target: BindingModule) -> tuple[tuple[str, str], ...]:
    return (
        ("qualified_name", target.qualified_name),
        ("short_name", target.python_module or ""),
        ("module_object", target.module_object),
        ("table_name", target.table_name),
        ("init_function", target.init_function),
        ("attribute", target.attribute),
    )


def _path(name: str) -> str:
    return f"{OUTPUT_DIR}/{name}"


def host_template(module: Module, name: str) -> HostFile | None:
    """PyTorch's template of a binding file, if the module carries the host's text."""
    host = module.host_templates
    return None if host is None else host.get(AUTOGRAD, name)


def binding_fillings(view: BindingFileView) -> dict[str, Filling]:
    """What PyTorch's binding-file templates ask for, from schemac's file view."""
    return {
        "ops_headers": [f"#include <ATen/ops/{header}.h>" for header in view.operator_headers],
        "py_forwards": list(view.forward_declarations),
        "py_method_defs": list(view.table_entries),
        "py_methods": "".join(view.bindings).rstrip("\n"),
        "shard_id": view.shard_id,
    }


def binding_files(
    module: Module,
    all_sources: PythonBindingSources,
    templates: Templates,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile]:
    """``fragments``: where the bindings are rendered (Note [Fragment buckets]).

    An overload Python cannot express is an input error when its bucket is
    rendered; every file's bindings are still made, so that all such errors
    are reported together, and no file is handed on after the first.
    """
    sources = module_sources(module, derivatives=True)
    pieces = Fragments() if fragments is None else fragments
    signatures = Signatures()  # shared by the files of this compile only
    memo = CallMemo(
        signatures.arguments,
        factory_methods_check_dispatch=all_sources.factory_methods_check_dispatch,
    )
    test = HAS_TORCH_FUNCTION if all_sources.method_has_torch_function else CHECK_HAS_TORCH_FUNCTION
    # Each function's dispatch facts are let go after their last ask
    # (CallMemo.expect); the asks of buckets not rendered never come, which
    # only keeps a few facts to the end.
    memo.expect(
        (
            function
            for _, items in all_sources.per_module
            for source in items
            for function in source.overload_functions
        ),
        times=FACT_ASKS,  # BindingSource.facts_asked
    )
    context = _BindingContext(memo, signatures, test, all_sources.bound)

    problems: list[Diagnostic] = []
    for planned in _binding_file_plan(all_sources):
        try:
            view = _file_view(pieces, context, planned.path, planned.sources, **dict(planned.extra))
        except InputError as error:
            problems += error.diagnostics
            continue
        if problems:
            continue
        # PyTorch's own template, when the host release's is given: it carries
        # the hand-written bindings (Tensor.size, _parse_to, ...) too.
        host = host_template(module, planned.host_name or planned.template.removesuffix(".mako"))
        if host is not None:
            yield GeneratedFile(_path(planned.path), splice(host, binding_fillings(view)))
        else:
            text = templates.render(planned.template, view, sources=sources)
            yield GeneratedFile(_path(planned.path), text)
    if problems:
        # An overload bound in two files fails in both: report it once.
        raise InputError(dict.fromkeys(problems))


def return_type_files(
    module: Module, all_sources: PythonBindingSources, templates: Templates
) -> Iterator[GeneratedFile]:
    # Every function-side overload counts, whatever file binds it (PyTorch's
    # torch.return_types lists them all, methods have function twins).
    by_name: dict[BaseOperatorName, list[NativeFunction]] = {}
    for function in all_sources.function_side:
        by_name.setdefault(function.func.name.name, []).append(function)
    types: list[StructSeq] = []
    for _, functions in sorted(by_name.items(), key=lambda item: str(item[0])):
        types.extend(seq for _, seq in structseqs(functions))
    view = ReturnTypesView(tuple(types))
    sources = module_sources(module)
    for name in ("python_return_types.h", "python_return_types.cpp"):
        yield GeneratedFile(_path(name), templates.render(f"{name}.mako", view, sources=sources))


#: PyTorch's build compiles exactly this many python_functions_<i>.cpp files.
AUTOGRAD_NODE_SHARDS = 5


@attrs.frozen
class NodeFileView:
    #: Emptied once the file is printed (Note [Printed views]).
    nodes: list[NodeView]
    #: Per node, its properties' getter functions (node_getters.py).
    getters: tuple[str, ...] = ()
    shard_id: str = ""
    shards: int = AUTOGRAD_NODE_SHARDS


def autograd_node_files(module: Module, templates: Templates) -> Iterator[GeneratedFile]:
    sources = module_sources(module, derivatives=True)
    header = templates.render("python_functions.h.mako", NodeFileView([]), sources=sources)
    yield GeneratedFile(_path("python_functions.h"), header)
    layout = ShardedFile("python_functions.cpp", AUTOGRAD_NODE_SHARDS)
    shards = sharded(node_views(module), lambda node: node.key, AUTOGRAD_NODE_SHARDS)
    for index, nodes in enumerate(shards):
        getters = tuple(getters_text(node.op, node.properties) for node in nodes)
        view = NodeFileView(list(nodes), getters, shard_id=f"_{index}")
        text = templates.render("python_functions.cpp.mako", view, sources=sources)
        view.nodes.clear()  # Note [Printed views]
        yield GeneratedFile(_path(layout.shard_path(index)), text)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while the views are built.

    Building the views allocates tens of thousands of small frozen objects
    while the whole module is alive, and every automatic full collection walks
    all of them (measured: up to 40% of the emit time).  The views hold no
    reference cycles, so pausing changes nothing but speed; the collector's
    previous state is restored.  The pass manager does the same for passes.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def emit_python(
    module: Module, profile: ReleaseProfile | None = None, fragments: Fragments | None = None
) -> list[GeneratedFile]:
    """The binding files and the named-tuple return types (functions only).

    ``profile``: the target release's (the reference release's by default);
    ``fragments``: where the bindings are rendered (Note [Fragment buckets]).
    """
    with _collector_paused():
        # Built in a function of its own, so that the bindings and their memos
        # (~30,000 objects the collector tracks) are freed by reference
        # counting when it returns, before the collector is resumed: its first
        # collection then walks the files, not them.
        return _emit_python(module, profile, fragments)


def _emit_python(
    module: Module, profile: ReleaseProfile | None, fragments: Fragments | None
) -> list[GeneratedFile]:
    templates = Templates(TEMPLATES_PACKAGE)
    sources = binding_sources(module, profile)
    return [
        *binding_files(module, sources, templates, fragments),
        *return_type_files(module, sources, templates),
    ]


def iter_python(
    module: Module, profile: ReleaseProfile | None = None, fragments: Fragments | None = None
) -> Iterator[GeneratedFile]:
    """:func:`emit_python`'s files, each as soon as it is rendered.

    What the backend hands the driver: each file is staged (and its text
    dropped) while the next renders, instead of every text waiting in a list
    until the last is made.  The collector stays paused until the last file,
    and the bindings go with the inner generator's frame before it resumes.
    """
    with _collector_paused():
        yield from _iter_python(module, profile, fragments)


def _iter_python(
    module: Module, profile: ReleaseProfile | None, fragments: Fragments | None
) -> Iterator[GeneratedFile]:
    templates = Templates(TEMPLATES_PACKAGE)
    sources = binding_sources(module, profile)
    yield from binding_files(module, sources, templates, fragments)
    yield from return_type_files(module, sources, templates)


def iter_python_nodes(module: Module) -> Iterator[GeneratedFile]:
    """:func:`emit_python_nodes`'s files, each as soon as it is rendered."""
    with _collector_paused():
        yield from autograd_node_files(module, Templates(TEMPLATES_PACKAGE))


def emit_python_nodes(module: Module) -> list[GeneratedFile]:
    """python_functions.h and its shards: the only files that read the autograd table.

    A backend of their own (registry ``python-autograd-nodes``), so that the
    bindings need not wait for match-derivatives: Note [Late work].
    """
    with _collector_paused():
        return list(autograd_node_files(module, Templates(TEMPLATES_PACKAGE)))
