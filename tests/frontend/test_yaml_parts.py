"""Note [Lists composed in parts]: a list composed in parts gives the nodes a whole
composition gives (kinds, tags, values, styles, lines and columns, source keys), or a
part fails and the loader composes the whole text, reporting what a whole load reports."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from schemac.diagnostics import InputError
from schemac.frontend import yaml_parts
from schemac.frontend.loader import load_module
from schemac.frontend.source_keys import entry_source_key
from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.frontend.yaml_nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    YamlDocument,
    parse_yaml_text,
)
from schemac.frontend.yaml_parts import PartFailed, YamlParts

ROOT = Path(__file__).resolve().parents[2]


def _shape(node: Node) -> object:
    head = (
        type(node).__name__,
        node.tag,
        node.start_mark.line,
        node.start_mark.column,
        node.end_mark.line,
        node.end_mark.column,
        getattr(node, "style", None),
        getattr(node, "flow_style", None),
    )
    if isinstance(node, ScalarNode):
        return (*head, node.value)
    if isinstance(node, SequenceNode):
        return (*head, [_shape(item) for item in node.value])
    return (*head, [(_shape(k), _shape(v)) for k, v in node.value])


def _items(docs: list[YamlDocument]) -> list[tuple[object, str | None]]:
    """Each top-level item's shape and, for a mapping, its source key."""
    return [
        (_shape(item), entry_source_key(doc, item) if isinstance(item, MappingNode) else None)
        for doc in docs
        for item in (doc.root.value if doc.root is not None else [])
    ]


def _same_or_failed(text: str) -> bool:
    """True if the parts compose to the whole's items, False if a part failed
    (then the whole is what the loader uses); asserts otherwise."""
    parts = YamlParts.of(text, "f.yaml")
    if parts is None:
        return False
    try:
        docs = list(parts.documents())
    except PartFailed:
        return False
    whole, problems = parse_yaml_text(text, "f.yaml")
    assert not problems and whole is not None, text
    assert isinstance(whole.root, SequenceNode) and not whole.root.flow_style, text
    assert _items(docs) == _items([whole]), text
    return True


@pytest.mark.parametrize("items", [yaml_parts.PART_ITEMS, 7])
def test_torch_native_functions_in_parts(monkeypatch: pytest.MonkeyPatch, items: int) -> None:
    monkeypatch.setattr(yaml_parts, "PART_ITEMS", items)
    text = torch_yaml_paths().native_functions.read_text()
    parts = YamlParts.of(text, "native_functions.yaml")
    assert parts is not None and len(parts.starts) > 2
    assert _same_or_failed(text)


#: Lines that make cutting before a ``- `` line unsafe if anything does: quoted
#: and flow values continued on a line that starts with ``- ``, block scalars,
#: comments, nested and empty items, document markers, anchors, tabs.
_LINES = [
    "- func: a(Tensor self) -> Tensor",
    "  dispatch:",
    "    CPU: a_cpu",
    "  k: v",
    "- k: |",
    "    block text",
    "- k: >",
    "   folded",
    '  q: "open',
    '- closed"',
    "  q: 'single",
    "- single'",
    "  f: [a,",
    "- b]",
    "  m: {a: 1,",
    "- b: 2}",
    "# a comment",
    "",
    "-",
    "  x: y",
    "- - nested",
    "  - inner",
    "- plain",
    "  continued",
    "x: y",
    "- !!str tagged",
    "- &a anchored",
    "- *a",
    "---",
    "...",
    "%YAML 1.1",
    "\t- tab",
    "- x # trailing",
    "- ? k",
    "  : v",
    "- 'a''b'",
    '- "a\\',
    '  b"',
]


_SAFE = [line for line in _LINES[:4] for _ in range(3)] + ["- k: v", "# c", "", "- k: |", "    b"]


def test_random_texts_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_parts, "PART_ITEMS", 1)
    rng = random.Random(16)
    same = 0
    for _ in range(4000):
        lines = [
            rng.choice(_SAFE if rng.random() < 0.7 else _LINES) for _ in range(rng.randint(1, 16))
        ]
        if rng.random() < 0.5:
            lines.insert(0, "- func: first")
        text = "\n".join(lines) + ("\n" if rng.random() < 0.9 else "")
        same += _same_or_failed(text)
    assert same > 300, same  # many texts are cut, not all of them refused


def test_a_failed_part_reports_what_a_whole_load_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries before the failed part loaded (and reported an error) in parts; the
    whole load reports its own errors only, once."""
    text = (ROOT / "examples" / "toyops" / "native_functions.yaml").read_text()
    broken = text + '- func: late(Tensor self) -> Tensor\n  python_module: "unclosed\n'
    bad_entry = "- func: early(Tensor self) -> Tensor\n  variants: nonsense\n"
    path = tmp_path / "native_functions.yaml"
    path.write_text(bad_entry + broken)
    tags = ROOT / "examples" / "toyops" / "tags.yaml"

    def errors() -> list[str]:
        with pytest.raises(InputError) as caught:
            load_module(path, tags)
        return [str(d) for d in caught.value.diagnostics]

    monkeypatch.setattr(yaml_parts, "PART_ITEMS", 1)
    in_parts = errors()
    monkeypatch.setattr(yaml_parts, "PART_ITEMS", 10**6)
    assert in_parts == errors()
    assert len(in_parts) == 1 and "YAML" in in_parts[0]


def test_parts_load_the_same_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = torch_yaml_paths()
    monkeypatch.setattr(yaml_parts, "PART_ITEMS", 10**6)
    whole = load_module(paths.native_functions, paths.tags)
    monkeypatch.setattr(yaml_parts, "PART_ITEMS", 100)
    parts = load_module(paths.native_functions, paths.tags)
    assert parts.functions == whole.functions
    assert [f.span for f in parts.functions] == [f.span for f in whole.functions]
    assert [f.source_key for f in parts.functions] == [f.source_key for f in whole.functions]
