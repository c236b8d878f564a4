"""``ops/<op>_meta.h`` and ``NativeMetaFunctions.h``: the structured meta classes.

A structured group's meta class, ``at::meta::structured_<op>``, declares the
shared ``meta()`` function (see :mod:`schemac.backends.aten.signatures.structured`).
When the out= entry has ``precomputed:``, ``meta()`` returns a
``precompute_out`` value instead of ``void``: a struct of the precomputed
fields with one ``bool`` template parameter per field recording whether it
was set, and a ``set_<field>()`` per field that returns the struct with that
flag turned on.  ``meta()`` must return the all-true instantiation
(``meta_return_ty``), so forgetting to set a field, or setting one twice,
is a compile error in the kernel.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Family
from schemac.backends.aten.signatures.structured import META_RETURN_ALIAS, StructuredMeta


@attrs.frozen
class Setter:
    name: str
    type: str
    flag: str
    #: ``precompute_out<KH, true, ...>``: the struct with this field's flag set.
    returns: str
    #: ``ret.kH = this->kH;`` for the other fields, ``ret.kW = value;`` for this one.
    assignments: tuple[str, ...]


@attrs.frozen
class MetaClass:
    class_name: str
    base_class: str
    meta_decl: str
    #: ``bool KH = false, bool KW = false``; empty without precomputed fields.
    template_parameters: str = ""
    setters: tuple[Setter, ...] = ()
    fields: tuple[str, ...] = ()
    #: ``precompute_out <true, true>``
    all_set: str = ""
    return_alias: str = META_RETURN_ALIAS


def meta_class(meta: StructuredMeta) -> MetaClass:
    fields = meta.precomputed
    flags = [f.template_flag for f in fields]
    setters = []
    for index, field in enumerate(fields):
        set_flags = [*flags[:index], "true", *flags[index + 1 :]]
        setters.append(
            Setter(
                name=field.name,
                type=str(field.type),
                flag=field.template_flag,
                returns=f"precompute_out<{', '.join(set_flags)}>",
                assignments=tuple(
                    f"ret.{other.name} = {'value' if other is field else 'this->' + other.name};"
                    for other in fields
                ),
            )
        )
    return MetaClass(
        class_name=meta.class_name,
        base_class=meta.base_class,
        meta_decl=meta.meta.decl(),
        template_parameters=", ".join(f"bool {flag} = false" for flag in flags),
        setters=tuple(setters),
        fields=tuple(f"{f.type} {f.name};" for f in fields),
        all_set=f"precompute_out <{', '.join('true' for _ in fields)}>" if fields else "",
    )


@attrs.frozen
class MetaHeader:
    root: str
    classes: tuple[MetaClass, ...]


def meta_header(family: Family) -> MetaHeader | None:
    """The family's ``_meta.h``; None when it has no structured group."""
    groups = family.structured_groups
    if not groups:
        return None
    return MetaHeader(family.root, tuple(meta_class(g.meta) for g in groups if g.meta))


@attrs.frozen
class MetaUmbrella:
    includes: tuple[str, ...]


def meta_umbrella(catalog: Catalog) -> MetaUmbrella:
    roots = sorted(f.root for f in catalog.families if f.structured_groups)
    return MetaUmbrella(tuple(f"ATen/ops/{r}_meta.h" for r in roots))
