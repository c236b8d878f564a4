"""The front end's entry point: YAML files -> one :class:`~schemac.ir.module.Module`.

Loads tags first (they are the vocabulary of native functions' ``tags:``),
then native functions, then derivatives (which must name native functions),
then deprecated signatures.  Diagnostics of every file are collected and
raised together, sorted by file and position, as one
:class:`~schemac.diagnostics.InputError`; or returned beside what loaded
(:func:`load_module_partially`), so that the passes' errors can join them.
One :class:`SchemaParser` serves all files, so argument texts shared between
files are parsed once.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TypeVar

import attrs

from schemac.diagnostics import Diagnostic, DiagnosticSink, InputError
from schemac.frontend.deprecated_loader import load_deprecated
from schemac.frontend.derivatives_loader import load_derivatives
from schemac.frontend.failed_entries import FailedEntries, KnownTags, family_bases_of_text
from schemac.frontend.host_templates import host_root_of, load_host_templates
from schemac.frontend.native_loader import load_native_functions
from schemac.frontend.part_memo import PartMemo
from schemac.frontend.release_checks import check_release_vocabulary
from schemac.frontend.schema_parser import SchemaParser
from schemac.frontend.tags_loader import load_tags
from schemac.frontend.torch_paths import TorchYamlPaths, torch_yaml_paths
from schemac.frontend.yaml_nodes import YamlDocument, read_yaml
from schemac.frontend.yaml_parts import PartFailed, YamlParts, read_yaml_list
from schemac.ir.collector import building_ir
from schemac.ir.derivatives import DeprecatedSignature, DerivativeEntry
from schemac.ir.module import Module, SourceFiles
from schemac.ir.native import NativeFunction
from schemac.ir.tags import TagDefinition
from schemac.profiles import ReleaseProfile, reference_profile

__all__ = [
    "InputError",
    "LoadResult",
    "TorchYamlPaths",
    "host_root_of",
    "load_module",
    "load_module_partially",
    "load_torch_module",
    "torch_yaml_paths",
]

PathLike = str | Path


@attrs.frozen
class LoadResult:
    """What a load found: the module of what loaded cleanly, and every diagnostic.

    Note [Every error in one run] (:mod:`schemac.frontend.failed_entries`):
    ``module`` leaves out each entry with an error together with what depends
    on it, so the passes can run on it and report what they find elsewhere
    without repeating what the load reported.  ``passes_may_run`` is False
    when that cannot be known (a file that does not parse, an entry whose
    name cannot be read).
    """

    module: Module
    diagnostics: tuple[Diagnostic, ...] = ()
    passes_may_run: bool = True
    #: The families and operators left out (:class:`FailedEntries`).
    failed_families: frozenset[str] = frozenset()
    failed_names: frozenset[str] = frozenset()

    @property
    def failed(self) -> bool:
        return any(d.is_error for d in self.diagnostics)

    @property
    def left_out_bases(self) -> frozenset[str]:
        """The base names of every operator left out (for ``PassContext.left_out``)."""
        bases = {b for name in self.failed_names for b in family_bases_of_text(name + "(")}
        return frozenset(self.failed_families | bases)

    def left_out(self, operator: str) -> bool:
        """Whether ``operator`` (``add.Tensor``) may be missing because an entry failed."""
        if not self.passes_may_run:
            return True
        if operator in self.failed_names:
            return True
        return any(base in self.failed_families for base in family_bases_of_text(operator + "("))

    def raise_if_failed(self) -> None:
        if self.failed:
            raise InputError(self.diagnostics)


def load_module(
    native_functions: PathLike,
    tags: PathLike | None = None,
    derivatives: PathLike | None = None,
    deprecated: PathLike | None = None,
    *,
    profile: ReleaseProfile | None = None,
    host_templates: PathLike | None = None,
) -> Module:
    """Load and check the given files; raise InputError listing every problem.

    ``profile``: the target release, which decides the base types and
    dispatch keys the files may use (the reference release's by default).
    ``host_templates``: the PyTorch template root to splice into
    (:mod:`schemac.frontend.host_templates`).
    """
    result = load_module_partially(
        native_functions,
        tags,
        derivatives,
        deprecated,
        profile=profile,
        host_templates=host_templates,
    )
    result.raise_if_failed()
    return result.module


def load_module_partially(
    native_functions: PathLike,
    tags: PathLike | None = None,
    derivatives: PathLike | None = None,
    deprecated: PathLike | None = None,
    *,
    profile: ReleaseProfile | None = None,
    host_templates: PathLike | None = None,
    memo: PartMemo | None = None,
) -> LoadResult:
    """:func:`load_module`, returning what loaded beside the diagnostics instead of raising.

    ``memo``: where parts of ``native_functions`` an earlier run loaded are
    remembered (Note [Loaded parts remembered] in :mod:`.part_memo`)."""
    # The collector is paused while the IR is built and the module moved to
    # its oldest generation afterwards: see schemac.ir.collector.
    with building_ir():
        result = _load(
            native_functions,
            tags,
            derivatives,
            deprecated,
            reference_profile() if profile is None else profile,
            memo,
        )
        if host_templates is None:
            return result
        module = result.module.evolve(host_templates=load_host_templates(host_templates))
        return attrs.evolve(result, module=module)


def _load(
    native_functions: PathLike,
    tags: PathLike | None,
    derivatives: PathLike | None,
    deprecated: PathLike | None,
    profile: ReleaseProfile,
    memo: PartMemo | None,
) -> LoadResult:
    sink = DiagnosticSink()
    parser = SchemaParser()
    failed = FailedEntries()

    tag_defs: tuple[TagDefinition, ...] = ()
    valid_tags: AbstractSet[str] | None = None
    if tags is not None:
        doc, problems = read_yaml(tags)
        sink.extend(problems)
        if doc is not None:
            tag_defs = load_tags(doc, sink, failed)
            # A tag whose definition failed is not reported again where it is used.
            defined = frozenset(t.name for t in tag_defs)
            valid_tags = None if failed.unnamed_tag else KnownTags(defined, failed)

    native_doc, problems = read_yaml_list(native_functions)
    sink.extend(problems)
    errors_before = len(sink.diagnostics)
    functions: tuple[NativeFunction, ...] = ()
    if native_doc is None:
        failed.unnamed = True
    else:
        # Not with errors in tags.yaml: loading a part may then record in
        # ``failed`` which tags were meant, which a recalled part would not.
        part_memo = None if sink.diagnostics else memo
        functions = _load_native(native_doc, parser, valid_tags, sink, failed, part_memo)
    # Nothing below reads a node tree: each goes before the next file is
    # composed (native_functions.yaml's is ~10 MiB, alive until now through
    # the load of derivatives.yaml: -2 MiB at the start of -t autograd's emission).
    del native_doc
    check_release_vocabulary(functions, profile, sink)
    native_errors = sink.diagnostics[errors_before:]
    if native_errors:
        failed.add_functions_with_errors(functions, native_errors, str(native_functions))
        functions = failed.without_failed(functions)

    derivative_entries: tuple[DerivativeEntry, ...] = ()
    if derivatives is not None:
        # Not after errors in native_functions.yaml: the entries of its failed
        # families are then left out, which a recalled part would not know.
        entries_memo = None if sink.diagnostics else memo
        derivatives_doc, problems = read_yaml_list(derivatives)
        sink.extend(problems)
        if derivatives_doc is not None:
            # Keyed by name, not schema text: printing every schema costs more
            # than the whole derivatives check, which prints only the ~700 it meets.
            by_name = None if failed.unnamed else {f.func.name: f for f in functions}
            derivative_entries = (
                _in_parts(
                    derivatives_doc,
                    lambda doc: load_derivatives(doc, parser, by_name, sink, failed, entries_memo),
                    sink,
                    failed,
                )
                or ()
            )
        del derivatives_doc

    deprecated_signatures: tuple[DeprecatedSignature, ...] = ()
    if deprecated is not None:
        doc, problems = read_yaml(deprecated)
        sink.extend(problems)
        if doc is not None:
            deprecated_signatures = load_deprecated(doc, parser, sink)
        del doc

    module = Module(
        sources=SourceFiles(
            native_functions=str(native_functions),
            tags=None if tags is None else str(tags),
            derivatives=None if derivatives is None else str(derivatives),
            deprecated=None if deprecated is None else str(deprecated),
        ),
        functions=functions,
        tags=tag_defs,
        derivatives=derivative_entries,
        deprecated=deprecated_signatures,
        release=profile.release,
    )
    return LoadResult(
        module,
        (*sink.diagnostics, *sink.warnings),
        not failed.unnamed,
        frozenset(failed.families),
        frozenset(str(name) for name in failed.names),
    )


def _load_native(
    doc: YamlParts | YamlDocument,
    parser: SchemaParser,
    valid_tags: AbstractSet[str] | None,
    sink: DiagnosticSink,
    failed: FailedEntries,
    memo: PartMemo | None,
) -> tuple[NativeFunction, ...]:
    functions = _in_parts(
        doc,
        lambda part: load_native_functions(part, parser, valid_tags, sink, failed, memo),
        sink,
        failed,
    )
    if functions is None:
        failed.unnamed = True
        return ()
    return functions


_Loaded = TypeVar("_Loaded")


def _in_parts(
    doc: YamlParts | YamlDocument,
    load: Callable[[YamlParts | YamlDocument], tuple[_Loaded, ...]],
    sink: DiagnosticSink,
    failed: FailedEntries,
) -> tuple[_Loaded, ...] | None:
    """What ``load`` makes of ``doc``: in parts if it was cut, else (or if a
    part fails) of the whole text (Note [Lists composed in parts]); None if
    the whole text does not compose (its problems are in ``sink``)."""
    if isinstance(doc, YamlParts):
        mark = sink.mark()
        known = failed.snapshot()
        try:
            return load(doc)
        except PartFailed:
            # Whatever the parts before it reported goes: the whole text is
            # loaded again, and reports exactly what a whole load reports.
            sink.rollback(mark)
            failed.restore(known)
        whole, problems = doc.whole()
        sink.extend(problems)
        if whole is None:
            return None
        doc = whole
    return load(doc)


def load_torch_module(
    *,
    derivatives: bool = True,
    deprecated: bool = True,
    profile: ReleaseProfile | None = None,
    host_templates: bool = True,
) -> Module:
    """The module of the installed torch's own YAML files (and its template text)."""
    paths = torch_yaml_paths()
    return load_module(
        paths.native_functions,
        paths.tags,
        paths.derivatives if derivatives else None,
        paths.deprecated if deprecated else None,
        profile=profile,
        host_templates=host_root_of(paths.native_functions) if host_templates else None,
    )
