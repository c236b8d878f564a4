"""``core/TensorBody.h``: the ``at::Tensor`` class and its operator methods.

Most of the file is the hand-written part of the Tensor class (constructors,
assignment semantics, autograd accessors, indexing operators, ...), kept in
the template.  The generated part is one method per overload of every
operator with ``variants: method``: declared inside the class (``const``:
methods never reseat the handle, in-place ones mutate the data it points
to) and defined after it, forwarding to ``at::_ops::<op>::call`` with
``*this`` as ``self``.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.headers.catalog import Catalog
from schemac.backends.aten.registrations.translate import call_arguments

#: How a method passes its object where the schema has ``self``.
SELF_EXPRESSION = "const_cast<Tensor&>(*this)"


@attrs.frozen
class MethodDefinition:
    schema: str
    head: str
    struct: str
    arguments: str


@attrs.frozen
class TensorBody:
    declarations: tuple[str, ...]
    definitions: tuple[MethodDefinition, ...]


def tensor_body(catalog: Catalog) -> TensorBody:
    declarations: list[str] = []
    definitions: list[MethodDefinition] = []
    for entry in catalog.entries:
        if entry.methods is None:
            continue
        self_param = next(p for p in entry.dispatcher.params if p.name == "self")
        extra = {"self": (SELF_EXPRESSION, self_param.type)}
        for sig in entry.methods.all():
            declarations.append(f"{sig.decl()} const;")
            args = call_arguments(sig.params, entry.dispatcher.params, extra=extra)
            definitions.append(
                MethodDefinition(
                    entry.qualified_schema,
                    f"{sig.defn(f'Tensor::{sig.name}')} const",
                    entry.struct_name,
                    ", ".join(args),
                )
            )
    return TensorBody(tuple(declarations), tuple(definitions))
