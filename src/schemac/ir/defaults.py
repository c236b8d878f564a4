"""Which default values fit which argument types.

The grammar accepts any literal after ``=`` (as torchgen does, see
docs/schema-parsers.md).  A default that does not fit its type (``int[] x=3``,
``Tensor[] t=nan``, ``bool b=1.5``) would pass the front end and only fail in
a backend that has to spell it in C++ or Python, so backends/cpp_names.py
checks every default with :func:`default_problem` before any backend runs.
The accepted forms are those PyTorch's files use for each type (every real
schema passes), plus ``[x]`` for a scalar, which C++ reads as ``{x}``.
"""

from __future__ import annotations

import re

from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")

#: The named defaults, by the base type they stand for.
_NAMED = {
    BaseTy.int: frozenset({"Mean"}),  # at::Reduction::Mean
    BaseTy.MemoryFormat: frozenset({"contiguous_format"}),
    BaseTy.ScalarType: frozenset({"long"}),
    BaseTy.bool: frozenset({"True", "False"}),
}


def _fits_base(default: str, base: BaseTy) -> bool:
    if default in _NAMED.get(base, ()):
        return True
    if base in (BaseTy.int, BaseTy.SymInt):
        return _INT.fullmatch(default) is not None
    if base in (BaseTy.float, BaseTy.Scalar):
        return _FLOAT.fullmatch(default) is not None
    if base is BaseTy.str:
        return string_default_problem(default) is None
    return False


def _fits(default: str, ty: Type) -> bool:
    if isinstance(ty, OptionalType):
        return default == "None" or _fits(default, ty.elem)
    if isinstance(ty, ListType):
        if default.startswith("[") and default.endswith("]"):
            items = [item.strip() for item in default[1:-1].split(",") if item.strip()]
            return all(_fits(item, ty.elem) for item in items)
        # A sized list may default to one element, repeated (``int[2] stride=1``).
        return ty.size is not None and _fits(default, ty.elem)
    if default.startswith("[") and default.endswith("]"):  # ``int x=[1]``: C++ takes ``{1}``
        return (
            default[1:-1].strip() != "" and "," not in default and _fits(default[1:-1].strip(), ty)
        )
    return isinstance(ty, BaseType) and _fits_base(default, ty.name)


def default_problem(default: str, ty: Type) -> str | None:
    """Why ``default`` cannot be the default of an argument of type ``ty``, or None."""
    if _fits(default, ty):
        return None
    if _is_str(ty) and default[:1] in ("'", '"'):
        return string_default_problem(default)
    if default == "None":
        return f"default None for the non-optional type '{ty}'"
    if isinstance(ty, ListType) and ty.size is None and not default.startswith("["):
        return f"default '{default}' for the unsized list type '{ty}' (write a list: [{default}])"
    return f"default '{default}' does not fit the type '{ty}'"


def _is_str(ty: Type) -> bool:
    if isinstance(ty, OptionalType):
        return _is_str(ty.elem)
    return isinstance(ty, BaseType) and ty.name is BaseTy.str


# Note [String defaults]
# ~~~~~~~~~~~~~~~~~~~~~~
# A ``str`` default is a quoted literal of the schema language: ``'mean'`` or
# ``"valid"``, with the escapes ``\\ \' \" \a \b \f \n \t \v`` and
# three octal digits (``\101``): those torch's own schema parser reads (it
# refuses ``\r``, ``\?``, ``\x``..., so a default holding one would fail where
# the schema is registered).  Anything else after a backslash is refused, as
# is a NUL in the value (a C++ default ``"\0EVIL"`` is the empty string to
# every ``const char*`` reader), a ``)`` (PythonArgParser ends a signature at
# the first one, as it splits arguments at ``, `` and names from defaults at
# ``=``, which the grammar refuses already) and a control or
# bidirectional-format character written raw (U+202E reorders how the
# generated source reads).  Backends print the decoded value with their own
# escaping (C++: ``cppmodel.cpp_string_literal``; PythonArgParser:
# ``python.defaults.parser_string_literal``), never the YAML spelling.

_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "t": "\t",
    "v": "\v",
}
_OCTAL = re.compile(r"[0-7]{3}")


def string_default_value(default: str) -> tuple[str | None, str | None]:
    """``(value, None)`` for a valid quoted ``str`` default, else ``(None, why)``.

    An octal escape stands for one byte, as in torch's schema parser and in
    C++: ``"\\303\\251"`` is ``é`` (the bytes must form UTF-8).
    """
    if len(default) < 2 or default[0] not in "'\"" or default[-1] != default[0]:
        return None, f"default {default} is not a quoted string"
    quote, body = default[0], default[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char == quote:
            return None, f"the string default {default} has an unescaped {quote} inside it"
        if char != "\\":
            if not char.isprintable() and char != " ":
                return None, (
                    f"the string default holds the character U+{ord(char):04X}; control and"
                    " bidirectional-format characters may not be written in a default"
                )
            out += char.encode("utf-8", "surrogatepass")
            index += 1
            continue
        follower = body[index + 1 : index + 2]
        if follower in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[follower].encode()
            index += 2
            continue
        octal = body[index + 1 : index + 4]
        code = int(octal, 8) if _OCTAL.fullmatch(octal) else None
        if code is not None and 0 < code < 256:
            out.append(code)
            index += 4
            continue
        if code == 0 or (code is None and follower == "0"):
            return None, f"the string default {default} holds a NUL character"
        if code is not None:
            return None, f"'\\{octal}' in the string default {default} is beyond '\\377'"
        return None, (
            f"'\\{follower}' in the string default {default} is not an escape of the schema"
            " language; write \\\\, \\', \\\", \\a, \\b, \\f, \\n, \\t, \\v or three octal"
            " digits (\\015 for a carriage return)"
        )
    try:
        value = out.decode("utf-8")
    except UnicodeDecodeError:
        return None, f"the octal escapes of the string default {default} do not form UTF-8"
    if ")" in value:
        return None, (
            f"the string default {default} holds a ')', which ends the signature that"
            " torch's Python argument parser reads"
        )
    return value, None


def string_default_problem(default: str) -> str | None:
    return string_default_value(default)[1]
