"""The ``declarations`` backend: ``ATen/Declarations.yaml`` (docs/declarations.md)."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.buckets import SEPARATOR, bucketed_texts
from schemac.backends.declarations.records import RecordMemo, declaration
from schemac.backends.declarations.yaml_text import Printer
from schemac.backends.output.files import GeneratedFile, generated_banner
from schemac.backends.registry import EmitOptions
from schemac.backends.reuse import Fragments
from schemac.backends.templating import module_sources
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import Resolution

OUTPUT = "ATen/Declarations.yaml"


def declarations_text(
    module: Module, views: ViewTable | None = None, fragments: Fragments | None = None
) -> str:
    """Every function of ``module``, in module order, as one YAML document.

    ``views``: the run's signature views, when other ATen targets share them;
    ``fragments``: where the entries are rendered, in buckets by name (Note
    [Fragment buckets]: an entry is a function of the function and its
    resolution, both keyed by their source, so a bucket's key is cheap and an
    edit prints again only the entries of its bucket).
    """
    context = _Context(ViewTable() if views is None else views, {}, Printer())
    functions = module.functions
    entries = "".join(
        bucketed_texts(
            Fragments() if fragments is None else fragments,
            _entries,
            "declarations",
            [(fn, module.resolution(fn.func.name)) for fn in functions],
            [str(fn.func.name) for fn in functions],
            context,
        )
    )
    banner = generated_banner("Declarations.yaml", module_sources(module), comment="#")
    # An empty sequence is printed as an empty line, as yaml_text.document does.
    return f"{banner}\n{entries or chr(10)}"


@attrs.frozen
class _Context:
    """What every entry's render shares: caches of pure functions."""

    views: ViewTable
    memo: RecordMemo
    printer: Printer


def _entries(
    context: _Context, inputs: tuple[str, tuple[tuple[NativeFunction, Resolution], ...]]
) -> str:
    """A bucket of entries, each followed by the separator (Note [Fragment buckets])."""
    return "".join(_entry(context, piece) + SEPARATOR for piece in inputs[1])


def _entry(context: _Context, inputs: tuple[NativeFunction, Resolution]) -> str:
    fn, resolution = inputs
    record = declaration(fn, context.views.cpp_group(fn), resolution, context.memo)
    return context.printer.block(record)


@attrs.frozen
class DeclarationsBackend:
    name: str = "declarations"
    description: str = "Declarations.yaml: every operator's C++ API as data, for binding generators"
    targets: tuple[str, ...] = ("declarations",)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile]:
        views = aten_run_state(module, options).views
        yield GeneratedFile(OUTPUT, declarations_text(module, views, options.fragments))


BACKEND = DeclarationsBackend()
