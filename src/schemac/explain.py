"""``schemac explain OP``: everything the compiler knows and makes of one operator.

For each function the name selects (``add.Tensor``, or ``add`` for every
overload): where it is defined, its resolved dispatch table, its variant group
and view group, its derivative entry and backward node, its signature in each
C++ view and in Python, and the generated files that mention it with the
symbols they mention it by.  It reads the resolved module (after every pass)
and the signature views, so it sits above the layers, beside
:mod:`schemac.compile_plan`; the CLI only loads and prints.

The files are searched for the operator's own identifiers: the ``at::_ops``
struct (``add_Tensor``) and every identifier ending in ``_add_Tensor``
(``wrapper_CPU_add_Tensor``), its quoted name (``"add.Tensor"``), its
backward node (``AddBackward0``) and, for per-operator headers, the file name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from schemac.backends.aten.signatures import (
    cpp_signature_group,
    dispatcher_signature,
    native_signature,
    structured_impl,
    structured_meta,
)
from schemac.backends.aten.signatures.naming import root_name, unambiguous_name
from schemac.backends.output.commit import read_manifest
from schemac.backends.output.files import GeneratedFile
from schemac.backends.python.signatures import python_signature
from schemac.diagnostics import Diagnostic, InputError, Span
from schemac.ir.groups import VariantGroup, ViewGroup
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.resolved_printer import function_data

JsonObject = dict[str, Any]


def _where(span: Span) -> str | None:
    return f"{span.file}:{span.line}" if span.file and span.line else None


def matching_functions(module: Module, name: str) -> tuple[NativeFunction, ...]:
    """The functions ``name`` selects; an :class:`InputError` naming close ones if none."""
    found = tuple(f for f in module.functions if name in (str(f.name), str(f.name.name)))
    if found:
        return found
    close = sorted(str(f.name) for f in module.functions if str(f.name.name).startswith(name))
    hint = f"did you mean {', '.join(close[:5])}?" if close else "see 'schemac dump-ir'"
    raise InputError([Diagnostic(Span.point("<explain>", 0, 0), f"no operator {name!r}", hint)])


def _group(module: Module, fn: NativeFunction) -> VariantGroup | None:
    return next((g for g in module.groups if fn.name in set(g.members())), None)


def _view_group(module: Module, fn: NativeFunction) -> ViewGroup | None:
    return next((g for g in module.view_groups if fn.name in set(g.members())), None)


def _signatures(module: Module, fn: NativeFunction, group: VariantGroup | None) -> JsonObject:
    cpp = cpp_signature_group(fn)
    resolution = module.resolutions.get(fn.name)
    kernels = sorted({k.name for k in resolution.dispatch.values()}) if resolution else []
    data: JsonObject = {
        "cpp_api": [sig.decl() for sig in cpp.all()],
        "dispatcher": dispatcher_signature(fn).decl(f"at::_ops::{unambiguous_name(fn.func)}::call"),
        "native": [native_signature(fn, kernel=kernel).decl() for kernel in kernels],
        "structured": None,
        "python": [],
    }
    if group is not None and group.structured:
        out = module.find_function(group.out)
        functional = module.find_function(group.functional)
        if out is not None and functional is not None:
            meta = structured_meta(functional.func, out)
            impls = sorted({k.name for k in (module.resolutions[out.name].dispatch.values())})
            data["structured"] = {
                "meta": meta.meta_func_defn(),
                "impl": [structured_impl(meta, out, k).impl_func_defn() for k in impls],
            }
    for method in (False, True):
        if (Variant.method if method else Variant.function) not in fn.variants:
            continue
        try:
            sig = python_signature(fn.func, category_override=None, method=method)
        except Exception:  # a name Python bindings never bind (reserved argument names)
            continue
        data["python"].append(("Tensor." if method else "torch.") + sig.text())
    return data


def _derivatives(module: Module, fn: NativeFunction) -> JsonObject | None:
    entry = module.autograd.for_function(fn.name)
    if entry is None:
        return None
    return {
        "exact_match": entry.exact_match,
        "entries": [
            {
                "dispatch_key": info.dispatch_key,
                "defined_at": _where(info.span),
                "backward_node": info.node,
                "formulas": {", ".join(d.var_names): d.original_formula for d in info.derivatives},
            }
            for info in entry.infos
        ],
    }


def _appearances(
    module: Module, fn: NativeFunction, nodes: Sequence[str], files: Iterable[GeneratedFile]
) -> dict[str, list[str]]:
    struct = unambiguous_name(fn.func)
    # ``_foreach_add_Tensor`` ends in ``_add_Tensor`` but is another operator's.
    longer = tuple(
        name
        for name in {unambiguous_name(f.func) for f in module.functions}
        if name != struct and name.endswith("_" + struct)
    )
    words = [rf"\b(?:\w*_)?{re.escape(struct)}\b", re.escape(f'"{fn.name}"')]
    words += [rf"\b{re.escape(node)}\b" for node in nodes]
    pattern = re.compile("|".join(words))
    own_header = f"ATen/ops/{root_name(fn.func)}"
    found: dict[str, list[str]] = {}
    for file in files:
        symbols = sorted({s for s in pattern.findall(file.text) if not s.endswith(longer)})
        if symbols or file.path.startswith((f"{own_header}.h", f"{own_header}_")):
            found[file.path] = symbols
    return found


def explain_function(
    module: Module, fn: NativeFunction, files: Iterable[GeneratedFile] | None
) -> JsonObject:
    group, view_group = _group(module, fn), _view_group(module, fn)
    derivatives = _derivatives(module, fn)
    nodes = [] if derivatives is None else [e["backward_node"] for e in derivatives["entries"]]
    data = function_data(module, fn)
    data["defined_at"] = _where(fn.span)
    data["group"] = (
        None
        if group is None
        else {
            role: None if name is None else str(name)
            for role, name in attrs.asdict(group, recurse=False).items()
            if role != "structured"
        }
        | {"structured": group.structured}
    )
    data["view_group"] = (
        None
        if view_group is None
        else {
            role: None if name is None else str(name)
            for role, name in attrs.asdict(view_group, recurse=False).items()
        }
    )
    data["derivatives"] = derivatives
    data["signatures"] = _signatures(module, fn, group)
    named = [n for n in nodes if n]
    data["files"] = None if files is None else _appearances(module, fn, named, files)
    return data


def files_in(out_dir: Path) -> list[GeneratedFile]:
    """The files of an earlier compile into ``out_dir`` (its manifest says which)."""
    found = []
    for path, target in sorted(read_manifest(out_dir).items()):
        try:
            text = (out_dir / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found.append(GeneratedFile(path, text, target))
    return found


def explain(
    module: Module, name: str, files: Sequence[GeneratedFile] | None = None
) -> list[JsonObject]:
    """One record per function ``name`` selects (see the module docstring)."""
    return [explain_function(module, fn, files) for fn in matching_functions(module, name)]


def to_json(records: list[JsonObject]) -> str:
    return json.dumps(records, indent=2)


def to_text(records: list[JsonObject]) -> str:
    lines: list[str] = []
    for record in records:
        lines.append(f"{record['namespace']}::{record['schema']}")
        lines.append(f"  defined at: {record['defined_at'] or '(synthesised)'}")
        if record["generated"]:
            lines.append("  generated: yes (autogen)")
        table = ", ".join(f"{k}: {v}" for k, v in record["dispatch"].items()) or "(none)"
        lines.append(f"  dispatch: {table}")
        for key in ("group", "view_group"):
            if record[key]:
                roles = ", ".join(f"{r}={n}" for r, n in record[key].items() if n)
                lines.append(f"  {key.replace('_', ' ')}: {roles}")
        derivatives = record["derivatives"]
        if derivatives:
            for entry in derivatives["entries"]:
                lines.append(
                    f"  derivative ({entry['dispatch_key']}): {entry['defined_at']}, "
                    f"node {entry['backward_node']}"
                    + ("" if derivatives["exact_match"] else " (borrowed)")
                )
                lines.extend(f"    {v}: {f}" for v, f in entry["formulas"].items())
        sigs = record["signatures"]
        lines.append("  signatures:")
        lines.extend(f"    C++ API:    {s}" for s in sigs["cpp_api"])
        lines.append(f"    dispatcher: {sigs['dispatcher']}")
        lines.extend(f"    native:     {s}" for s in sigs["native"])
        if sigs["structured"]:
            lines.append(f"    meta:       {sigs['structured']['meta']}")
            lines.extend(f"    impl:       {s}" for s in sigs["structured"]["impl"])
        lines.extend(f"    Python:     {s}" for s in sigs["python"])
        if record["files"] is not None:
            lines.append(f"  files ({len(record['files'])}):")
            for path, symbols in record["files"].items():
                lines.append(f"    {path}: {', '.join(symbols)}")
        lines.append("")
    return "\n".join(lines)
