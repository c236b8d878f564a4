"""Source keys of loaded functions (Note [Functions keyed by their source] in ir/native.py).

A function's fingerprint is its source key when it has one, so a key that two
different functions could share would leave a stale file after an edit: these
tests check that equal keys mean equal functions (on every entry of torch's
file), that every edit of an entry's text changes its key, and that the key
is withheld wherever something outside the entry could change what it loads to.
"""

from __future__ import annotations

import copy
import pickle
import random
import re
from pathlib import Path

import attrs
import pytest
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st

from schemac.backends.reuse import Fingerprints
from schemac.frontend import source_keys
from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline

ENTRIES = """\
- func: scale(Tensor self, Scalar factor=1) -> Tensor
  variants: function, method
  dispatch:
    CPU: scale_cpu

- func: blend(Tensor self, Tensor other) -> Tensor
  tags: pointwise
"""


def _load(tmp_path: Path, text: str, name: str = "native_functions.yaml") -> Module:
    path = tmp_path / name
    path.write_text(text)
    return load_module(path)


def _keys(module: Module) -> list[str | None]:
    return [f.source_key for f in module.functions]


def test_every_loaded_function_has_a_key_that_lines_above_do_not_change(tmp_path: Path) -> None:
    first = _load(tmp_path, ENTRIES)
    keys = _keys(first)
    assert all(keys) and len(set(keys)) == 2
    moved = _load(tmp_path, "# a comment\n\n" + ENTRIES, "moved.yaml")
    assert _keys(moved) == keys
    assert list(moved.functions) == list(first.functions)


def test_an_edit_changes_only_its_entrys_key(tmp_path: Path) -> None:
    keys = _keys(_load(tmp_path, ENTRIES))
    for old, new in [
        ("factor=1", "factor=2"),
        ("function, method", "function"),
        ("CPU: scale_cpu", "CPU: scale_cpu2"),
        ("CPU: scale_cpu", "CPU, CUDA: scale_cpu"),
    ]:
        edited = _keys(_load(tmp_path, ENTRIES.replace(old, new), "edited.yaml"))
        assert edited[0] != keys[0] and edited[1] == keys[1], (old, new)


@pytest.mark.parametrize(
    "text",
    [
        # An anchor: an alias elsewhere could make an entry load to another's value.
        ENTRIES + "- func: alias(Tensor self) -> Tensor\n  dispatch: &table\n    CPU: k\n",
        "%YAML 1.1\n---\n" + ENTRIES,  # a directive
        "# \u00e9\n" + ENTRIES,  # not ASCII: the C parser's marks count bytes
    ],
    ids=["anchor", "directive", "non-ascii"],
)
def test_no_keys_where_an_entry_may_load_from_outside_its_text(tmp_path: Path, text: str) -> None:
    module = _load(tmp_path, text)
    assert module.functions and _keys(module) == [None] * len(module.functions)


#: The rule the anchor finder started from, as a regular expression: an ``&`` at a line
#: start, after whitespace or a flow indicator, before a name character; the finder now
#: also asks that a node may start there.  The directive rule: a ``%`` at a line start.
_ANCHOR_RULE = re.compile(r"(?:^|[\s\[\{,])&[^\s\[\]\{\},]", re.MULTILINE)
_DIRECTIVE_RULE = re.compile(r"^%", re.MULTILINE)


@given(st.text(alphabet=st.sampled_from("&% \t\n\r[]{},#:-ab!?\u00a0\u2028"), max_size=12))
def test_the_anchor_and_directive_finders_follow_their_rule(text: str) -> None:
    if source_keys.has_anchor(text):
        assert _ANCHOR_RULE.search(text) is not None
    assert source_keys._has_directive(text) == (_DIRECTIVE_RULE.search(text) is not None)


#: Lines of YAML texts with ``&`` in and out of the places where a node starts.
_LINE = st.tuples(
    st.sampled_from(["", "  ", "    "]),
    st.sampled_from(["", "- ", "k: ", "? ", ": ", "- k: "]),
    st.sampled_from(["", "&a ", "!t &a ", "&a !t ", "!!str "]),
    st.sampled_from(["", "x", "a && b", "b &c", "[&a x]", "{k: &a v}", "'&a'", "*a"]),
    st.sampled_from(["", " # c &d", ":"]),
).map("".join)


@settings(max_examples=1500)
@given(st.lists(_LINE, max_size=5).map("\n".join))
def test_every_anchor_the_parser_sees_is_found(text: str) -> None:
    """Every anchor libyaml reads is found (an alias needs one to compose)."""
    try:
        events = list(yaml.parse(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return
    anchored = any(
        getattr(event, "anchor", None) is not None
        for event in events
        if not isinstance(event, yaml.AliasEvent)
    )
    event("anchored" if anchored else "no anchor")
    if anchored:
        assert source_keys.has_anchor(text), text


def test_an_ampersand_inside_a_plain_scalar_is_no_anchor() -> None:
    assert not source_keys.has_anchor("- name: f\n  self: a.defined() && !b\n")
    assert not source_keys.has_anchor("- x # see &ref\n")
    for anchored in ("- &a x\n", "k: &a v\n", "k: !!str &a v\n", "[&a x]\n", "k:\n  &a v\n"):
        assert source_keys.has_anchor(anchored), anchored


def test_changed_copies_have_no_key(tmp_path: Path) -> None:
    f = _load(tmp_path, ENTRIES).functions[0]
    assert f.source_key is not None
    assert attrs.evolve(f, structured=False).source_key is None
    assert copy.copy(f).source_key is None
    assert pickle.loads(pickle.dumps(f)).source_key is None


def test_the_implicit_tags_of_the_resolution_pass_keep_a_derived_key(tmp_path: Path) -> None:
    loaded = _load(tmp_path, ENTRIES)
    (tmp_path / "tags.yaml").write_text(
        "- tag: pt2_compliant_tag\n  desc: d\n- tag: pointwise\n  desc: d\n"
    )
    tagged = run_pipeline(load_module(tmp_path / "native_functions.yaml", tmp_path / "tags.yaml"))
    for before, after in zip(loaded.functions, tagged.module.functions, strict=True):
        assert "pt2_compliant_tag" in after.tags and before.source_key is not None
        assert after.source_key not in (None, before.source_key)
    untagged = run_pipeline(loaded).module  # no tags.yaml: nothing added, the same objects
    assert _keys(untagged) == _keys(loaded)


def test_a_resolution_is_keyed_by_its_function(tmp_path: Path) -> None:
    """resolve_function reads the function alone: its result gets a key derived
    from the function's, and a copy of it none."""
    module = run_pipeline(_load(tmp_path, ENTRIES)).module
    again = run_pipeline(_load(tmp_path, "\n" + ENTRIES, "again.yaml")).module
    for f in module.functions:
        resolution = module.resolutions[f.func.name]
        assert resolution.source_key not in (None, f.source_key)
        assert again.resolutions[f.func.name].source_key == resolution.source_key
        assert pickle.loads(pickle.dumps(resolution)).source_key is None
        assert Fingerprints().of(resolution) != Fingerprints().of(attrs.evolve(resolution))
    edited = run_pipeline(_load(tmp_path, ENTRIES.replace("scale_cpu", "scale_k"), "e.yaml"))
    name = module.functions[0].func.name
    assert edited.module.resolutions[name].source_key != module.resolutions[name].source_key


def test_a_keyed_function_is_fingerprinted_by_its_key(tmp_path: Path) -> None:
    one = _load(tmp_path, ENTRIES).functions[0]
    two = _load(tmp_path, "\n" + ENTRIES, "two.yaml").functions[0]
    walked = attrs.evolve(one)  # equal, made without a key
    assert one == two == walked and walked.source_key is None
    assert Fingerprints().of(one) == Fingerprints().of(two)
    assert Fingerprints().of(one) != Fingerprints().of(walked)
    edited = _load(tmp_path, ENTRIES.replace("factor=1", "factor=2"), "e.yaml").functions[0]
    assert Fingerprints().of(edited) != Fingerprints().of(one)


def test_equal_keys_mean_equal_functions_on_torchs_file(
    torch_module: Module, torch_paths: TorchYamlPaths, tmp_path: Path
) -> None:
    """Each sampled entry of torch's file, loaded alone from its own text (at its
    column, in a file of its own), gives the key and the function the whole file
    gave it: nothing else of the file went into either."""
    text = Path(torch_paths.native_functions).read_text()
    starts = [i for i in range(len(text)) if text.startswith("- func:", i) and text[i - 1] == "\n"]
    assert len(starts) == len(torch_module.functions)
    ends = [*starts[1:], len(text)]
    sample = random.Random(16).sample(range(len(starts)), 150)
    pieces = "".join(text[starts[i] : ends[i]] for i in sorted(sample))
    alone = _load(tmp_path, pieces)
    whole = [torch_module.functions[i] for i in sorted(sample)]
    assert all(f.source_key for f in whole)
    for mine, theirs in zip(alone.functions, whole, strict=True):
        assert mine == theirs
        assert mine.source_key == theirs.source_key, mine.name


AUTOGEN = """\
- func: grow_(Tensor(a!) self, Scalar step=1) -> Tensor(a!)
  autogen: grow, grow.out
  dispatch:
    CPU: grow_cpu_

- func: other(Tensor self) -> Tensor
"""


def test_synthesised_variants_are_keyed_by_their_source(tmp_path: Path) -> None:
    """The autogen pass makes a variant and its resolution from the source function
    alone: both get keys derived from the source's, equal whenever the source's
    entry is, and other keys once the source's entry is edited."""

    def synthesised(text: str, name: str) -> Module:
        return run_pipeline(_load(tmp_path, text, name)).module

    module = synthesised(AUTOGEN, "one.yaml")
    made = [f for f in module.functions if f.generated]
    assert sorted(str(f.name) for f in made) == ["grow", "grow.out"]
    again = synthesised("# moved\n\n" + AUTOGEN, "two.yaml")
    edited = synthesised(AUTOGEN.replace("step=1", "step=2"), "three.yaml")
    for f in made:
        resolution = module.resolutions[f.func.name]
        keys = {f.source_key, resolution.source_key}
        assert None not in keys and len(keys) == 2
        moved = again.function(f.func.name)
        assert moved == f and moved.source_key == f.source_key
        assert again.resolutions[f.func.name].source_key == resolution.source_key
        assert edited.function(f.func.name).source_key not in keys
        assert edited.resolutions[f.func.name].source_key not in keys
    # The keys differ between the two variants, and from every loaded function's.
    every = [g.source_key for g in module.functions]
    assert len(set(every)) == len(every)


# -- blind keys (Note [Keys blind to an aspect] in ir/slots.py) ---------------------------
BLIND_BASE = """\
- func: scale(Tensor self, Scalar factor=1, *, bool fast=False) -> Tensor
  variants: function
  dispatch:
    CPU, CUDA: scale_kernel
    Meta: scale_meta
"""

#: An edit of BLIND_BASE -> the aspects (BLIND_ASPECTS) whose keys it leaves equal.
BLIND_EDITS = {
    # Kernel names only.
    ("CPU, CUDA: scale_kernel", "CPU, CUDA: scale_other"): {"kernel-names"},
    ("Meta: scale_meta", "Meta: meta_scale"): {"kernel-names"},
    # Default values only.
    ("factor=1", "factor=2"): {"defaults"},
    ("fast=False", "fast=True"): {"defaults"},
    # Anything else: which keys have a kernel, whether a default is there, a name, a field.
    ("CPU, CUDA: scale_kernel", "CPU: scale_kernel"): set(),
    ("Scalar factor=1", "Scalar factor"): set(),
    ("bool fast=False", "bool quick=False"): set(),
    ("variants: function", "variants: function, method"): set(),
}


def _blind(tmp_path: Path, text: str, name: str) -> tuple[str | None, tuple[str, ...] | None]:
    (function,) = _load(tmp_path, text, name).functions
    return function.source_key, function.blind_keys


def test_blind_keys_ignore_their_aspect_and_nothing_else(tmp_path: Path) -> None:
    from schemac.ir.slots import BLIND_ASPECTS

    key, blind = _blind(tmp_path, BLIND_BASE, "base.yaml")
    assert key is not None and blind is not None and len(set(blind)) == len(BLIND_ASPECTS)
    for number, ((old, new), same) in enumerate(BLIND_EDITS.items()):
        assert old in BLIND_BASE
        edited_key, edited_blind = _blind(tmp_path, BLIND_BASE.replace(old, new), f"e{number}.yaml")
        assert edited_key != key and edited_blind is not None
        for aspect, before, after in zip(BLIND_ASPECTS, blind, edited_blind, strict=True):
            # The combined aspect ignores what either of its parts does.
            ignored = aspect in same or (aspect == "kernel-names+defaults" and bool(same))
            assert (before == after) == ignored, (old, new, aspect)


def test_blind_keys_survive_a_pickled_part_and_derive_like_source_keys(tmp_path: Path) -> None:
    from schemac.frontend.part_memo import pickled_part, unpickled_part
    from schemac.ir.native import NativeFunction
    from schemac.ir.slots import derive_source_key

    (function,) = _load(tmp_path, BLIND_BASE).functions
    data = pickled_part([function])
    assert data is not None
    (recalled,) = unpickled_part(data) or ()
    assert recalled == function and recalled.blind_keys == function.blind_keys
    copied = attrs.evolve(function, structured=False)
    assert copied.blind_keys is None
    derive_source_key(function, copied, "a change")
    assert isinstance(copied, NativeFunction) and copied.blind_keys is not None
    assert all(
        derived.startswith(original) and derived != original
        for original, derived in zip(function.blind_keys or (), copied.blind_keys, strict=True)
    )


def test_fingerprints_of_a_blind_value_use_the_blind_keys(tmp_path: Path) -> None:
    from schemac.backends.reuse import Blind

    first = _load(tmp_path, BLIND_BASE, "first.yaml").functions
    renamed = _load(tmp_path, BLIND_BASE.replace("scale_meta", "meta_scale"), "second.yaml")
    second = renamed.functions

    def of(value: object) -> str:
        return Fingerprints().of(value)

    assert of(first) != of(second)
    assert of(Blind("kernel-names", first)) == of(Blind("kernel-names", second))
    assert of(Blind("kernel-names+defaults", first)) == of(Blind("kernel-names+defaults", second))
    assert of(Blind("defaults", first)) != of(Blind("defaults", second))
    # A value without blind keys is walked whole, so a blind slice never hides its edits.
    unkeyed = [attrs.evolve(f) for f in first], [attrs.evolve(f) for f in second]
    assert of(Blind("kernel-names", unkeyed[0])) != of(Blind("kernel-names", unkeyed[1]))
