"""An out-of-tree backend's YAML -> :class:`~schemac.ir.external_backend.ExternalBackend`.

torchgen reads this file with ``yaml.load`` and checks it with ``assert``-like
raises, one at a time and without positions.  Here every problem of the
file's *shape* is collected with its span: a missing ``backend`` or
``cpp_namespace``, a key that does not exist (with a did-you-mean), a value
of the wrong type, a name that cannot become C++, an operator listed twice,
a dispatch key the dispatcher does not know, and the lazy-tensor keys
(``full_codegen``, ``ir_gen``, ``non_native``) that schemac does not support
yet.  Problems that need native_functions.yaml (an unknown operator, a
family split between ``supported`` and ``autograd``) are checked where the
module is known (``schemac.backends.backend_stubs.bind``).

The loader never raises: it returns what it could read and the diagnostics,
so a caller can add the module-level checks and report everything at once.
"""

from __future__ import annotations

import re
from pathlib import Path

from schemac.diagnostics import Diagnostic, DiagnosticSink, Span, did_you_mean
from schemac.frontend.entry_reader import EntryReader
from schemac.frontend.yaml_nodes import (
    MappingNode,
    ScalarNode,
    SequenceNode,
    read_yaml,
    span_of,
)
from schemac.ir.dispatch import KNOWN_DISPATCH_KEYS
from schemac.ir.external_backend import BackendOp, ExternalBackend

_LISTS = ("supported", "autograd", "symint", "structured")
_FLAGS = ("use_out_as_primary", "device_guard")
#: Lazy-tensor codegen input (torchgen's gen_lazy_tensor), refused for now.
UNSUPPORTED_KEYS = ("full_codegen", "ir_gen", "non_native")
KNOWN_KEYS = (
    "backend",
    "cpp_namespace",
    "class_name",
    "extra_headers",
    *_LISTS,
    *_FLAGS,
    *UNSUPPORTED_KEYS,
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: ``name`` or ``name.overload``, as native_functions.yaml spells operators.
_OPERATOR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?\Z")
_HEADER = re.compile(r"[A-Za-z0-9_./+-]+\Z")
_WHAT = "backend YAML"


def read_backend_yaml(
    path: str | Path,
) -> tuple[ExternalBackend | None, tuple[Diagnostic, ...]]:
    """What the file says, and every problem of its shape (both may be present)."""
    doc, problems = read_yaml(path)
    sink = DiagnosticSink()
    sink.extend(problems)
    if doc is None:
        return None, sink.diagnostics
    file = doc.file
    if doc.root is None or not isinstance(doc.root, MappingNode):
        where = Span.point(file, 1, 1) if doc.root is None else span_of(file, doc.root)
        sink.error(
            where,
            "a backend YAML must be a mapping of keys such as 'backend:' and 'supported:'",
            "start with 'backend: PrivateUse1' and 'cpp_namespace: my_device'",
        )
        return None, sink.diagnostics
    reader = EntryReader(file, doc.root, sink, KNOWN_KEYS, _WHAT)
    for key in UNSUPPORTED_KEYS:
        if key in reader:
            sink.error(
                reader.key_span(key),
                f"'{key}' (lazy-tensor IR codegen) is not supported yet",
                "remove it and generate the lazy-tensor IR with torchgen's gen_lazy_tensor",
            )
    backend = _backend_key(reader, sink)
    namespace = _namespace(reader, sink)
    class_name = _class_name(reader, sink)
    lists = {key: _operator_list(reader, key, sink) for key in _LISTS}
    _report_repeats(lists, sink)
    autograd_span = reader.key_span("autograd") if "autograd" in reader else reader.entry_span
    autograd_key = f"Autograd{backend}"
    if backend is not None and lists["autograd"] and autograd_key not in KNOWN_DISPATCH_KEYS:
        sink.error(
            autograd_span,
            f"'autograd' needs the dispatch key 'Autograd{backend}', which does not exist",
            "only backends with an Autograd key (XLA, PrivateUse1, ...) may override autograd",
        )
    if backend is None or namespace is None:
        return None, sink.diagnostics
    spec = ExternalBackend(
        backend=backend,
        cpp_namespace=namespace,
        file=file,
        class_name=class_name,
        supported=lists["supported"],
        autograd=lists["autograd"],
        symint=lists["symint"],
        structured=lists["structured"],
        use_out_as_primary=reader.boolean("use_out_as_primary", False),
        device_guard=reader.boolean("device_guard", False),
        extra_headers=_headers(reader, sink),
        backend_span=reader.value_span("backend"),
        class_name_span=reader.value_span("class_name"),
        autograd_span=autograd_span,
    )
    return spec, sink.diagnostics


def _required_string(
    reader: EntryReader, key: str, example: str, sink: DiagnosticSink
) -> str | None:
    if key not in reader:
        sink.error(
            Span.point(reader.file, 1, 1),
            f"the backend YAML has no '{key}'",
            f"add a line '{key}: {example}'",
        )
        return None
    return reader.string(key)


def _backend_key(reader: EntryReader, sink: DiagnosticSink) -> str | None:
    backend = _required_string(reader, "backend", "PrivateUse1", sink)
    if backend is None:
        return None
    if backend not in KNOWN_DISPATCH_KEYS:
        sink.error(
            reader.value_span("backend"),
            f"'backend' must be a dispatch key, and '{backend}' is not one",
            did_you_mean(backend, KNOWN_DISPATCH_KEYS)
            or "out-of-tree devices use PrivateUse1 (renamed in Python)",
        )
        return None
    return backend


def _namespace(reader: EntryReader, sink: DiagnosticSink) -> str | None:
    namespace = _required_string(reader, "cpp_namespace", "my_device", sink)
    if namespace is None:
        return None
    parts = namespace.split("::")
    if not all(_IDENTIFIER.match(part) for part in parts):
        sink.error(
            reader.value_span("cpp_namespace"),
            f"'cpp_namespace' must be a C++ namespace such as 'a::b', got '{namespace}'",
            "use identifiers separated by '::'",
        )
        return None
    return namespace


def _class_name(reader: EntryReader, sink: DiagnosticSink) -> str | None:
    name = reader.string("class_name")
    if name is not None and not _IDENTIFIER.match(name):
        sink.error(
            reader.value_span("class_name"),
            f"'class_name' must be a C++ identifier, got '{name}'",
            "the kernels are declared as static members of this class",
        )
        return None
    return name


def _operator_list(reader: EntryReader, key: str, sink: DiagnosticSink) -> list[BackendOp]:
    node = reader.node_of(key)
    if node is None or (isinstance(node, ScalarNode) and node.value in ("", "~", "null")):
        return []  # 'supported:' with nothing after it means an empty list, as in torchgen
    if not isinstance(node, SequenceNode):
        reader.wrong_type(
            node,
            f"a list of operator names for '{key}'",
            "write one operator a line, as '- add.Tensor', or '[abs, add.Tensor]'",
        )
        return []
    ops = []
    for text, item in reader.string_list(key):
        span = reader.span(item)
        if not _OPERATOR.match(text):
            sink.error(
                span,
                f"'{text}' in '{key}' is not an operator name",
                "write 'name' or 'name.overload' as in native_functions.yaml, e.g. 'add.Tensor'",
            )
            continue
        ops.append(BackendOp(text, span))
    return ops


def _report_repeats(lists: dict[str, list[BackendOp]], sink: DiagnosticSink) -> None:
    """An operator listed twice in one list, or in both ``supported`` and ``autograd``."""
    for key, ops in lists.items():
        first: dict[str, BackendOp] = {}
        for op in ops:
            if op.name in first:
                sink.error(
                    op.span,
                    f"'{op.name}' is listed twice in '{key}'",
                    f"the first is on line {first[op.name].span.line}; remove one",
                )
            else:
                first.setdefault(op.name, op)
    forward = {op.name: op for op in lists["supported"]}
    for op in lists["autograd"]:
        if op.name in forward:
            sink.error(
                op.span,
                f"'{op.name}' is listed in both 'supported' and 'autograd'",
                f"'supported' lists it on line {forward[op.name].span.line}: an operator "
                "registers either its kernel or its autograd kernel, not both",
            )


def _headers(reader: EntryReader, sink: DiagnosticSink) -> tuple[str, ...]:
    headers = []
    for text, item in reader.string_list("extra_headers", allow_single=True):
        if not _HEADER.match(text) or text.startswith(("/", "-")) or ".." in text.split("/"):
            sink.error(
                reader.span(item),
                f"'{text}' is not a header path schemac can include",
                "write a relative path such as 'my_device/Guard.h'",
            )
            continue
        headers.append(text)
    return tuple(headers)
