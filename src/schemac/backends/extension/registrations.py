"""The registration half of ``OUT/<ns>/register/<root>.cpp``.

For one family: the ``m.def`` of every schema (in a ``TORCH_LIBRARY_FRAGMENT``;
``library.cpp`` holds the one ``TORCH_LIBRARY``), the kernels of its
``autogen:`` out= variants, and per dispatch key the wrappers ATen's
``Register<Key>.cpp`` would have, printed by the ATen registration emitters
(:mod:`schemac.backends.aten.registrations`): device checks and guards,
structured meta/impl classes that allocate, resize or check outputs, Meta
kernels made from structured meta functions, Meta stubs of in-place
operators.  Each key's wrappers and helpers are in a namespace of their own,
so one file can hold several keys.

Device keys other than CPU (CUDA, MPS, ...) are compiled only when the build
defines ``SCHEMAC_WITH_<KEY>``: a CPU-only build has no CUDA kernels to link.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.registrations.helpers import helper_functions
from schemac.backends.aten.registrations.keys import key_traits
from schemac.backends.aten.registrations.plan import (
    PlanIndex,
    PlannedItem,
    WrapperKind,
    plan_key,
)
from schemac.backends.aten.registrations.structured import structured_wrapper_definition
from schemac.backends.aten.registrations.translate import shared_call_arguments
from schemac.backends.aten.registrations.wrappers import (
    kernel_wrapper_definition,
    registration,
    wrapper_signature,
)
from schemac.backends.cppmodel import cpp_string_literal
from schemac.backends.extension.library import ExtensionLibrary, Family
from schemac.backends.extension.typed_api import handle_name
from schemac.backends.extension.views import ExtensionViews
from schemac.ir.dispatch import COMPOSITE_KEYS
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind

#: Keys compiled in every build; others need ``SCHEMAC_WITH_<KEY>``.
_ALWAYS_BUILT = frozenset({"CPU", "Meta", *COMPOSITE_KEYS})


@attrs.frozen
class KeySection:
    key: str
    #: ``SCHEMAC_WITH_CUDA`` for keys a CPU-only build leaves out, else None.
    guard_macro: str | None
    #: The key's own headers (device guards, allocators), as ATen's file has them.
    headers: tuple[str, ...]
    helpers: tuple[str, ...]
    definitions: tuple[str, ...]
    registrations: tuple[str, ...]


@attrs.frozen
class FamilyRegistrations:
    #: ``m.def`` lines, tag vectors first.
    schema_lines: tuple[str, ...]
    autogen_kernels: tuple[str, ...]
    keys: tuple[KeySection, ...]


def library_keys(library: ExtensionLibrary) -> tuple[str, ...]:
    """Every dispatch key some kernel uses, plus Meta when an operator is structured."""
    keys: dict[str, None] = {}
    for resolution in library.module.resolutions.values():
        keys.update(dict.fromkeys(resolution.dispatch))
    if any(g.structured for g in library.module.groups):
        keys["Meta"] = None
    return tuple(keys)


def planned_by_root(
    library: ExtensionLibrary, keys: tuple[str, ...]
) -> dict[str, dict[str, list[PlannedItem]]]:
    """``root -> key -> planned items`` for every key of the library."""
    index = PlanIndex.of(library.module)
    found: dict[str, dict[str, list[PlannedItem]]] = {}
    for key in keys:
        for item in plan_key(library.module, key_traits(key), index):
            found.setdefault(item.root_name, {}).setdefault(key, []).append(item)
    return found


def family_registrations(
    library: ExtensionLibrary,
    family: Family,
    planned: dict[str, list[PlannedItem]],
    views: ExtensionViews,
) -> FamilyRegistrations:
    sections = tuple(
        section
        for key, items in planned.items()
        if (section := _key_section(key, items, views)) is not None
    )
    return FamilyRegistrations(
        schema_lines=tuple(_schema_lines(family)),
        autogen_kernels=tuple(
            _autogen_out_kernel(library, f, views) for f in family.functions if _is_autogen_out(f)
        ),
        keys=sections,
    )


def _key_section(key: str, items: list[PlannedItem], views: ExtensionViews) -> KeySection | None:
    traits = key_traits(key)
    definitions: list[str] = []
    registrations: list[str] = []
    structured = False
    for item in items:
        for wrapper in item.wrappers:
            if wrapper.kind is WrapperKind.STRUCTURED:
                group = wrapper.structured
                if (
                    traits.is_composite_non_functional
                    and group is not None
                    and group.kernel is None
                ):
                    # ATen's default-backend kernels call at::<op>_outf, which an
                    # extension does not have; its out= kernel is registered instead.
                    continue
                structured = True
                sig = wrapper_signature(wrapper, traits, views)
                definitions.append(structured_wrapper_definition(wrapper, traits, sig, views))
            else:
                sig = wrapper_signature(wrapper, traits, views)
                definitions.append(kernel_wrapper_definition(wrapper, traits, sig, views))
            registrations.append(registration(wrapper, sig))
    if not definitions:
        return None
    return KeySection(
        key=key,
        guard_macro=None if key in _ALWAYS_BUILT else f"SCHEMAC_WITH_{key.upper()}",
        headers=traits.extra_headers,
        helpers=helper_functions(traits) if structured else (),
        definitions=tuple(definitions),
        registrations=tuple(registrations),
    )


#: Tags an operator returning nothing must not carry.  Note [The out tag]:
#: torch 2.13's functionalization (auto_functionalized_v2) and Inductor's
#: lowering of functional custom operators to their out= variants take
#: ``Tag.out`` as a promise that the operator *returns* its out arguments;
#: an extension's out= operator returns ``()``, so it is registered without
#: the tag and functionalized as any other mutating operator.
_TAGS_NEEDING_RETURNS = frozenset({"out"})


def _schema_lines(family: Family) -> Iterator[str]:
    for f in family.functions:
        literal = cpp_string_literal(str(f.func))
        tags = sorted(f.tags)
        if not f.func.returns:
            tags = [tag for tag in tags if tag not in _TAGS_NEEDING_RETURNS]
        if tags:
            tag_list = ", ".join(f"at::Tag::{tag}" for tag in tags)
            yield f"m.def({literal}, {{{tag_list}}});"
        else:
            yield f"m.def({literal});"


def _is_autogen_out(f: NativeFunction) -> bool:
    return f.generated and f.func.kind() is SchemaKind.out


def _autogen_out_kernel(library: ExtensionLibrary, f: NativeFunction, views: ExtensionViews) -> str:
    """An ``autogen:`` out= kernel: run the functional operator, resize and copy into ``out``."""
    functional = _functional_of(library, f)
    resolution = library.module.resolution(f.func.name)
    kernel = next(iter(resolution.dispatch.values()))
    sig = views.native(f, kernel=kernel.name)
    target = views.dispatcher(functional)
    args = shared_call_arguments(views, sig.params, target.params)
    body = [f"auto result = {call(handle_name(library, functional) + '::call', args)};"]
    outs = [a.name for a in f.func.arguments.out]
    for i, out in enumerate(outs):
        value = "result" if len(outs) == 1 else f"std::get<{i}>(result)"
        body.append(f"at::native::resize_output_symint({out}, {value}.sym_sizes());")
        body.append(f"{out}.copy_({value});")
    text = block(sig.defn(), body)
    return f"namespace {kernel.namespace} {{\n{text}\n}} // namespace {kernel.namespace}"


def _functional_of(library: ExtensionLibrary, f: NativeFunction) -> NativeFunction:
    for group in library.module.groups:
        if group.out == f.func.name:
            return library.module.function(group.functional)
    raise ValueError(f"autogen'd {f.func.name} has no functional variant")
