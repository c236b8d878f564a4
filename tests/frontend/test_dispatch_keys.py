"""The shortcut for plain ``dispatch:`` rows agrees with the checked reading.

``_plain_dispatch_keys`` takes a row of known, new, distinct keys written with
", " without the per-key checks of ``_checked_dispatch_keys``; whenever it
takes a row, the checked reading must give the same keys, mark the same keys
seen and report nothing.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schemac.diagnostics import DiagnosticSink
from schemac.frontend.entry_reader import EntryReader
from schemac.frontend.native_fields import _checked_dispatch_keys, _plain_dispatch_keys
from schemac.frontend.yaml_nodes import MappingNode, ScalarNode, parse_yaml_text

_KEYS = st.sampled_from(["CPU", "CUDA", "Meta", "SparseCPU", "CPUX", "cpu", "", " CUDA", "CPU "])
_SEPARATORS = st.sampled_from([", ", ",", " ,", ",  ", ", , "])


@given(
    st.lists(st.tuples(_KEYS, _SEPARATORS), min_size=1, max_size=4),
    st.sets(st.sampled_from(["CPU", "CUDA", "Meta"])),
)
def test_plain_rows_read_as_the_checked_reading_reads_them(
    parts: list[tuple[str, str]], already_seen: set[str]
) -> None:
    text = "".join(key + separator for key, separator in parts[:-1]) + parts[-1][0]
    doc, problems = parse_yaml_text(f"- dispatch:\n    {text!r}: kernel\n", "f.yaml")
    assert doc is not None and not problems and doc.root is not None
    entry = doc.root.value[0]
    assert isinstance(entry, MappingNode)
    sink = DiagnosticSink()
    reader = EntryReader("f.yaml", entry, sink, None, "entry")
    table = reader.mapping("dispatch")
    assert table is not None
    key_node = table.value[0][0]
    assert isinstance(key_node, ScalarNode)
    plain = _plain_dispatch_keys(key_node.value, already_seen)
    if plain is None:
        return
    seen = dict.fromkeys(already_seen, key_node)
    assert _checked_dispatch_keys(reader, key_node, key_node.value, seen) == plain
    assert set(seen) == already_seen | set(plain)
    assert not sink


def test_the_usual_rows_take_the_shortcut() -> None:
    assert _plain_dispatch_keys("CPU, CUDA", set()) == ["CPU", "CUDA"]
    assert _plain_dispatch_keys("CPU", set()) == ["CPU"]
    for text, seen in (("CPU, CPU", set()), ("CPU,CUDA", set()), ("CPU, CUDA", {"CUDA"})):
        assert _plain_dispatch_keys(text, seen) is None, text
