"""schemac: a schema compiler for tensor-operator libraries."""

from schemac.diagnostics import SchemacError
from schemac.frontend.schema_parser import parse_schema

__all__ = ["SchemacError", "parse_schema"]
__version__ = "0.1.0"
