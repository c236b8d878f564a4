"""Passing one view's parameters to a function of another view.

A registration file is mostly calls across views: the ``at::cpu::add_out``
function calls the registered wrapper (C++ API -> dispatcher), the wrapper
calls the kernel (dispatcher -> native) or a structured class's ``meta()`` and
``impl()`` (dispatcher -> structured).  :func:`call_arguments` builds the
argument expressions of such a call: it matches parameters by the schema
argument they come from (``Param.source``), never by position, and converts
between the C++ spellings of one schema type with the table below.

The table is closed: a pair of spellings it does not know is passed through
unchanged only when the types are the same or differ by reference/constness,
otherwise :class:`TranslationError` is raised (a schemac bug, since every
pair the views can produce is listed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.cpp_api import OPTIONS_SOURCE
from schemac.backends.aten.signatures.table import ViewTable

#: The scattered TensorOptions fields read out of a gathered ``options``.
_FROM_OPTIONS = {
    "dtype": "c10::optTypeMetaToScalarType({o}.dtype_opt())",
    "layout": "{o}.layout_opt()",
    "device": "{o}.device_opt()",
    "pin_memory": "{o}.pinned_memory_opt()",
}
_OPTIONS_FIELDS = frozenset(_FROM_OPTIONS)

#: (source spelling, target spelling) -> expression over ``{n}``.
_CONVERSIONS: dict[tuple[str, str], str] = {
    # symbolic -> concrete (a kernel that does not take SymInt)
    ("c10::SymInt", "int64_t"): "{n}.guard_int(__FILE__, __LINE__)",
    ("c10::SymIntArrayRef", "at::IntArrayRef"): "C10_AS_INTARRAYREF_SLOW({n})",
    (
        "::std::optional<c10::SymInt>",
        "::std::optional<int64_t>",
    ): "{n}.has_value() ? ::std::make_optional({n}->guard_int(__FILE__, __LINE__))"
    " : ::std::nullopt",
    (
        "at::OptionalSymIntArrayRef",
        "at::OptionalIntArrayRef",
    ): "{n}.has_value() ? ::std::make_optional(C10_AS_INTARRAYREF_SLOW(*{n})) : ::std::nullopt",
    # concrete -> symbolic (the plain C++ API calling a symbolic wrapper)
    ("int64_t", "c10::SymInt"): "{n}",
    ("at::IntArrayRef", "c10::SymIntArrayRef"): "c10::fromIntArrayRefSlow({n})",
    (
        "::std::optional<int64_t>",
        "::std::optional<c10::SymInt>",
    ): "{n}.has_value() ? ::std::make_optional(c10::SymInt(*{n})) : ::std::nullopt",
    (
        "at::OptionalIntArrayRef",
        "at::OptionalSymIntArrayRef",
    ): "{n}.has_value() ? ::std::make_optional(c10::fromIntArrayRefSlow(*{n})) : ::std::nullopt",
    # owning optionals -> the non-owning references structured kernels take
    (
        "::std::optional<at::Tensor>",
        "at::OptionalTensorRef",
    ): "(({n}.has_value() && (*{n}).defined()) ? at::OptionalTensorRef(*{n})"
    " : at::OptionalTensorRef())",
    (
        "::std::optional<at::Scalar>",
        "at::OptionalScalarRef",
    ): "({n}.has_value() ? at::OptionalScalarRef(&({n}.value())) : at::OptionalScalarRef())",
    ("at::TensorList", "at::ITensorListRef"): "{n}",
    # a plain value where an optional is expected (implicit in C++)
    ("at::ScalarType", "::std::optional<at::ScalarType>"): "{n}",
    ("at::Layout", "::std::optional<at::Layout>"): "{n}",
    ("at::Device", "::std::optional<at::Device>"): "{n}",
    (
        "c10::List<::std::optional<at::Tensor>>",
        "at::IOptTensorListRef",
    ): "at::IOptTensorListRef({n})",
}


class TranslationError(Exception):
    """Two views disagree in a way no conversion bridges (a schemac bug)."""


#: Spellings of one C++ type (typedefs).
_ALIASES = {
    "at::ArrayRef<int64_t>": "at::IntArrayRef",
    "at::ArrayRef<c10::SymInt>": "c10::SymIntArrayRef",
}


def _value(ty: C.CType) -> str:
    spelling = str(C.strip_reference(ty))
    return _ALIASES.get(spelling, spelling)


def convert(expr: str, source: C.CType, target: C.CType) -> str:
    """``expr`` of type ``source`` as a value of type ``target``."""
    if source is target:  # a shared view type handed on unchanged (~30% of calls)
        return expr
    src, dst = _value(source), _value(target)
    if src == dst:
        return expr
    template = _CONVERSIONS.get((src, dst))
    if template is None:
        raise TranslationError(f"cannot pass '{source}' as '{target}' ({expr})")
    return template.format(n=expr)


def call_arguments(
    source: Sequence[C.Param],
    target: Sequence[C.Param],
    *,
    extra: Mapping[str, tuple[str, C.CType]] | None = None,
) -> list[str]:
    """The expressions that call a ``target``-view function from ``source``'s scope.

    ``extra`` adds values to the scope by schema name (an output of a
    structured class, a field of the precompute struct); they take
    precedence over parameters of the same name.
    """
    scope: dict[str, tuple[str, C.CType]] = {p.source or p.name: (p.name, p.type) for p in source}
    options = scope.get(OPTIONS_SOURCE)
    scope.update(extra or {})
    exprs: list[str] = []
    for param in target:
        key = param.source or param.name
        if key == "memory_format" and options is not None and key in scope:
            # A gathered ``options`` may carry a memory format too; the two must agree.
            exprs.append(_memory_format(options[0], scope))
        elif key in scope:
            name, ty = scope[key]
            exprs.append(convert(name, ty, param.type))
        elif key == OPTIONS_SOURCE:
            exprs.append(_gather_options(scope))
        elif key in _OPTIONS_FIELDS and options is not None:
            exprs.append(_FROM_OPTIONS[key].format(o=options[0]))
        else:
            raise TranslationError(
                f"no value for parameter '{param.name}' in scope {sorted(scope)}"
            )
    return exprs


def shared_call_arguments(
    views: ViewTable, source: Sequence[C.Param], target: Sequence[C.Param]
) -> list[str]:
    """:func:`call_arguments` without ``extra``, once per run for each pair.

    The views hand out the same parameter tuples to every emitter, and many
    print the same call: ``at::add`` in ``ops/add.h``, ``at::redispatch::add``
    and every key's ``at::cpu::add`` pass the C++ API's parameters on to the
    dispatcher's.  The list is shared: callers must not modify it.
    """
    return views.derived("call_arguments", (source, target), lambda: call_arguments(source, target))


def _memory_format(options: str, scope: Mapping[str, tuple[str, C.CType]]) -> str:
    memory_format = scope["memory_format"][0]
    return f"c10::impl::check_tensor_options_and_extract_memory_format({options}, {memory_format})"


def _gather_options(scope: Mapping[str, tuple[str, C.CType]]) -> str:
    names = [scope[field][0] for field in ("dtype", "layout", "device", "pin_memory")]
    return (
        f"at::TensorOptions().dtype({names[0]}).layout({names[1]})"
        f".device({names[2]}).pinned_memory({names[3]})"
    )


def joined(exprs: Iterable[str]) -> str:
    return ", ".join(exprs)
