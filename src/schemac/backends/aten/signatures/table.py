"""One run's signature views, each computed on first use and then shared.

The views are pure functions of a native function (and a flag or a kernel
name), but the emitters of one run ask for the same view many times: every
dispatch key's registration file wants the dispatcher view and the C++ API
overloads of the operators it wraps, once in a shard and again in the
``Everything`` file.  A :class:`ViewTable` is created by the caller for one
module and handed explicitly to whatever emits that module's files, so each
view is computed once per operator (see "Views vs emitters" in the style
notes).  It is a memo, not a cache with a lifetime of its own: dropping it
changes nothing but speed, and it is never module-level state.

Entries are keyed by the function object's identity (the table is only ever
used with one module's functions, and keeps each function it saw alive so
an identity cannot be reused), because hashing an ``OperatorName`` costs
more than the lookup saves on the small views.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from schemac.backends.aten.signatures.cpp_api import CppSignatureGroup, cpp_signature_group
from schemac.backends.aten.signatures.dispatcher import DispatcherSignature, dispatcher_signature
from schemac.backends.aten.signatures.native import (
    NativeSignature,
    kernel_is_symint,
    native_signature,
)
from schemac.backends.aten.signatures.structured import (
    StructuredImpl,
    StructuredMeta,
    structured_impl,
    structured_meta,
)
from schemac.ir.native import NativeFunction

T = TypeVar("T")

#: What :meth:`ViewTable.derived` finds for a value it has not computed (a value may be None).
_MISSING: Any = object()


class ViewTable:
    """Memoised views of one module's functions; see the module docstring."""

    def __init__(self) -> None:
        # By the function's identity; each function is pinned in ``_pinned``
        # when its first view is stored (one list slot, not a (function, view)
        # tuple per view: ~12,000 views of torch's functions).
        self._cpp: dict[int, CppSignatureGroup] = {}
        self._dispatcher: dict[int, DispatcherSignature] = {}
        self._native: dict[tuple[int, str | None, bool], NativeSignature] = {}
        self._meta: dict[
            tuple[int, int], tuple[NativeFunction, NativeFunction, StructuredMeta]
        ] = {}
        self._impl: dict[
            tuple[int, int, str], tuple[StructuredMeta, NativeFunction, StructuredImpl]
        ] = {}
        #: kind -> identity of the one source (or the tuple of the sources'
        #: identities) -> value; ``_pinned`` keeps every source alive, so that
        #: no identity is reused while the table lives.  ~10,000 entries on
        #: torch's files: flat ids and one list of pins instead of a key tuple
        #: and a (sources, value) tuple per entry (~1 MiB of -t headers' peak).
        self._derived: dict[str, dict[object, Any]] = {}
        self._pinned: list[object] = []

    def cpp_group(self, fn: NativeFunction) -> CppSignatureGroup:
        """:func:`.cpp_signature_group` of ``fn`` (not a method, no fallback binding)."""
        hit = self._cpp.get(id(fn))
        if hit is None:
            hit = self._cpp[id(fn)] = cpp_signature_group(fn)
            self._pinned.append(fn)
        return hit

    def dispatcher(self, fn: NativeFunction) -> DispatcherSignature:
        """:func:`.dispatcher_signature` of ``fn`` (symbolic)."""
        hit = self._dispatcher.get(id(fn))
        if hit is None:
            hit = self._dispatcher[id(fn)] = dispatcher_signature(fn)
            self._pinned.append(fn)
        return hit

    def native(
        self,
        fn: NativeFunction,
        *,
        kernel: str | None = None,
        symint: bool | None = None,
        keep: bool = True,
    ) -> NativeSignature:
        """:func:`.native_signature` of ``fn``, with the same defaults.

        ``keep``: store a view computed now for the table's later readers.
        Without them, the per-operator headers of ``-t headers`` stored one
        or two views of each of torch's ~2,600 functions (~1.9 MiB traced at
        the end of their emission) for registrations that never run; each
        ``_native.h`` reads its functions' views once."""
        if symint is None:
            symint = kernel is not None and kernel_is_symint(kernel)
        key = (id(fn), kernel, symint)
        hit = self._native.get(key)
        if hit is None:
            if kernel is None:
                sig = native_signature(fn, kernel=None, symint=symint)
            else:
                # A function's kernels differ only in name: share the parameters.
                base = self.native(fn, kernel=None, symint=symint, keep=keep)
                sig = NativeSignature(kernel, base.params, base.returns, symint=symint)
            if not keep:
                return sig
            hit = self._native[key] = sig
            self._pinned.append(fn)
        return hit

    def structured_meta(self, functional: NativeFunction, out: NativeFunction) -> StructuredMeta:
        """:func:`.structured_meta` of the group of ``functional`` and ``out``."""
        key = (id(functional), id(out))
        hit = self._meta.get(key)
        if hit is None:
            meta = structured_meta(functional.func, out)
            hit = self._meta[key] = (functional, out, meta)
        return hit[2]

    def structured_impl(
        self, meta: StructuredMeta, out: NativeFunction, kernel: str
    ) -> StructuredImpl:
        """:func:`.structured_impl`: the header and every key's wrappers of a kernel share it."""
        key = (id(meta), id(out), kernel)
        hit = self._impl.get(key)
        if hit is None:
            hit = self._impl[key] = (meta, out, structured_impl(meta, out, kernel))
        return hit[2]

    def derived(self, kind: str, sources: tuple[object, ...], compute: Callable[[], T]) -> T:
        """``compute()``, a value of ``kind`` derived from the view objects ``sources``, once.

        For text printed from views that several keys print alike (the
        ``at::cpu::add`` and ``at::cuda::add`` functions call their wrappers
        with the same argument expressions).  Keyed by ``kind`` and the
        identity of ``sources``, which the entry keeps alive.
        """
        memo = self._derived.get(kind)
        if memo is None:
            memo = self._derived[kind] = {}
        key: object = id(sources[0]) if len(sources) == 1 else tuple(map(id, sources))
        value: T = memo.get(key, _MISSING)
        if value is _MISSING:
            value = memo[key] = compute()
            self._pinned.extend(sources)
        return value
