"""Every pass schemac knows, by name, imported only when asked for.

Adding a pass is one new module plus one line in ``_PASSES``.  The order of
``_PASSES`` is the default pipeline order; the manager still checks it
against each pass's ``requires``/``provides``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from schemac.passes.base import Pass

#: name -> "module:Class", in default pipeline order.
_PASSES: tuple[tuple[str, str], ...] = (
    ("resolve-dispatch", "schemac.passes.resolve:ResolveDispatch"),
    ("autogen-variants", "schemac.passes.generate:GenerateVariants"),
    ("group-variants", "schemac.passes.group_variants:GroupVariants"),
    ("group-views", "schemac.passes.group_views:GroupViews"),
    ("check-structured", "schemac.passes.structured:CheckStructured"),
    ("match-derivatives", "schemac.passes.derivatives:MatchDerivatives"),
    ("selective-build", "schemac.passes.selective_build:SelectiveBuild"),
)


def _loader(target: str) -> Callable[[], type[Pass]]:
    module_name, class_name = target.split(":")

    def load() -> type[Pass]:
        cls = getattr(importlib.import_module(module_name), class_name)
        if not (isinstance(cls, type) and issubclass(cls, Pass)):
            raise TypeError(f"{target} is not a Pass")
        return cls

    return load


def get_all_passes() -> dict[str, Callable[[], type[Pass]]]:
    """name -> a function that imports and returns the pass class."""
    return {name: _loader(target) for name, target in _PASSES}


def default_pipeline_names() -> tuple[str, ...]:
    return tuple(name for name, _ in _PASSES)


def pass_class(name: str) -> type[Pass]:
    """The class registered under ``name``; KeyError if there is none."""
    return get_all_passes()[name]()
