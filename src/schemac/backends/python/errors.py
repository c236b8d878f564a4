"""Exceptions the views raise for operators Python cannot bind.

They are internal: :mod:`.operators` and :mod:`.bindings` turn each into a
diagnostic at the operator's YAML entry before anything reaches the user.
"""

from __future__ import annotations


class UnsupportedPythonType(ValueError):
    """A schema type the Python argument parser has no spelling or accessor for."""


class ReservedArgumentName(ValueError):
    """A schema declares an argument Python adds by itself (``requires_grad``)."""


class UnbindableOverload(ValueError):
    """An overload whose C++ call the binding cannot express."""


class UnnamedField(ValueError):
    """Some returns are named and some are not (a struct sequence needs all or none)."""
