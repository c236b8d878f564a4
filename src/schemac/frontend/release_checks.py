"""What the YAML may use in the target release: base types and dispatch keys.

The grammar and the IR know the schema *format* of every supported release
(``Dimname`` included); which of its base types and dispatch keys one release
has is that release's profile's (Note [Release profiles]).  So 2.12's named-
tensor schemas load for ``--torch-version 2.12`` and are reported, with
positions, for 2.13, where torchgen would refuse them too.
"""

from __future__ import annotations

from collections.abc import Iterable

from schemac.diagnostics import DiagnosticSink
from schemac.ir.dispatch import KNOWN_DISPATCH_KEYS
from schemac.ir.native import NativeFunction
from schemac.ir.types import BASE_TYPE_NAMES
from schemac.profiles import ReleaseProfile


def check_release_vocabulary(
    functions: Iterable[NativeFunction], profile: ReleaseProfile, sink: DiagnosticSink
) -> None:
    """Report every base type and dispatch key ``profile``'s release lacks."""
    functions = tuple(functions)
    types = profile.names("base_types")
    missing_types = tuple(name for name in BASE_TYPE_NAMES if types and name not in types)
    keys = profile.names("dispatch_keys")
    missing_keys = KNOWN_DISPATCH_KEYS - keys if keys else frozenset()
    if missing_types:
        _check_types(functions, missing_types, profile, sink)
    if missing_keys:
        _check_keys(functions, missing_keys, profile, sink)


def _check_types(
    functions: tuple[NativeFunction, ...],
    missing: tuple[str, ...],
    profile: ReleaseProfile,
    sink: DiagnosticSink,
) -> None:
    # A type's spelling names every base type in it ("Dimname[]?"): substring
    # tests, no walk of the type; first over the few hundred distinct
    # spellings, so that a file without the types costs one pass.
    spellings = {arg.type.spelling for f in functions for arg in f.func.arguments.flat_all}
    if not any(name in spelling for spelling in spellings for name in missing):
        return
    for f in functions:
        for arg in f.func.arguments.flat_all:
            spelling = arg.type.spelling
            for name in missing:
                if name in spelling:
                    sink.error(
                        arg.span,
                        f"unknown type '{name}' for torch {profile.release}",
                        f"torch {profile.release} has no '{name}'; if the file is for another "
                        "release, say which with --torch-version",
                    )


def _check_keys(
    functions: tuple[NativeFunction, ...],
    missing: frozenset[str],
    profile: ReleaseProfile,
    sink: DiagnosticSink,
) -> None:
    for f in functions:
        for entry in f.dispatch or ():
            for key in entry.keys:
                if key in missing:
                    sink.error(
                        entry.span,
                        f"unknown dispatch key '{key}' for torch {profile.release}",
                        f"torch {profile.release} has no '{key}' key; if the file is for "
                        "another release, say which with --torch-version",
                    )
