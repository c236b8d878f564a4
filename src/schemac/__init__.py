"""schemac: a schema compiler for tensor-operator libraries.

The package's own import is kept free of work: ``schemac compile`` on an
up-to-date output directory (:mod:`schemac.rebuild`) must not pay for the
grammar, the IR or the template engine, so the two public names are loaded on
first use.
"""

from __future__ import annotations

from schemac.version import __version__

# Not typing.TYPE_CHECKING: importing typing costs the no-op path ~10 ms
# (mypy treats any name TYPE_CHECKING as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from schemac.diagnostics import SchemacError
    from schemac.frontend.schema_parser import parse_schema

__all__ = ["SchemacError", "__version__", "parse_schema"]


def __getattr__(name: str) -> object:
    if name == "SchemacError":
        from schemac.diagnostics import SchemacError

        return SchemacError
    if name == "parse_schema":
        from schemac.frontend.schema_parser import parse_schema

        return parse_schema
    raise AttributeError(f"module 'schemac' has no attribute {name!r}")
