"""The composer tags every node as PyYAML's own resolver would, except plain scalars.

Plain scalars get PLAIN_TAG and are typed on demand (see yaml_nodes); every
other node's tag is looked up by kind, which must agree with ``yaml.compose``.
"""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from schemac.frontend.yaml_nodes import PLAIN_TAG, Node, ScalarNode, parse_yaml_text

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
