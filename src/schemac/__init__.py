"""schemac: a schema compiler for tensor-operator libraries."""

from schemac.diagnostics import SchemacError
from schemac.frontend.schema_parser import parse_schema

__all__ = ["SchemacError", "parse_schema"]


def __getattr__(name: str) -> str:
    # Asked for rarely; reading the distribution's metadata costs milliseconds.
    if name == "__version__":
        from schemac.version import schemac_version

        return schemac_version()
    raise AttributeError(f"module 'schemac' has no attribute {name!r}")
