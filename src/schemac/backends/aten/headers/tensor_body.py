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

from collections.abc import Iterable

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Entry
from schemac.backends.aten.registrations.translate import call_arguments

#: The library whose operators the hand-written part of the class calls.
TENSOR_LIBRARY = "aten"

#: How a method passes its object where the schema has ``self``.
SELF_EXPRESSION = "const_cast<Tensor&>(*this)"


def defines_tensor_class(catalog: Catalog) -> bool:
    """Whether this library provides ``at::Tensor`` (only ATen itself does).

    The hand-written part of the class calls ATen operators (``fill_``,
    ``copy_``, ``select``, ``to``, ...), so a library in another namespace
    compiles against torch's own ``TensorBody.h`` instead; its ``method``
    variants stay reachable through ``at::_ops``.
    """
    return any(e.fn.namespace == TENSOR_LIBRARY for e in catalog.entries)


@attrs.frozen
class TensorBody:
    declarations: tuple[str, ...]
    #: One block per method function: its definitions, each after a blank line
    #: and its schema (without the block's last newline, which the template adds).
    definitions: tuple[str, ...]
    #: Release policy (profile features): whether the class still has the
    #: deprecated ``is_variable()``, and whether ``register_hook`` is the pair of
    #: SFINAE overloads (void / Tensor hooks) or one template that
    #: ATen/core/Tensor.h defines with ``if constexpr``.
    declares_is_variable: bool = True
    sfinae_register_hook: bool = True


def method_declarations(entry: Entry) -> str:
    """One method function's declarations in the class, one a line (a piece of
    :mod:`.pieces`), made from the entry alone."""
    assert entry.methods is not None, "asked only for methods"
    return "\n".join(f"{sig.decl()} const;" for sig in entry.methods.all())


def method_definitions(entry: Entry) -> str:
    """One method function's definitions after the class (a piece of
    :mod:`.pieces`), made from the entry alone."""
    assert entry.methods is not None, "asked only for methods"
    self_param = next(p for p in entry.dispatcher.params if p.name == "self")
    extra = {"self": (SELF_EXPRESSION, self_param.type)}
    blocks = []
    for sig in entry.methods.all():
        args = ", ".join(call_arguments(sig.params, entry.dispatcher.params, extra=extra))
        blocks.append(
            f"\n// {entry.qualified_schema}\n"
            f"inline {sig.defn(f'Tensor::{sig.name}')} const {{\n"
            f"    return at::_ops::{entry.struct_name}::call({args});\n"
            "}"
        )
    return "\n".join(blocks)


def tensor_body(catalog: Catalog, methods: Iterable[tuple[str, str]]) -> TensorBody:
    """``methods``: :func:`method_declarations` and :func:`method_definitions`
    of every method function, in catalog order."""
    declarations: list[str] = []
    definitions: list[str] = []
    for declared, defined in methods:
        if declared:
            declarations.extend(declared.split("\n"))
        if defined:
            definitions.append(defined)
    profile = catalog.profile
    return TensorBody(
        tuple(declarations),
        tuple(definitions),
        declares_is_variable=profile.has("tensor_is_variable"),
        sfinae_register_hook=profile.has("register_hook_sfinae"),
    )
