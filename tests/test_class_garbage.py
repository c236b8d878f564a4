"""Note [Class garbage collected before the load] in :mod:`schemac.cli_compile`."""

from __future__ import annotations

import sys
import weakref

import attrs

from schemac import cli_compile


def test_the_classes_attrs_replaced_are_freed_before_the_load(collector_off: None) -> None:
    class Point:
        x: int

    given = weakref.ref(Point)
    made = attrs.frozen(Point)  # a slotted class: a new one, the given one left in a cycle
    del Point
    assert given() is not None and given() is not made  # the collector is off
    cli_compile._collect_class_garbage(["headers"])
    assert given() is None
    # The selected targets' backends were imported first, their classes' cycles with them.
    assert "schemac.backends.aten.headers.backend" in sys.modules
