"""``OUT/<ns>/ops.py`` and ``ops.pyi``: one typed Python function per operator.

Each function calls ``torch.ops.<ns>.<op>.<overload>`` with the schema's
positional and keyword-only arguments and defaults, so editors and type
checkers see the library's real signatures; ``load_library`` loads the
built shared library (``torch.ops.load_library``).  ``torch.ops.<ns>`` works
without this module.
"""

from __future__ import annotations

import keyword
import re

import attrs

from schemac.backends.extension.library import ExtensionLibrary
from schemac.ir.defaults import string_default_value
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

_BASE = {
    BaseTy.Tensor: "torch.Tensor",
    BaseTy.int: "int",
    BaseTy.SymInt: "int | torch.SymInt",
    BaseTy.float: "float",
    BaseTy.bool: "bool",
    BaseTy.str: "str",
    BaseTy.Scalar: "float | int | bool",
    BaseTy.ScalarType: "torch.dtype",
    BaseTy.Layout: "torch.layout",
    BaseTy.Device: "torch.device | str",
    BaseTy.MemoryFormat: "torch.memory_format",
    BaseTy.Generator: "torch.Generator",
}
_NUMBER = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_DTYPES = {"long": "torch.long", "float": "torch.float", "int": "torch.int"}
#: A default the Python side cannot spell: the argument is then left to the schema's default.
UNSPELLED = "_SCHEMA_DEFAULT"


@attrs.frozen
class PyFunction:
    name: str
    #: ``self: torch.Tensor``, ``*``, ``weight: float | int | bool = 0.5``.
    params: tuple[str, ...]
    returns: str
    call: str
    #: Arguments whose default is :data:`UNSPELLED`: passed only when given.
    optional_kwargs: tuple[tuple[str, str], ...]
    doc: str


@attrs.frozen
class PythonModuleView:
    namespace: str
    functions: tuple[PyFunction, ...]
    unspelled: str = UNSPELLED


def python_module(library: ExtensionLibrary) -> PythonModuleView:
    return PythonModuleView(
        library.namespace, tuple(_function(library, f) for f in library.module.functions)
    )


def python_name(name: str) -> str:
    return f"{name}_" if keyword.iskeyword(name) else name


def _function(library: ExtensionLibrary, f: NativeFunction) -> PyFunction:
    args = f.func.arguments
    params: list[str] = []
    positional: list[str] = []
    keywords: list[str] = []
    optional: list[tuple[str, str]] = []
    for arg in args.positional:
        params.append(_param(arg))
        positional.append(python_name(arg.name))
    kwarg_only = args.kwarg_only + args.out
    if kwarg_only:
        params.append("*")
    for arg in kwarg_only:
        text = _param(arg)
        params.append(text)
        if text.endswith(f"= {UNSPELLED}"):
            optional.append((arg.name, python_name(arg.name)))
        else:
            keywords.append(f"{arg.name}={python_name(arg.name)}")
    overload = f.func.name.overload or "default"
    target = f"torch.ops.{library.namespace}.{f.func.name.name}.{overload}"
    call = f"{target}({', '.join([*positional, *keywords, '**_given'])})"
    return PyFunction(
        name=python_name(f.func.name.unambiguous_name),
        params=tuple(params),
        returns=_returns(f),
        call=call,
        optional_kwargs=tuple(optional),
        doc=_docstring_text(f"{library.namespace}::{f.func}"),
    )


def _param(arg: Argument) -> str:
    text = f"{python_name(arg.name)}: {annotation(arg.type)}"
    if arg.default is None:
        return text
    return f"{text} = {_default(arg.default, arg.type)}"


def annotation(ty: Type) -> str:
    if isinstance(ty, BaseType):
        return _BASE.get(ty.name, "object")
    if isinstance(ty, OptionalType):
        return f"{annotation(ty.elem)} | None"
    if isinstance(ty, ListType):
        return f"Sequence[{annotation(ty.elem)}]"
    return "object"


def _default(text: str, ty: Type) -> str:
    if text == "None":
        return "None"
    if text in ("True", "False"):
        return text
    if _NUMBER.match(text):
        return text
    if text.startswith("[") and text.endswith("]"):
        items = [item.strip() for item in text[1:-1].split(",") if item.strip()]
        if all(_NUMBER.match(item) or item in ("True", "False") for item in items):
            return "(" + "".join(f"{item}, " for item in items).rstrip() + ")"
    if text[:1] in ("'", '"'):
        # The decoded value (Note [String defaults]), spelled by Python itself.
        value, _ = string_default_value(text)
        return UNSPELLED if value is None else repr(value)
    if text in _DTYPES and isinstance(ty, (BaseType, OptionalType)):
        return _DTYPES[text]
    return UNSPELLED


def _docstring_text(text: str) -> str:
    """``text`` inside a ``\"\"\"`` docstring, reading back as itself.

    A schema's string defaults hold backslashes (``\\n``) and, in single
    quotes, raw ``"``: unescaped, Python would decode the one and could end
    the docstring at the other.
    """
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _returns(f: NativeFunction) -> str:
    returns = f.func.returns
    if not returns:
        return "None"
    spelled = [annotation(r.type) for r in returns]
    if len(spelled) == 1:
        return spelled[0].replace("Sequence[", "list[")
    return f"tuple[{', '.join(spelled)}]"
