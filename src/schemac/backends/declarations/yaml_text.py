"""A small block-style YAML printer for the records of ``Declarations.yaml``.

The records are lists, string-keyed mappings and scalars only, so printing
them takes a page, and is several times faster than a general YAML dumper
(the file has about 200,000 lines).  The rule that matters is the scalars':
a string is written plain only when every YAML 1.1 loader reads it back as
that same string (it starts with a letter, ``_`` or ``:``, is printable
ASCII without ``#``, is not a boolean or null word, holds no ``: `` and does
not end in ``:`` or a space); anything else is written double-quoted, with
YAML's escapes for what is not printable.  Numbers and booleans print as
YAML's own; a float always has a ``.`` (``1.0e-05``), which
YAML 1.1 needs to read it as a float.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from schemac.backends.declarations.records import Value

#: Plain words a YAML 1.1 loader (PyYAML's) would read as a boolean or null.
_RESERVED = frozenset(
    word
    for base in ("yes", "no", "true", "false", "on", "off", "null")
    for word in (base, base.capitalize(), base.upper())
) | {"~"}
_PLAIN = re.compile(r"[A-Za-z_:][\x20-\x22\x24-\x7e]*")


def scalar(value: Value) -> str:
    """``value`` as a plain or double-quoted YAML scalar."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return _string(value)
    raise TypeError(f"not a YAML scalar: {value!r}")


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "." not in text and "e" in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _string(text: str) -> str:
    if (
        _PLAIN.fullmatch(text)
        and text == text.rstrip()
        and ": " not in text
        and not text.endswith(":")
        and text not in _RESERVED
    ):
        return text
    return _double_quoted(text)


def _double_quoted(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif 0x20 <= code <= 0x7E or _printable_beyond_ascii(code):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _printable_beyond_ascii(code: int) -> bool:
    """YAML's printable set above ASCII (a loader rejects a raw character outside it)."""
    return (
        0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    )


def document(items: Iterable[Value]) -> str:
    """A top-level block sequence of ``items``, one line per scalar."""
    printer = Printer()
    return "".join(printer.block(item) for item in items) or "\n"


def _empty(value: dict[str, Value] | list[Value]) -> str:
    return "{}" if isinstance(value, dict) else "[]"


class Printer:
    """Prints the entries of one document; what it learns serves every entry."""

    def __init__(self) -> None:
        self._printer = _Printer()

    def block(self, item: Value) -> str:
        """``item`` as one entry of the top-level sequence, each line ended."""
        printer = self._printer
        printer.lines = []
        printer.item(item, "- ", "  ")
        return "\n".join(printer.lines) + "\n"


class _Printer:
    """Collects the lines; prints each flat mapping object once per position.

    Argument records are shared between operators (``Tensor self`` thousands
    of times, records.RecordMemo), so a mapping of scalars is printed once
    per object and indentation, and its lines are copied after that.

    ``lead`` is what the first line of a value starts with (``"  - "``),
    ``indent`` what its other lines start with (``"    "``).
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._flat: dict[tuple[str, int], tuple[Value, list[str]]] = {}
        # Most scalars repeat (types, names, flags); True == 1, so the type is in the key.
        self._scalars: dict[tuple[type, Value], str] = {}

    def scalar(self, value: Value) -> str:
        key = (type(value), value)
        text = self._scalars.get(key)
        if text is None:
            text = self._scalars[key] = scalar(value)
        return text

    def item(self, value: Value, lead: str, indent: str) -> None:
        """``value`` as one entry of a block sequence."""
        if isinstance(value, (dict, list)) and not value:
            self.lines.append(f"{lead}{_empty(value)}")
        elif isinstance(value, list):
            for child in value:
                self.item(child, lead + "- ", indent + "  ")
                lead = indent
        elif isinstance(value, dict):
            self._mapping(value, lead, indent)
        else:
            self.lines.append(f"{lead}{self.scalar(value)}")

    def _mapping(self, value: dict[str, Value], lead: str, indent: str) -> None:
        hit = self._flat.get((lead, id(value)))
        if hit is not None:
            self.lines.extend(hit[1])
            return
        if any(isinstance(v, (dict, list)) and v for v in value.values()):
            for key, child in value.items():
                self.entry(key, child, lead, indent)
                lead = indent
            return
        first, printed = lead, list[str]()
        for key, child in value.items():
            text = _empty(child) if isinstance(child, (dict, list)) else self.scalar(child)
            printed.append(f"{lead}{key}: {text}")
            lead = indent
        # ``indent`` is always as long as ``lead`` (all spaces), so ``lead`` is
        # the whole position.  The mapping is kept with its lines, so its id
        # cannot be reused meanwhile.
        self._flat[(first, id(value))] = (value, printed)
        self.lines.extend(printed)

    def entry(self, key: str, value: Value, lead: str, indent: str) -> None:
        """``key: value`` of a block mapping."""
        if isinstance(value, (dict, list)) and not value:
            self.lines.append(f"{lead}{key}: {_empty(value)}")
        elif isinstance(value, list):
            self.lines.append(f"{lead}{key}:")
            for item in value:
                self.item(item, indent + "- ", indent + "  ")
        elif isinstance(value, dict):
            self.lines.append(f"{lead}{key}:")
            self._mapping(value, indent + "  ", indent + "  ")
        else:
            self.lines.append(f"{lead}{key}: {self.scalar(value)}")
