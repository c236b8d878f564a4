"""``attrs.evolve`` for the passes' hot paths: the same result with less overhead.

attrs looks a class's fields up and builds a keyword dict on every call, and
passes evolve thousands of NativeFunctions (over twenty fields each) per run.
:func:`evolve` reads the fields with one getter built once per class and passes
them positionally, so the same ``__init__`` runs, with the same checks, at
about half the cost.  Classes with keyword-only, aliased or non-init fields
go through attrs.evolve unchanged.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

T = TypeVar("T")

#: A getter of all of a class's fields in ``__init__`` order, and each field's position.
_Plan = tuple[Callable[[Any], Any], dict[str, int]]

#: Per class (the only thing a plan depends on); None: use attrs.evolve.
_PLANS: dict[type, _Plan | None] = {}


def evolve(inst: T, **changes: Any) -> T:
    """A copy of ``inst`` with ``changes`` applied, built by its ``__init__``."""
    cls = type(inst)
    if cls in _PLANS:
        plan = _PLANS[cls]
    else:
        plan = _PLANS[cls] = _plan(cls)
    if plan is None:
        return attrs.evolve(inst, **changes)  # type: ignore[misc]
    getter, position = plan
    values = list(getter(inst))
    for name, value in changes.items():
        if name not in position:
            raise TypeError(f"{cls.__name__} has no field '{name}'")
        values[position[name]] = value
    return cls(*values)


def field_replacer(cls: type[T], name: str) -> Callable[[T, Any], T]:
    """``lambda inst, value: evolve(inst, name=value)`` for instances of exactly ``cls``.

    For a pass that changes one field of thousands of objects: the plan is
    looked up once, and no keyword dict is built per call.
    """
    plan = _PLANS[cls] if cls in _PLANS else _PLANS.setdefault(cls, _plan(cls))
    if plan is None:
        return lambda inst, value: attrs.evolve(inst, **{name: value})  # type: ignore[misc]
    getter, position = plan
    if name not in position:
        raise TypeError(f"{cls.__name__} has no field '{name}'")
    index = position[name]

    def replace(inst: T, value: Any) -> T:
        values = list(getter(inst))
        values[index] = value
        return cls(*values)

    return replace


def _plan(cls: type) -> _Plan | None:
    fields = attrs.fields(cls)
    if len(fields) < 2 or any(f.kw_only or not f.init or f.alias != f.name for f in fields):
        return None
    names = [f.name for f in fields]
    return operator.attrgetter(*names), {name: i for i, name in enumerate(names)}
