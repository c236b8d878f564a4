"""Fields copied into generated code or used as names: checked at the value's own position.

``python_module`` names the Python submodule an operator is bound in (a
module path: identifiers joined by dots), ``category_override`` picks one of
a few Python-binding behaviours, and ``structured_inherits`` is the C++ base
class of a structured kernel's meta class.  Each reaches C++ text or decides
where an operator goes, so a value with a newline, a path (``../../EVIL``) or
an unknown word is an error here instead of an operator that silently
vanishes or a broken file.
"""

from __future__ import annotations

import re

from schemac.diagnostics import did_you_mean
from schemac.frontend.entry_reader import EntryReader

_MODULE_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_CPP_QUALIFIED = re.compile(r"(::)?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*")

#: The Python-binding categories an entry may force (the binding's "new_*",
#: "*_like", factory and dummy behaviours).
CATEGORY_OVERRIDES = ("dummy", "factory", "like", "new")


def _shown(value: str) -> str:
    return value if len(value) <= 60 else value[:57] + "..."


def read_python_module(reader: EntryReader) -> str | None:
    value = reader.string("python_module")
    if value is None or _MODULE_PATH.fullmatch(value):
        return value
    reader.sink.error(
        reader.value_span("python_module"),
        f"python_module '{_shown(value)}' is not a module name",
        "write a Python module name such as 'special' or 'linalg' (identifiers joined by '.')",
    )
    return None


def read_category_override(reader: EntryReader) -> str | None:
    value = reader.string("category_override")
    if value is None or value in CATEGORY_OVERRIDES:
        return value
    reader.sink.error(
        reader.value_span("category_override"),
        f"unknown category_override '{_shown(value)}'",
        did_you_mean(value, CATEGORY_OVERRIDES) or "write one of " + ", ".join(CATEGORY_OVERRIDES),
    )
    return None


def read_structured_inherits(reader: EntryReader) -> str | None:
    value = reader.string("structured_inherits")
    if value is None or _CPP_QUALIFIED.fullmatch(value):
        return value
    reader.sink.error(
        reader.value_span("structured_inherits"),
        f"structured_inherits '{_shown(value)}' is not a C++ class name",
        "write a class name such as 'TensorIteratorBase' (identifiers joined by '::')",
    )
    return None
