"""The front end's entry point: YAML files -> one :class:`~schemac.ir.module.Module`.

Loads tags first (they are the vocabulary of native functions' ``tags:``),
then native functions, then derivatives (which must name native functions),
then deprecated signatures.  Diagnostics of every file are collected and
raised together, sorted by file and position, as one
:class:`~schemac.diagnostics.InputError`.  One :class:`SchemaParser` serves
all files, so argument texts shared between files are parsed once.
"""

from __future__ import annotations

from pathlib import Path

from schemac.diagnostics import DiagnosticSink, InputError
from schemac.frontend.deprecated_loader import load_deprecated
from schemac.frontend.derivatives_loader import load_derivatives
from schemac.frontend.host_templates import host_root_of, load_host_templates
from schemac.frontend.native_loader import load_native_functions
from schemac.frontend.release_checks import check_release_vocabulary
from schemac.frontend.schema_parser import SchemaParser
from schemac.frontend.tags_loader import load_tags
from schemac.frontend.torch_paths import TorchYamlPaths, torch_yaml_paths
from schemac.frontend.yaml_nodes import read_yaml
from schemac.ir.collector import building_ir
from schemac.ir.derivatives import DeprecatedSignature, DerivativeEntry
from schemac.ir.module import Module, SourceFiles
from schemac.ir.tags import TagDefinition
from schemac.profiles import ReleaseProfile, reference_profile

__all__ = [
    "InputError",
    "TorchYamlPaths",
    "host_root_of",
    "load_module",
    "load_torch_module",
    "torch_yaml_paths",
]

PathLike = str | Path


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
    # The collector is paused while the IR is built and the module moved to
    # its oldest generation afterwards: see schemac.ir.collector.
    with building_ir():
        module = _load(
            native_functions,
            tags,
            derivatives,
            deprecated,
            reference_profile() if profile is None else profile,
        )
        if host_templates is None:
            return module
        return module.evolve(host_templates=load_host_templates(host_templates))


def _load(
    native_functions: PathLike,
    tags: PathLike | None,
    derivatives: PathLike | None,
    deprecated: PathLike | None,
    profile: ReleaseProfile,
) -> Module:
    sink = DiagnosticSink()
    parser = SchemaParser()

    tag_defs: tuple[TagDefinition, ...] = ()
    valid_tags: frozenset[str] | None = None
    if tags is not None:
        doc, problems = read_yaml(tags)
        sink.extend(problems)
        if doc is not None:
            tag_defs = load_tags(doc, sink)
            valid_tags = frozenset(t.name for t in tag_defs)

    native_doc, problems = read_yaml(native_functions)
    sink.extend(problems)
    errors_before = len(sink.diagnostics)
    functions = load_native_functions(native_doc, parser, valid_tags, sink) if native_doc else ()
    natives_clean = native_doc is not None and len(sink.diagnostics) == errors_before
    check_release_vocabulary(functions, profile, sink)

    derivative_entries: tuple[DerivativeEntry, ...] = ()
    if derivatives is not None:
        doc, problems = read_yaml(derivatives)
        sink.extend(problems)
        if doc is not None:
            # Keyed by name, not schema text: printing every schema costs more
            # than the whole derivatives check, which prints only the ~700 it meets.
            by_name = {f.func.name: f for f in functions} if natives_clean else None
            derivative_entries = load_derivatives(doc, parser, by_name, sink)

    deprecated_signatures: tuple[DeprecatedSignature, ...] = ()
    if deprecated is not None:
        doc, problems = read_yaml(deprecated)
        sink.extend(problems)
        if doc is not None:
            deprecated_signatures = load_deprecated(doc, parser, sink)

    sink.raise_if_any(InputError)
    return Module(
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
