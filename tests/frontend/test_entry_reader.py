"""EntryReader's shortcuts give what the general code gives.

``field_spans`` writes :func:`span_of`'s one-line case out (Note in its
docstring); these check it against ``span_of`` for values of every shape:
plain, quoted, flow and block collections, block scalars, multi-line values.
"""

from __future__ import annotations

from schemac.diagnostics import DiagnosticSink, FieldSpans
from schemac.frontend.entry_reader import EntryReader
from schemac.frontend.native_fields import read_dispatch
from schemac.frontend.yaml_nodes import MappingNode, SequenceNode, parse_yaml_text, span_of

_TEXT = """\
- func: a(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU: a_cpu
    CUDA: a_cuda
  tags: [core, pointwise]
  python_module: 'nn'
  autogen:
  - a.out
  - a.other
  category_override: |
    dummy
    text
  structured_delegate: "a.out"
- func: >
    b(Tensor self)
    -> Tensor
  device_check: NoCheck
  cpp_no_default_args: [x,
    y]
- {func: c() -> (), tags: core}
"""


def _entries() -> list[MappingNode]:
    doc, problems = parse_yaml_text(_TEXT, "f.yaml")
    assert doc is not None and not problems
    assert isinstance(doc.root, SequenceNode)
    return [node for node in doc.root.value if isinstance(node, MappingNode)]


def test_field_spans_are_the_values_spans() -> None:
    shapes = 0
    for entry in _entries():
        reader = EntryReader("f.yaml", entry, DiagnosticSink(), None, "entry")
        expected = [(key.value, span_of("f.yaml", value)) for key, value in entry.value]
        spans = reader.field_spans()
        assert spans == FieldSpans(expected)
        assert list(spans) == expected
        shapes += sum(value.start_mark.line != value.end_mark.line for _, value in entry.value)
    assert shapes >= 4  # the multi-line cases were exercised


_DISPATCH = """\
- func: a(Tensor self) -> Tensor
  dispatch:
    CPU: a_cpu
    CUDA, Meta:   a_cuda
    'SparseCPU': "a_sparse"
    MPS: >
      a_mps
    XPU:
      a_xpu
"""


def test_dispatch_rows_span_their_key_and_kernel() -> None:
    doc, problems = parse_yaml_text(_DISPATCH, "f.yaml")
    assert doc is not None and not problems
    assert isinstance(doc.root, SequenceNode)
    entry = doc.root.value[0]
    reader = EntryReader("f.yaml", entry, DiagnosticSink(), None, "entry")
    rows = read_dispatch(reader)
    table = reader.mapping("dispatch")
    assert rows is not None and table is not None and len(rows) == len(table.value) == 5
    for row, (key, value) in zip(rows, table.value, strict=True):
        assert row.span == span_of("f.yaml", key)
        assert row.kernel_span == span_of("f.yaml", value)
    assert rows[1].span.column == 5 and rows[1].kernel_span.column == 19
