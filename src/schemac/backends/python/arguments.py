"""One parameter of a PythonArgParser signature.

The parser (torch/csrc/utils/python_arg_parser.cpp) has its own type
vocabulary: C++-flavoured names (``int64_t``, ``IntArrayRef[2]``,
``c10::string_view``), ``?`` for optionals and ``=default`` in Python
spelling.  :func:`parser_type` is the one place a schema type becomes a parser
type; :class:`PythonArgument` carries the schema type alongside so the binding
code can pick the matching unpack method later.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from schemac.backends.lazy import cached
from schemac.backends.python.defaults import spelled_default
from schemac.backends.python.errors import UnsupportedPythonType
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

#: Base types whose parser spelling differs from the schema's.
_RENAMED_BASES: dict[BaseTy, str] = {
    BaseTy.int: "int64_t",
    BaseTy.float: "double",
    BaseTy.str: "c10::string_view",
}

#: Base types the parser spells as the schema does.
_SAME_NAME_BASES = frozenset(
    {
        BaseTy.Tensor,
        BaseTy.bool,
        BaseTy.QScheme,
        BaseTy.Scalar,
        BaseTy.ScalarType,
        BaseTy.Generator,
        BaseTy.Storage,
        BaseTy.Layout,
        BaseTy.Device,
        BaseTy.DeviceIndex,
        BaseTy.MemoryFormat,
        BaseTy.Stream,
        BaseTy.SymInt,
        BaseTy.Dimname,  # releases with named tensors (2.12 and older)
    }
)

#: List element spelling -> parser list name (sizes are appended as ``[N]``).
_LIST_NAMES: dict[str, str] = {
    "int": "IntArrayRef",
    "SymInt": "SymIntArrayRef",
    "Tensor": "TensorList",
    "Scalar": "ScalarList",
    "Dimname": "DimnameList",
}


def parser_type(ty: Type) -> str:
    if isinstance(ty, BaseType):
        if ty.name in _RENAMED_BASES:
            return _RENAMED_BASES[ty.name]
        if ty.name in _SAME_NAME_BASES:
            return ty.name.value
        raise UnsupportedPythonType(str(ty))
    if isinstance(ty, OptionalType):
        return parser_type(ty.elem) + "?"
    if isinstance(ty, ListType):
        elem = str(ty.elem)
        if elem == "bool":
            if ty.size is None:
                raise UnsupportedPythonType(str(ty))
            return f"::std::array<bool,{ty.size}>"
        if elem in _LIST_NAMES:
            size = f"[{ty.size}]" if ty.size is not None else ""
            return _LIST_NAMES[elem] + size
        if elem == "Tensor?":
            return "c10::List<::std::optional<Tensor>>"
        return f"ArrayRef<{parser_type(ty.elem)}>"
    # Custom classes (__torch__.torch.classes.*) have no parser form.
    raise UnsupportedPythonType(str(ty))


def is_tensor_like(ty: Type) -> bool:
    """Tensor, Tensor?, Tensor[] and Tensor?[]: what counts as "a tensor input"."""
    while isinstance(ty, (OptionalType, ListType)):
        ty = ty.elem
    # Same as ``ty == BaseType(BaseTy.Tensor)``, without attrs' field-by-field __eq__.
    return isinstance(ty, BaseType) and ty.name is BaseTy.Tensor


# Not slotted: ``_formals`` and ``type_text`` are computed once (see
# backends/lazy.py).  The hash is cached because per-compile memos
# (dispatch.CallMemo) are keyed on arguments.
@attrs.frozen(slots=False, cache_hash=True)
class PythonArgument:
    #: Note [Fragment reuse]: every ``eq`` field (set below the class), so that a
    #: fingerprint encodes a shared argument once per run, not per signature.
    reuse_fields: ClassVar[tuple[str, ...]]

    name: str
    type: Type
    #: The default as PyTorch's generator holds it (see :mod:`.defaults`), or None.
    default: str | None = None
    #: C++ expression the parser substitutes when the argument is omitted
    #: (``torch::tensors::get_default_device()``); only TensorOptions fields have one.
    default_init: str | None = None
    #: For the merged ``out`` argument: the schema's out arguments it stands for.
    outputs: tuple[PythonArgument, ...] = ()

    def formal(self, *, method: bool) -> str:
        """``Tensor input``, ``int64_t dim=0``: this argument in a parser signature."""
        # Functions call their first tensor "input" (torch.add(input, other));
        # methods never name self.
        return self._formals[0 if method else 1]

    # An argument appears in several signature texts (with and without out=,
    # function and method forms); it is frozen, so it is spelled once.
    @cached
    def _formals(self) -> tuple[str, str]:
        type_text = parser_type(self.type)
        suffix = "" if self.default is None else f"={spelled_default(self.default)}"
        as_method = f"{type_text} {self.name}{suffix}"
        if self.name == "self" and type_text == "Tensor":
            return as_method, f"{type_text} input{suffix}"
        return as_method, as_method

    @cached
    def type_text(self) -> str:
        """The schema type as written (``int[]``); overload ordering compares these."""
        return str(self.type)


PythonArgument.reuse_fields = tuple(f.name for f in attrs.fields(PythonArgument) if f.eq)


def out_argument(outputs: tuple[PythonArgument, ...]) -> PythonArgument | None:
    """The one ``out=`` parameter that stands for all out arguments of a schema.

    A single out argument keeps its name and type; several become one
    ``Tensor[N] out`` (a tuple of tensors in Python).
    """
    if not outputs:
        return None
    if len(outputs) == 1:
        only = outputs[0]
        return PythonArgument(only.name, only.type, "None", None, outputs)
    if not all(is_tensor_like(a.type) for a in outputs):
        raise UnsupportedPythonType("several non-Tensor out arguments")
    return PythonArgument(
        "out", ListType(BaseType(BaseTy.Tensor), len(outputs)), "None", None, outputs
    )
