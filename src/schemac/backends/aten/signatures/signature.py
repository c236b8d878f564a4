"""The shape every signature view shares: a name, parameters, a return type.

A :class:`Signature` is computed once per operator and view, then only read:
``decl()`` prints a declaration (with defaults), ``defn()`` the head of a
definition (without), ``type()`` the function type and ``ptr_type()`` the
function-pointer type.  Emitters choose the prefix (``TORCH_API``, a class
qualifier) and the trailing ``;`` or body themselves.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.signatures import cxx_types as C


@attrs.frozen
class Signature:
    name: str
    params: tuple[C.Param, ...]
    returns: C.CType

    # The parameter lists as declarations and as definitions print them,
    # joined on first use: one signature is printed under several names (the
    # dispatcher's as ``call``, ``redispatch``, ``<op>::call`` ...) and in
    # several files, and the joins were most of the cost of each print.  Kept
    # for the run (the view table keeps the signature), so where the two lists
    # read alike (no parameter has a default) they are one string.
    _decl_params: str | None = attrs.field(init=False, default=None, eq=False, repr=False)
    _defn_params: str | None = attrs.field(init=False, default=None, eq=False, repr=False)

    def _head(self, name: str | None, params: str, redispatch: bool) -> str:
        if redispatch:
            key_set = f"{C.DISPATCH_KEY_SET} dispatchKeySet"
            params = f"{key_set}, {params}" if self.params else key_set
        return f"{self.returns} {self.name if name is None else name}({params})"

    def decl(self, name: str | None = None, *, redispatch: bool = False) -> str:
        """``ret name(T a, T b=default)``; ``redispatch`` prepends the key set."""
        params = self._decl_params
        if params is None:
            params = ", ".join([p.decl() for p in self.params])
            if params == self._defn_params:
                params = self._defn_params
            object.__setattr__(self, "_decl_params", params)
        return self._head(name, params, redispatch)

    def defn(self, name: str | None = None, *, redispatch: bool = False) -> str:
        params = self._defn_params
        if params is None:
            params = ", ".join([p.defn() for p in self.params])
            if params == self._decl_params:
                params = self._decl_params
            object.__setattr__(self, "_defn_params", params)
        return self._head(name, params, redispatch)

    def type(self) -> str:
        return f"{self.returns} ({', '.join(str(p.type) for p in self.params)})"

    def ptr_type(self) -> str:
        return f"{self.returns} (*)({', '.join(str(p.type) for p in self.params)})"

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)
