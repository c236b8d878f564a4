"""The composer tags every node as PyYAML's own resolver would, except plain scalars.

Plain scalars get PLAIN_TAG and are typed on demand (see yaml_nodes); every
other node's tag is looked up by kind, which must agree with ``yaml.compose``.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st

from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.frontend.yaml_nodes import PLAIN_TAG, Node, ScalarNode, _Composer, parse_yaml_text

_LEAF = st.sampled_from(
    ["x", "'quoted'", '"dq"', "1", "true", "~", "''", "!!str 5", "|\n    block"]
)


def _document(leaves: list[str]) -> str:
    lines = []
    for index, leaf in enumerate(leaves):
        lines.append(f"- k{index}: {leaf}")
        lines.append(f"  seq: [a, '{index}']")
    return "\n".join(lines) + "\n"


def _tags(node: Node) -> list[str]:
    tags = [node.tag]
    if isinstance(node.value, list):
        for item in node.value:
            for part in item if isinstance(item, tuple) else (item,):
                tags.extend(_tags(part))
    return tags


def _plain_flags(node: Node) -> list[bool]:
    """Per node, in :func:`_tags` order: a plain scalar without an explicit tag?"""
    flags = [isinstance(node, ScalarNode) and not node.style and node.tag == PLAIN_TAG]
    if isinstance(node.value, list):
        for item in node.value:
            for part in item if isinstance(item, tuple) else (item,):
                flags.extend(_plain_flags(part))
    return flags


@given(st.lists(_LEAF, min_size=1, max_size=5))
def test_non_plain_nodes_get_the_standard_tags(leaves: list[str]) -> None:
    text = _document(leaves)
    doc, problems = parse_yaml_text(text, "t.yaml")
    assert not problems and doc is not None and doc.root is not None
    ours = _tags(doc.root)
    standard = _tags(yaml.compose(text))
    assert len(ours) == len(standard)
    plain = _plain_flags(doc.root)
    for got, expected, is_plain in zip(ours, standard, plain, strict=True):
        assert got == (PLAIN_TAG if is_plain else expected)
    assert "tag:yaml.org,2002:map" in ours and "tag:yaml.org,2002:seq" in ours


def _tree(node: Node) -> object:
    """Everything the loaders read from a node: kind, tag, value, style, marks."""
    marks = (node.start_mark.line, node.start_mark.column, node.end_mark.line, node.end_mark.column)
    if isinstance(node.value, list):
        items = [
            tuple(_tree(part) for part in item) if isinstance(item, tuple) else _tree(item)
            for item in node.value
        ]
        return (type(node).__name__, node.tag, items, marks)
    return (type(node).__name__, node.tag, node.value, getattr(node, "style", None), marks)


def _composed(text: str, *, track_paths: bool) -> object:
    composer = _Composer(text, track_paths=track_paths)
    try:
        root = composer.get_single_node()
    finally:
        composer.dispose()
    return None if root is None else _tree(root)


@given(st.lists(_LEAF, min_size=1, max_size=5))
def test_untracked_resolver_paths_compose_the_same_tree(leaves: list[str]) -> None:
    """Note [Untracked resolver paths]: the no-op hooks change nothing."""
    text = _document(leaves) + "- {a: [b, {c: d}], e: &x f, g: *x}\n"
    assert _composed(text, track_paths=False) == _composed(text, track_paths=True)


def test_untracked_resolver_paths_compose_torchs_files_the_same() -> None:
    paths = torch_yaml_paths()
    for path in (paths.native_functions, paths.derivatives):
        text = Path(path).read_text(encoding="utf-8")
        assert _composed(text, track_paths=False) == _composed(text, track_paths=True)
