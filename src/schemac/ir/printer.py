"""A :class:`~schemac.ir.module.Module` as text or JSON, for ``schemac dump-ir``.

The printer knows only the IR: whoever built the module (the front end, any
pass) can have it printed, so ``dump-ir`` after any stage uses this one module.
It is generic over the attrs classes of the IR, so a field added to an IR class
shows up in dumps without touching this file.

Values print in their canonical spelling: a schema as its schema text, an
operator name as ``name.overload``, a type as ``Tensor?``.  Fields still at
their default are left out of the text form (a dump shows what an entry
*says*); the JSON form keeps every field, so tools need not know defaults.
Spans are printed only when asked for, as ``file:line:col``.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Collection
from typing import Any

import attrs

from schemac.diagnostics import FieldSpans, Span
from schemac.ir.module import Module
from schemac.ir.names import BaseOperatorName, OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Annotation, Argument, FunctionSchema, Return
from schemac.ir.types import BaseType, CustomClassType, ListType, OptionalType

#: IR values printed as their ``str()``: their canonical text is lossless.
_AS_TEXT = (
    FunctionSchema,
    OperatorName,
    BaseOperatorName,
    Argument,
    Return,
    Annotation,
    BaseType,
    CustomClassType,
    OptionalType,
    ListType,
)

#: The collections of a module, in print order.
_SECTIONS = ("tags", "functions", "derivatives", "deprecated")


def select_functions(module: Module, names: Collection[str]) -> Module:
    """Only the functions named (``add.Tensor``, or ``add`` for every overload).

    Derivative entries and deprecated signatures of other operators go too, so
    a selection dumps one operator's whole story; so do the tag definitions,
    which are the file's vocabulary rather than part of any operator.
    """
    wanted = set(names)

    def chosen(name: OperatorName) -> bool:
        return str(name) in wanted or str(name.name) in wanted

    return attrs.evolve(
        module,
        tags=(),
        functions=tuple(f for f in module.functions if chosen(f.name)),
        derivatives=tuple(d for d in module.derivatives if chosen(d.schema.name)),
        deprecated=tuple(d for d in module.deprecated if chosen(d.schema.name)),
    )


def to_data(value: object, spans: bool = False) -> Any:
    """Plain JSON-ready data for any IR value."""
    if isinstance(value, Span):
        return str(value)
    if isinstance(value, FieldSpans):
        return to_data(tuple(value), spans)
    if isinstance(value, _AS_TEXT):
        text = str(value)
        if spans and isinstance(value, FunctionSchema):
            return {"schema": text, "span": str(value.span)}
        return text
    if isinstance(value, enum.Enum):
        return value.value
    if attrs.has(type(value)):
        data: dict[str, Any] = {}
        for field in _fields(value):
            item = getattr(value, field.name)
            if not spans and (isinstance(item, Span) or field.name == "field_spans"):
                continue
            if not field.metadata.get("print", True):  # e.g. a host file's whole text
                continue
            data[field.name] = to_data(item, spans)
        return data
    if isinstance(value, (frozenset, set)):
        return sorted(to_data(v, spans) for v in value)
    if isinstance(value, (tuple, list)):
        return [to_data(v, spans) for v in value]
    if isinstance(value, dict):
        return {str(k): to_data(v, spans) for k, v in value.items()}
    return value


def module_to_json(module: Module, spans: bool = False) -> str:
    return json.dumps(to_data(module, spans), indent=2, sort_keys=False)


def module_to_text(module: Module, spans: bool = False) -> str:
    """One block per entry: a headline, then ``key: value`` for fields set."""
    lines = [f"module from {module.sources.native_functions}"]
    for section in _SECTIONS:
        items = getattr(module, section)
        if not items:
            continue
        lines.append("")
        lines.append(f"{section} ({len(items)}):")
        for item in items:
            lines.extend(_entry_lines(item, spans))
    return "\n".join(lines) + "\n"


def _entry_lines(item: object, spans: bool) -> list[str]:
    headline_field = _headline_field(item)
    headline = str(to_data(getattr(item, headline_field)))
    if isinstance(item, NativeFunction):
        headline = f"{item.namespace}::{headline}"
    span = getattr(item, "span", None)
    if spans and isinstance(span, Span):
        headline += f"  @ {span}"
    lines = [f"  {headline}"]
    for field in _fields(item):
        if field.name in (headline_field, "span", "field_spans", "namespace"):
            continue
        value = getattr(item, field.name)
        if field.default is not attrs.NOTHING and value == field.default:
            continue
        lines.extend(_field_lines(field.name, value, spans, "    "))
    return lines


def _headline_field(item: object) -> str:
    for name in ("func", "schema", "name"):
        if hasattr(item, name):
            return name
    return str(_fields(item)[0].name)


def _fields(value: object) -> tuple[attrs.Attribute[Any], ...]:
    return tuple(attrs.fields(type(value)))  # type: ignore[arg-type]


def _field_lines(name: str, value: object, spans: bool, indent: str) -> list[str]:
    data = to_data(value, spans)
    if isinstance(data, list) and data and all(isinstance(d, dict) for d in data):
        lines = [f"{indent}{name}:"]
        for entry in data:
            lines.append(f"{indent}  - {_inline(entry)}")
        return lines
    return [f"{indent}{name}: {_inline(data)}"]


def _inline(data: Any) -> str:
    if isinstance(data, dict):
        return "{" + ", ".join(f"{k}: {_inline(v)}" for k, v in data.items()) + "}"
    if isinstance(data, list):
        return "[" + ", ".join(_inline(v) for v in data) + "]"
    if isinstance(data, str):
        return data if "\n" not in data else json.dumps(data)
    return json.dumps(data)
