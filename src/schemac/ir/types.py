"""The type language of operator schemas.

A type is a base type (``Tensor``, ``int``, ...), a custom class
(``__torch__.torch.classes.ns.Name``), an optional ``T?`` or a list ``T[]`` /
``T[N]``.  ``str()`` of every type is its canonical spelling.  Alias annotations
are not part of the type: they belong to the argument or return that carries
them (see :class:`schemac.ir.schema.Argument`).
"""

from __future__ import annotations

import enum

import attrs


class BaseTy(enum.Enum):
    """Every base type the schema language knows, spelled as in schemas."""

    Generator = "Generator"
    ScalarType = "ScalarType"
    Tensor = "Tensor"
    int = "int"
    #: Named-tensor dimension names: in the format, but only some releases
    #: have them (the profile's ``base_types`` decides; 2.12 and older).
    Dimname = "Dimname"
    DimVector = "DimVector"
    float = "float"
    str = "str"
    bool = "bool"
    Layout = "Layout"
    Device = "Device"
    DeviceIndex = "DeviceIndex"
    Scalar = "Scalar"
    MemoryFormat = "MemoryFormat"
    QScheme = "QScheme"
    Storage = "Storage"
    Stream = "Stream"
    SymInt = "SymInt"
    SymBool = "SymBool"
    GraphModule = "GraphModule"


#: Spelling -> base type, for the parser and for did-you-mean hints.
BASE_TYPE_NAMES: dict[str, BaseTy] = {t.value: t for t in BaseTy}

#: Custom classes are spelled with this prefix before their qualified name.
CUSTOM_CLASS_PREFIX = "__torch__.torch.classes."


# Hashes cached (here and below): types are hashed with every argument, and
# hashing an enum member goes through a Python-level method.
#
# Each type also keeps its spelling, built once when it is made: the parser
# shares type objects, so there are a few thousand types per compile but
# ~25,000 prints of them (signature keys alone spell every argument).  Code
# that only needs the text reads ``spelling`` (a slot, no call); ``str()``
# stays the public way to spell a type.  Not compared, hashed or shown: it is
# a function of the other fields.
_SPELLING = attrs.field(init=False, eq=False, hash=False, repr=False)


@attrs.frozen(cache_hash=True)
class BaseType:
    name: BaseTy
    spelling: str = _SPELLING

    def __attrs_post_init__(self) -> None:
        # ``_value_``, not ``.value``: Enum's ``value`` is a descriptor, several times slower.
        object.__setattr__(self, "spelling", self.name._value_)

    def __str__(self) -> str:
        return self.spelling


@attrs.frozen(cache_hash=True)
class CustomClassType:
    class_name: str
    spelling: str = _SPELLING

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "spelling", CUSTOM_CLASS_PREFIX + self.class_name)

    def __str__(self) -> str:
        return self.spelling


@attrs.frozen(cache_hash=True)
class OptionalType:
    elem: Type
    spelling: str = _SPELLING

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "spelling", self.elem.spelling + "?")

    def __str__(self) -> str:
        return self.spelling


@attrs.frozen(cache_hash=True)
class ListType:
    elem: Type
    #: ``int[2]`` has size 2; ``int[]`` has none.  Size 0 prints as ``[]``.
    size: int | None = None
    spelling: str = _SPELLING

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "spelling", f"{self.elem.spelling}[{self.size or ''}]")

    def __str__(self) -> str:
        return self.spelling


Type = BaseType | CustomClassType | OptionalType | ListType


def base_of(ty: Type) -> BaseTy | None:
    """The base type under any optional/list wrappers (None for custom classes)."""
    while isinstance(ty, (OptionalType, ListType)):
        ty = ty.elem
    return ty.name if isinstance(ty, BaseType) else None


def is_like(ty: Type, base: BaseTy) -> bool:
    return base_of(ty) is base


def is_nullable(ty: Type) -> bool:
    """True for ``T?`` and for lists of optionals such as ``Tensor?[]``."""
    if isinstance(ty, OptionalType):
        return True
    if isinstance(ty, ListType):
        return is_nullable(ty.elem)
    return False


def list_like(ty: Type) -> ListType | None:
    """The list under an optional, if any: ``int[]?`` gives ``int[]``."""
    if isinstance(ty, OptionalType):
        return list_like(ty.elem)
    return ty if isinstance(ty, ListType) else None


TENSOR = BaseType(BaseTy.Tensor)
