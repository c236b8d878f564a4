"""Per-file reuse's building blocks (Note [File reuse]): fingerprints and render rules."""

from __future__ import annotations

import os
import subprocess
import sys

import attrs
import pytest

from schemac.backends.reuse import (
    Deferred,
    DeferredGroup,
    Fingerprints,
    check_render,
    fingerprint,
)
from schemac.diagnostics import Span
from schemac.ir.native import Variant


@attrs.frozen
class _Node:
    name: str
    tags: frozenset[str]
    span: Span | None = attrs.field(default=None, eq=False)


@attrs.frozen
class _View:
    node: _Node
    derived: str
    reuse_fields = ("node",)


def _render(context: object, inputs: object) -> str:
    return f"{context}:{inputs}"


def test_a_fingerprint_follows_equality() -> None:
    a = _Node("add", frozenset({"core", "pointwise"}), Span("x.yaml", 1, 1, 1, 2))
    b = _Node("add", frozenset({"pointwise", "core"}), Span("y.yaml", 9, 1, 9, 2))
    assert a == b and fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint(_Node("add", frozenset({"core"})))
    assert fingerprint((Variant.function,)) != fingerprint((Variant.method,))
    # A type-level distinction: a tuple and a list of the same items still differ
    # from a different structure.
    assert fingerprint(("a", "b")) != fingerprint(("ab",))
    # Set items encoded as one part are sorted as they are; none imitates another.
    assert fingerprint(frozenset({"a\x00b"})) != fingerprint(frozenset({"a", "b"}))
    assert fingerprint(frozenset({("a", "b")})) != fingerprint(frozenset({"a", "b"}))
    assert fingerprint(frozenset({Variant.method, Variant.function})) == fingerprint(
        frozenset({Variant.function, Variant.method})
    )
    assert fingerprint(frozenset({"1:a"})) != fingerprint(frozenset({"a"}))


def test_declared_reuse_fields_leave_out_derived_ones() -> None:
    node = _Node("add", frozenset())
    assert fingerprint(_View(node, "one")) == fingerprint(_View(node, "two"))
    assert fingerprint(_View(node, "one")) != fingerprint(_View(_Node("sub", frozenset()), "one"))
    # The run-level memo gives the same digests as a fresh computation.
    memo = Fingerprints()
    view = _View(node, "x")
    assert memo.of(view) == memo.of(view) == fingerprint(view)


def test_strings_cannot_imitate_other_values() -> None:
    assert fingerprint(("None",)) != fingerprint((None,))
    assert fingerprint(("1",)) != fingerprint((1,))
    assert fingerprint((("a",),)) != fingerprint(("a",))
    # Strings are length-prefixed: whatever characters one holds, it reads back as one.
    assert fingerprint(("a\0b",)) != fingerprint(("a", "b"))
    assert fingerprint(("1:a",)) != fingerprint(("a",))
    assert fingerprint(("\x01None",)) != fingerprint((None,))


def test_an_unknown_type_is_refused() -> None:
    with pytest.raises(TypeError, match="cannot fingerprint"):
        fingerprint({"a": 1})


def test_fingerprints_do_not_depend_on_the_hash_seed() -> None:
    code = (
        "from schemac.backends.reuse import fingerprint;"
        "print(fingerprint((frozenset({'a', 'b', 'c', 'd', 'e'}), frozenset({1, 2}))))"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(digests) == 1


def test_a_render_must_be_a_module_level_function() -> None:
    check_render(Deferred("a.h", _render, "in", "ctx"))
    assert Deferred("a.h", _render, "in", "ctx").made().text == "ctx:in"
    captured = "hidden"
    with pytest.raises(TypeError, match="module-level"):
        check_render(Deferred("a.h", lambda c, i: captured, "in"))

    def local(context: object, inputs: object) -> str:
        return captured

    with pytest.raises(TypeError, match="module-level"):
        check_render(Deferred("a.h", local, "in"))
    with pytest.raises(TypeError, match="module-level"):
        check_render(Deferred("a.h", "x".join, "in"))


def _other_render(context: object, inputs: object) -> str:
    return f"{inputs}"


def test_a_groups_key_covers_each_files_path_render_and_inputs() -> None:
    # Note [File groups]: a group's files are kept on one key, so it must change
    # with anything any one file's own key would have changed with.
    def key(*files: Deferred, backend: str = "be") -> str:
        return Fingerprints().group_key(backend, DeferredGroup.of(files))

    a = Deferred("a.h", _render, _Node("add", frozenset({"core"})))
    b = Deferred("b.h", _render, ("x", 1))
    base = key(a, b)
    variants = [
        key(a),  # a file fewer
        key(a, b, Deferred("c.h", _render, None)),  # one more
        key(b, a),  # another order
        key(a, Deferred("c.h", _render, ("x", 1))),  # a path
        key(a, Deferred("b.h", _other_render, ("x", 1))),  # a render function
        key(a, Deferred("b.h", _render, ("x", 2))),  # the second file's inputs
        key(Deferred("a.h", _render, _Node("add", frozenset())), b),  # the first's
        key(a, b, backend="other"),  # the backend
    ]
    assert base not in variants and len(set(variants)) == len(variants)
    # Neither what the run fixes (the context) nor positions count.
    elsewhere = DeferredGroup(
        ("a.h", "b.h"),
        (_render, _render),
        (a.inputs, b.inputs),
        "another context",
        Span("y", 2, 1, 2, 2),
    )
    assert Fingerprints().group_key("be", elsewhere) == base
    # A group's files share its context and span, and are made as its Deferred files.
    assert DeferredGroup.of((a, b)).files == (a, b)
    assert [f.made().text for f in elsewhere.files] == [
        f"another context:{a.inputs}",
        "another context:('x', 1)",
    ]
    with pytest.raises(ValueError, match="share one context"):
        DeferredGroup.of((a, Deferred("b.h", _render, ("x", 1), "another context")))
    # A group of one file is not that file's own key: the two never meet in a record.
    assert key(a) != Fingerprints().local_key("be", a)
