"""A Python binding's bucket is keyed by its source (Note [Binding sources]):
whatever edit changes a binding's texts must change its source's fingerprint.

The bindings are made inside the bucket render, only for the buckets whose
key changed (Note [Fragment buckets]); a bucket whose sources fingerprint as
before is read back, not rendered.  So each edit below compares, per file and
binding name, the source's fingerprint and the texts the render makes from it
alone: a text that changed under an unchanged fingerprint would be a stale
binding in an incremental compile.  Each edit is checked to change some text
(else it would prove nothing), and the bindings it does not touch to keep
their fingerprints (else every edit would render everything).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from fragment_store import MemoryStore
from out_trees import compile_argv
from schemac import launcher, parse_schema
from schemac.backends.buckets import bucket_of
from schemac.backends.python import emit
from schemac.backends.python.binding_text import HAS_TORCH_FUNCTION
from schemac.backends.python.dispatch import CallMemo
from schemac.backends.python.operators import Signatures, binding_sources
from schemac.backends.reuse import Fingerprints, Fragments
from schemac.ir.derivatives import DeprecatedSignature
from schemac.ir.module import Module, SourceFiles
from schemac.ir.native import NativeFunction, Variant

BOTH = frozenset({Variant.function, Variant.method})


def _fn(schema: str, **fields: object) -> NativeFunction:
    return NativeFunction(func=parse_schema(schema), **fields)  # type: ignore[arg-type]


FUNCTIONS = (
    _fn("blend.Tensor(Tensor self, Tensor other, *, float weight=0.5) -> Tensor", variants=BOTH),
    _fn("blend.Scalar(Tensor self, Scalar other, *, float weight=0.5) -> Tensor", variants=BOTH),
    _fn("blend.out(Tensor self, Tensor other, *, float weight=0.5, Tensor(a!) out) -> Tensor(a!)"),
    _fn("shrink(Tensor self, float amount=1.0) -> Tensor", variants=BOTH),
    _fn("grow(Tensor self, float amount=1.0) -> Tensor"),
    _fn(
        "ramp(int n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,"
        " bool? pin_memory=None) -> Tensor"
    ),
)

#: Calls blend.Scalar (the only overload whose third argument is a float it may leave out).
DEPRECATED = (
    DeprecatedSignature(
        parse_schema("blend(float weight, Tensor self, Scalar other) -> Tensor"),
        "blend(self, other, weight)",
    ),
)

MODULE = Module(SourceFiles("toy.yaml"), functions=FUNCTIONS, deprecated=DEPRECATED)

#: (file, binding name) -> (fingerprint of the binding's source, the bucket texts it renders).
Bindings = dict[tuple[str, str], tuple[str, str]]


def _bindings(module: Module) -> Bindings:
    sources = binding_sources(module)
    signatures = Signatures()
    context = emit._BindingContext(
        CallMemo(signatures.arguments), signatures, HAS_TORCH_FUNCTION, sources.bound
    )
    fingerprints = Fingerprints()  # one per run, as the driver's
    found = {}
    for target, items in sources.per_module:
        for source in items:
            # A bucket of one: the texts of a binding are made from its source alone.
            text = emit._bindings_text(context, (target.filename, (source,)))
            found[target.filename, source.python_name] = (fingerprints.of(source), text)
    return found


def _replace(index: int, schema: str, **fields: object) -> Callable[[Module], Module]:
    def edit(module: Module) -> Module:
        old = module.functions[index]
        new = attrs.evolve(old, func=parse_schema(schema), **fields)
        functions = (*module.functions[:index], new, *module.functions[index + 1 :])
        return attrs.evolve(module, functions=functions)

    return edit


def _evolve_function(index: int, **fields: object) -> Callable[[Module], Module]:
    def edit(module: Module) -> Module:
        new = attrs.evolve(module.functions[index], **fields)
        functions = (*module.functions[:index], new, *module.functions[index + 1 :])
        return attrs.evolve(module, functions=functions)

    return edit


def _add(schema: str, **fields: object) -> Callable[[Module], Module]:
    return lambda module: attrs.evolve(module, functions=(*module.functions, _fn(schema, **fields)))


def _deprecated(*entries: DeprecatedSignature) -> Callable[[Module], Module]:
    return lambda module: attrs.evolve(module, deprecated=entries)


EDITS: dict[str, tuple[Callable[[Module], Module], set[str]]] = {
    # An overload's sibling: the edited default is printed in the shared binding.
    "sibling default": (
        _replace(1, "blend.Scalar(Tensor self, Scalar other, *, float weight=0.25) -> Tensor"),
        {"blend"},
    ),
    # The overload the deprecated entry calls: its dispatch call passes the new default.
    "called overload": (
        _replace(
            1, "blend.Scalar(Tensor self, Scalar other, *, float weight=0.5, int k=1) -> Tensor"
        ),
        {"blend"},
    ),
    "new sibling": (_add("blend.Int(Tensor self, int other) -> Tensor", variants=BOTH), {"blend"}),
    "deprecated entry edited": (
        _deprecated(
            DeprecatedSignature(
                parse_schema("blend(float w, Tensor self, Scalar other) -> Tensor"),
                "blend(self, other, w)",
            )
        ),
        {"blend"},
    ),
    "deprecated entry removed": (_deprecated(), {"blend"}),
    "moved to a submodule": (_evolve_function(4, python_module="special"), {"grow"}),
    "a new_* factory": (_evolve_function(5, category_override="new"), {"ramp"}),
    "method variant dropped": (
        _evolve_function(3, variants=frozenset({Variant.function})),
        {"shrink"},
    ),
    "unrelated": (_replace(4, "grow(Tensor self, float amount=2.0) -> Tensor"), {"grow"}),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edit_that_changes_a_binding_changes_its_source(name: str) -> None:
    edit, touched = EDITS[name]
    before = _bindings(MODULE)
    after = _bindings(edit(MODULE))
    changed = set()
    for key in before.keys() | after.keys():
        old, new = before.get(key), after.get(key)
        if old is None or new is None:
            changed.add(key[1])  # a binding that moved is another file's bucket's piece
            continue
        if old[1] != new[1]:
            changed.add(key[1])
            assert old[0] != new[0], f"{key}: its texts changed, its source's fingerprint did not"
        elif key[1] not in touched:
            assert old[0] == new[0], f"{key}: untouched, yet its source's fingerprint changed"
    assert changed == touched


def test_a_selective_build_is_part_of_the_source() -> None:
    # Selective or not decides whether an out= overload without its twin is an
    # error or left unbound: never a text rendered for one reused for the other.
    from schemac.ir.selection import OperatorSelection, SelectionResult

    pruned = attrs.evolve(MODULE, selection=SelectionResult(OperatorSelection()))
    before, after = _bindings(MODULE), _bindings(pruned)
    assert before.keys() == after.keys()
    for key in before:
        assert before[key][1] == after[key][1]
        assert before[key][0] != after[key][0]


# -- end to end: a library of plain (aten) names, which deprecated.yaml can call ------------

NATIVE = """\
- func: blend.Tensor(Tensor self, Tensor other, *, float weight=0.5) -> Tensor
  variants: function, method

- func: blend.Scalar(Tensor self, Scalar other, *, float weight=0.5) -> Tensor
  variants: function, method

- func: blend.out(Tensor self, Tensor other, *, float weight=0.5, Tensor(a!) out) -> Tensor(a!)
"""

#: Enough other names to fill many buckets.
OTHERS = "".join(f"\n- func: op{i}(Tensor self, int k={i}) -> Tensor\n" for i in range(40))

DEPRECATED_YAML = """\
- name: blend(float weight, Tensor self, Scalar other) -> Tensor
  aten: blend(self, other, weight)
"""

#: The names in each bucket the binding render was given.
RENDERED: list[list[str]] = []

_REAL = emit._bindings_text


def _counting(context: object, bucket: tuple[str, tuple[object, ...]]) -> str:
    RENDERED.append([s.python_name for s in bucket[1]])  # type: ignore[attr-defined]
    return _REAL(context, bucket)  # type: ignore[arg-type]


def _library(where: Path) -> Path:
    where.mkdir()
    (where / "native_functions.yaml").write_text(NATIVE + OTHERS)
    shutil.copy(Path(__file__).resolve().parents[2] / "examples/toyops/tags.yaml", where)
    (where / "deprecated.yaml").write_text(DEPRECATED_YAML)
    return where


def _argv(library: Path, out: Path) -> list[str]:
    return compile_argv(library, out, "python", "--deprecated", str(library / "deprecated.yaml"))


def _python_files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "python").iterdir())}


def _cold(library: Path, out: Path) -> dict[str, bytes]:
    assert launcher.main(_argv(library, out)) == 0
    return _python_files(out)


def test_editing_a_deprecated_signatures_overload_renders_its_bucket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = _library(tmp_path / "lib")
    out = tmp_path / "out"
    monkeypatch.setattr(emit, "_bindings_text", _counting)
    assert launcher.main(_argv(library, out)) == 0
    before = _python_files(out)
    assert (
        b"|deprecated"
        in before["python_torch_functions_0.cpp"]
        + before["python_torch_functions_1.cpp"]
        + before["python_torch_functions_2.cpp"]
    )

    # The overload deprecated.yaml's entry calls (a sibling of two others).
    native = library / "native_functions.yaml"
    native.write_text(
        native.read_text().replace(
            "Scalar other, *, float weight=0.5", "Scalar other, *, float weight=0.75"
        )
    )
    RENDERED.clear()
    assert launcher.main(_argv(library, out)) == 0
    # blend's bucket in Tensor's table and in its torch shard, nothing else.
    assert len(RENDERED) == 2
    for names in RENDERED:
        assert "blend" in names and {bucket_of(n) for n in names} == {bucket_of("blend")}
    incremental = _python_files(out)
    assert incremental != before
    assert incremental == _cold(library, tmp_path / "cold1")

    # The deprecated entry itself.
    deprecated = library / "deprecated.yaml"
    deprecated.write_text(DEPRECATED_YAML.replace("weight", "w"))
    RENDERED.clear()
    assert launcher.main(_argv(library, out)) == 0
    assert any("blend" in names for names in RENDERED)
    edited = _python_files(out)
    assert edited != incremental
    assert edited == _cold(library, tmp_path / "cold2")


def test_every_unbindable_overload_is_reported_once() -> None:
    # The signatures are made in the bucket renders (Note [Binding sources]);
    # an overload bound as a method and as a function fails in both files, and
    # the errors of every bucket and file are reported together, each once.
    from schemac.diagnostics import InputError

    bad = tuple(
        _fn(f"bad{i}(Tensor self, bool requires_grad) -> Tensor", variants=BOTH) for i in range(3)
    )
    assert len({bucket_of(f"bad{i}") for i in range(3)}) == 3
    module = attrs.evolve(MODULE, functions=(*FUNCTIONS, *bad))
    store = MemoryStore()
    with pytest.raises(InputError) as caught:
        list(emit.iter_python(module, fragments=Fragments(store, "python")))
    messages = sorted(d.message for d in caught.value.diagnostics)
    assert len(messages) == 3
    for i, message in enumerate(messages):
        assert message.startswith(f"cannot generate a Python binding for 'bad{i}'")
    assert store.remembered  # the other buckets were rendered (and would be kept)
