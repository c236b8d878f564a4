"""The view of one ``THPVariable_<name>`` function and its method-table entry.

:func:`binding_view` turns an :class:`OperatorBinding` into a
:class:`BindingView`: the parser strings, one :class:`Case` per parser entry
(with the out= branch when an out= twin was merged in), the named-tuple types
it uses, and the ``__torch_function__`` hook.  binding_text.py prints it;
nothing there decides anything.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.cppmodel import cpp_string_literal
from schemac.backends.python.case_body import case_text
from schemac.backends.python.dispatch import CallMemo, DispatchCall, dispatch_call
from schemac.backends.python.operators import SIGNATURE_ERRORS, OperatorBinding, as_diagnostic
from schemac.backends.python.return_types import binding_typenames
from schemac.diagnostics import InputError
from schemac.ir.native import NativeFunction


@attrs.frozen
class Case:
    index: int
    call: DispatchCall
    #: The merged out= overload's call and the parser index of ``out``.
    out_call: DispatchCall | None = None
    out_index: int = -1

    def text(self, depth: int) -> str:
        """The case's statements indented by ``depth`` spaces (see case_body.py)."""
        return case_text(self.call, self.out_call, self.out_index, depth)


@attrs.frozen
class BindingView:
    name: str
    cpp_name: str
    method: bool
    takes_no_arguments: bool
    #: ``static PyTypeObject* NamedTuple = generated::get_max_structseq();`` parts.
    structseq_locals: tuple[tuple[str, str], ...]
    parser_strings: tuple[str, ...]
    traceable: bool
    max_arguments: int
    cases: tuple[Case, ...]
    qualified_module: str
    module_object: str

    @property
    def self_argument(self) -> str:
        return "self_" if self.method else "nullptr"

    @property
    def single_case(self) -> bool:
        return len(self.cases) == 1


def _string_literal(text: str) -> str:
    # Parser strings are nearly always plain printable ASCII; skip the
    # general escaper for them (it walks the text character by character).
    if (
        text.isascii()
        and text.isprintable()
        and '"' not in text
        and "\\" not in text
        and "??" not in text
    ):
        return f'"{text}"'
    return cpp_string_literal(text)


def binding_view(binding: OperatorBinding, memo: CallMemo | None = None) -> BindingView:
    try:
        return _binding_view(binding, CallMemo() if memo is None else memo)
    except SIGNATURE_ERRORS as error:
        raise InputError([as_diagnostic(binding.overloads[0].function, error)]) from None


def _binding_view(binding: OperatorBinding, memo: CallMemo) -> BindingView:
    typenames = binding_typenames([o.function for o in binding.overloads])
    names = {key: local for key, local, _ in typenames}
    cases = []
    for index, group in enumerate(binding.groups):
        call = dispatch_call(group.signature, group.base, names, memo)
        if group.out is None:
            cases.append(Case(index, call))
            continue
        out_call = dispatch_call(group.signature, group.out, names, memo)
        cases.append(Case(index, call, out_call, group.signature.output_index))
    return BindingView(
        name=binding.python_name,
        cpp_name=binding.cpp_name,
        method=binding.module.method,
        takes_no_arguments=binding.takes_no_arguments,
        structseq_locals=tuple((local, seq.getter) for _, local, seq in typenames),
        parser_strings=tuple(_string_literal(g.signature.text()) for g in binding.groups),
        # OperatorBinding.traceable, from the facts each overload's call needs anyway.
        # Every overload is asked (a list, not a short-circuiting generator), as
        # binding_facts_asked counts.
        traceable=all([memo.facts(o.function).traceable for o in binding.overloads]),
        max_arguments=binding.max_arguments,
        cases=tuple(cases),
        qualified_module=binding.module.qualified_name,
        module_object=binding.module.module_object,
    )


def method_table_entry(binding: OperatorBinding) -> str:
    """The ``PyMethodDef`` initialiser: ``{"add", castPyCFunctionWithKeywords(...), ...},``."""
    function = binding.cpp_name
    if binding.name.dunder:
        # Binary dunders must return NotImplemented, not raise, on a type mismatch.
        function = f"TypeError_to_NotImplemented_<{function}>"
    if binding.takes_no_arguments:
        flags = "METH_NOARGS" if binding.module.method else "METH_VARARGS | METH_KEYWORDS"
    else:
        function = f"castPyCFunctionWithKeywords({function})"
        flags = "METH_VARARGS | METH_KEYWORDS"
    if binding.module.static_methods:
        flags += " | METH_STATIC"
    return f"{{{_string_literal(binding.python_name)}, {function}, {flags}, nullptr}},"


def forward_declaration(binding: OperatorBinding) -> str | None:
    """Module functions are declared before the table that names them; methods need none."""
    if binding.module.method:
        return None
    params = "PyObject* self_, PyObject* args"
    if not binding.takes_no_arguments:
        params += ", PyObject* kwargs"
    return f"static PyObject * {binding.cpp_name}({params});"


def binding_facts_asked(binding: OperatorBinding) -> Iterator[NativeFunction]:
    """The functions whose facts :func:`binding_view` asks ``CallMemo.facts`` for, one per ask."""
    for group in binding.groups:
        yield group.base
        if group.out is not None:
            yield group.out
    for overload in binding.overloads:
        yield overload.function
