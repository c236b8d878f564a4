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

    def _head(self, name: str | None, params: list[str], redispatch: bool) -> str:
        if redispatch:
            params = [f"{C.DISPATCH_KEY_SET} dispatchKeySet", *params]
        return f"{self.returns} {self.name if name is None else name}({', '.join(params)})"

    def decl(self, name: str | None = None, *, redispatch: bool = False) -> str:
        """``ret name(T a, T b=default)``; ``redispatch`` prepends the key set."""
        return self._head(name, [p.decl() for p in self.params], redispatch)

    def defn(self, name: str | None = None, *, redispatch: bool = False) -> str:
        return self._head(name, [p.defn() for p in self.params], redispatch)

    def type(self) -> str:
        return f"{self.returns} ({', '.join(str(p.type) for p in self.params)})"

    def ptr_type(self) -> str:
        return f"{self.returns} (*)({', '.join(str(p.type) for p in self.params)})"

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)
