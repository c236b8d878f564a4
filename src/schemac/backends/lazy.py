"""A computed-once attribute of a view, without ``functools.cached_property``'s lock.

Views are frozen attrs classes whose derived facts are computed on first use
and kept (``plan.kernel_params``, ``argument.type_text``).  On CPython 3.11,
``functools.cached_property`` takes a re-entrant lock around every first
computation, which for the autograd backend's ~75,000 first uses per compile
of torch's files costs more than most of the computations themselves.  A
compile is single-threaded, and each value is a pure function of the frozen
instance, so computing one twice could not change it anyway.

:class:`cached` is a non-data descriptor: the first access stores the value in
the instance's ``__dict__`` (bypassing the frozen class's ``__setattr__``),
and later accesses find it there without calling the descriptor at all.  The
class must therefore not be slotted (``@attrs.frozen(slots=False)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

Owner = TypeVar("Owner")
Value = TypeVar("Value")


class cached(Generic[Owner, Value]):
    """Decorator: ``func(self)`` computed on first access, then an instance attribute."""

    def __init__(self, func: Callable[[Owner], Value]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type[Owner], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> cached[Owner, Value]: ...

    @overload
    def __get__(self, instance: Owner, owner: type[Any] | None = None) -> Value: ...

    def __get__(
        self, instance: Owner | None, owner: type[Any] | None = None
    ) -> Value | cached[Owner, Value]:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.name] = value
        return value
