"""The C++ of one parser entry: the statements of one ``case`` of a binding.

A binding (binding_text.py) switches on the parser entry that matched and
runs that entry's statements: read the arguments, build the TensorOptions,
check ``out``, then call the dispatch lambda (Note [Dispatch lambdas] in
dispatch.py).  These statements are printed here, from a :class:`Case` view,
indented by their nesting depth in the binding.  They used to be nested
template defs; printing ~2,800 bodies through Mako ``capture`` and a
re-indenting filter cost more than building the lines.
"""

from __future__ import annotations

from schemac.backends.python.dispatch import DispatchCall


def _block(lines: list[str], pad: str) -> str:
    """``lines`` (none of them blank) indented by ``pad``, each ending with a newline."""
    # One join instead of one formatted string per line: ~45,000 lines per compile.
    return pad + ("\n" + pad).join(lines) + "\n"


def _setup_lines(c: DispatchCall) -> list[str]:
    """From the schema comment to the last statement before the lambda."""
    lines = [c.schema_comment]
    lines.extend(f"auto {name} = {expr};" for name, expr in c.locals)
    options = c.options
    if options is not None:
        lines += [
            "const auto options = TensorOptions()",
            f"    .dtype({options.dtype})",
            f"    .device({options.device})",
            f"    .layout({options.layout})",
            f"    .requires_grad({options.requires_grad})",
            f"    .pinned_memory({options.pin_memory});",
        ]
        if options.method and options.checks_dispatch:
            # Tensors that never dispatch (meta, fake) need no device.
            lines += [
                "if (!at::impl::tensor_has_dispatch(self)) {",
                "  torch::utils::maybe_initialize_device(options);",
                "}",
            ]
        else:
            lines.append("torch::utils::maybe_initialize_device(options);")
    check = c.out_check
    if check is not None:
        lines += [
            f"check_out_type_matches({check.out}, {check.dtype},",
            f"                       {check.dtype_is_none}, {check.layout},",
            f"                       {check.device}, {check.device_is_none});",
        ]
    return lines


def _call_lines(c: DispatchCall) -> list[str]:
    """The dispatch lambda, its call and the ``return``."""
    lines = [
        f"auto {c.lambda_name} = []({c.lambda_params}) -> {c.lambda_return} {{",
        "  pybind11::gil_scoped_release no_gil;",
        f"  {'' if c.returns_void else 'return '}{c.callee}({c.callee_args});",
        "};",
    ]
    call = f"{c.lambda_name}({c.lambda_args}){c.result_suffix}"
    if not c.returns_void:
        lines.append(f"return wrap({c.structseq_prefix}{call});")
    elif c.returns_first_argument:
        # In-place _foreach ops return their first argument, the list itself.
        lines += [
            f"{call};",
            "PyObject* self_tensorlist = _r.args[0];",
            "Py_INCREF(self_tensorlist);",
            "return self_tensorlist;",
        ]
    else:
        lines += [f"{call};", "Py_RETURN_NONE;"]
    return lines


def call_text(c: DispatchCall, pad: str) -> str:
    """One overload's statements, from its comment to its ``return``, indented by ``pad``."""
    gap = "\n" if c.gap_before_lambda else ""  # a blank line stays empty
    return _block(_setup_lines(c), pad) + gap + _block(_call_lines(c), pad)


def case_text(call: DispatchCall, out_call: DispatchCall | None, out_index: int, depth: int) -> str:
    """A parser entry's statements indented by ``depth`` spaces.

    With a merged out= twin, the entry branches on whether ``out`` was given.
    """
    pad = " " * depth
    if out_call is None:
        return call_text(call, pad)
    inner = pad + "  "
    return "".join(
        (
            f"{pad}if (_r.isNone({out_index})) {{\n",
            call_text(call, inner),
            f"{pad}}} else {{\n",
            call_text(out_call, inner),
            f"{pad}}}\n",
        )
    )
