"""The cache of attrs' generated methods (Note [Cached attrs methods])."""

from __future__ import annotations
import __future__

import marshal
import os
import subprocess
import sys
from pathlib import Path

import attr._make
import attrs
import pytest

from schemac import attrs_code
from schemac.attrs_code import CodeCache

FLAGS = __future__.annotations.compiler_flag
ROOT = Path(__file__).resolve().parents[1]


def _define_point() -> type:
    @attrs.frozen
    class Point:
        x: int
        y: int = 0

    return Point


def _point_class(cache: CodeCache, monkeypatch: pytest.MonkeyPatch) -> type:
    monkeypatch.setattr(attr._make, "compile", cache.compile, raising=False)
    try:
        return _define_point()
    finally:
        monkeypatch.undo()


def test_a_stored_class_behaves_like_a_compiled_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "code.marshal"
    first = CodeCache(path, FLAGS)
    made = _point_class(first, monkeypatch)
    assert first.added == 1
    first.save()

    second = CodeCache(path, FLAGS)
    kept = _point_class(second, monkeypatch)
    assert second.added == 0  # the stored code was used
    plain = _define_point()
    for cls in (made, kept):
        assert hash(cls(1, 2)) == hash(plain(1, 2))
        assert cls(1) == cls(1, 0) and cls(1) != cls(2)
        assert repr(cls(3, 4)).endswith("Point(x=3, y=4)")
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            cls(1).x = 2  # type: ignore[misc]


def test_a_save_keeps_the_entries_this_run_did_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [Stored code read by entry]: a run reads only the entries of the
    classes it defines, and a save writes back the others too."""

    def define_line() -> type:
        @attrs.frozen
        class Line:
            a: int
            b: int

        return Line

    path = tmp_path / "code.marshal"
    first = CodeCache(path, FLAGS)
    _point_class(first, monkeypatch)
    first.save()
    second = CodeCache(path, FLAGS)  # defines Line only
    monkeypatch.setattr(attr._make, "compile", second.compile, raising=False)
    define_line()
    monkeypatch.undo()
    assert second.added == 1
    second.save()
    third = CodeCache(path, FLAGS)
    _point_class(third, monkeypatch)
    monkeypatch.setattr(attr._make, "compile", third.compile, raising=False)
    line = define_line()
    monkeypatch.undo()
    assert third.added == 0
    assert line(1, 2) == line(1, 2) and hash(line(1, 2)) == hash(define_line()(1, 2))


def test_a_store_whose_index_points_past_its_end_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    head = marshal.dumps({"x": (0, 1 << 40)})
    path.write_bytes(len(head).to_bytes(8, "little") + head + b"abc")
    cache = CodeCache(path, FLAGS)
    assert cache.compile("value = 1\n", "<t>", "exec") is not None
    assert cache.added == 1


_DEFINE_IN_A_PROCESS = """
import sys, attr._make, attrs
from pathlib import Path
from schemac.attrs_code import CodeCache, __future__
cache = CodeCache(Path(sys.argv[1]), __future__.annotations.compiler_flag)
def define():
    @attrs.frozen
    class Point:
        x: int
    return Point
attr._make.compile = cache.compile
cached = define()
del attr._make.compile
plain = define()
assert hash(cached(5)) == hash(plain(5)) and hash(cached(5)) != hash(plain(6))
cache.save()
print(cache.added)
"""


def test_the_hash_seed_dependent_number_is_put_back(tmp_path: Path) -> None:
    """``__hash__`` mixes in a number that changes with the hash seed: a process
    with another seed reuses the stored code with its own number."""
    added = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-c", _DEFINE_IN_A_PROCESS, str(tmp_path / "code.marshal")]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        added.append(done.stdout.strip())
    assert added == ["1", "0"]


def test_a_number_that_is_not_only_the_constant_is_compiled_directly(tmp_path: Path) -> None:
    filename = "<attrs generated methods tests.C>"
    number = hash("<attrs generated hash tests.C>")
    source = f"text = '{number}'\nvalue = {number}\n"
    namespace: dict[str, object] = {}
    exec(CodeCache(tmp_path / "code.marshal", FLAGS).compile(source, filename, "exec"), namespace)
    assert namespace["text"] == str(number)
    assert namespace["value"] == number


def test_a_corrupt_store_is_ignored_and_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    path.write_bytes(b"not marshal data")
    cache = CodeCache(path, FLAGS)
    namespace: dict[str, object] = {}
    exec(cache.compile("value = 1\n", "<t>", "exec"), namespace)
    assert namespace["value"] == 1
    cache.save()
    assert CodeCache(path, FLAGS).compile("value = 1\n", "<t>", "exec") is not None


def test_the_command_writes_the_same_files_with_a_cold_and_a_warm_cache(tmp_path: Path) -> None:
    """Two processes with other hash seeds: the second reuses the first's code."""
    toy = ROOT / "examples" / "toyops"
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONHASHSEED": seed}
        env.pop("SCHEMAC_NO_CACHE", None)
        command = [
            sys.executable, "-m", "schemac", "compile", str(toy / "native_functions.yaml"),
            "--tags", str(toy / "tags.yaml"), "-t", "headers,schema", "-o", str(out),
        ]  # fmt: skip
        subprocess.run(command, check=True, env=env, cwd=ROOT, capture_output=True)
        outputs.append({p.relative_to(out): p.read_bytes() for p in out.rglob("*.h")})
        assert list((tmp_path / "cache" / "schemac" / "attrs").glob("*.marshal"))
    assert outputs[0] == outputs[1] and len(outputs[0]) > 5


def test_a_class_without_fields_is_served_from_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its __hash__ is hash((NUMBER,)), which the compiler folds into one tuple
    # constant: the number must be put back there too, not compiled afresh.
    import builtins

    def define() -> type:
        @attrs.frozen
        class Empty:
            pass

        return Empty

    path = tmp_path / "code.marshal"
    first = CodeCache(path, FLAGS)
    monkeypatch.setattr(attr._make, "compile", first.compile, raising=False)
    define()
    first.save()
    second = CodeCache(path, FLAGS)
    monkeypatch.setattr(attr._make, "compile", second.compile, raising=False)
    compiled: list[str] = []
    real = builtins.compile
    counting = lambda *a, **k: compiled.append(a[1]) or real(*a, **k)  # noqa: E731
    monkeypatch.setattr(attrs_code, "_BUILTIN_COMPILE", counting)
    kept = define()
    monkeypatch.undo()
    assert compiled == []
    assert hash(kept()) == hash(define()())


_IMPORT_ATTRS_IN_A_PROCESS = """
import builtins, sys
real = builtins.compile
from schemac.attrs_code import install
assert "attr" not in sys.modules
cache = install()
assert cache is not None and builtins.compile is real
import attr, attrs
assert hash(attr.validators.instance_of(int)) == hash(attr.validators.instance_of(int))
assert attr.validators.instance_of(int) != attr.validators.instance_of(str)
@attrs.frozen
class Point:
    x: int = attrs.field(validator=attr.validators.instance_of(int))
assert attrs.fields(Point).x.name == "x" and hash(Point(1)) == hash(Point(1))
assert repr(attrs.fields(Point).x).startswith("Attribute(name='x'")
def f():
    return compile("1 / 2", "<t>", "eval")  # inherits nothing: true division either way
assert eval(f()) == 0.5
cache.save()
print(cache.added)
"""


def test_attrs_own_classes_are_compiled_through_the_cache_while_it_imports(
    tmp_path: Path,
) -> None:
    """install() before attrs is imported: attrs' own ~30 classes hit the cache
    in a second process (another hash seed), and the builtin is put back."""
    added = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "XDG_CACHE_HOME": str(tmp_path)}
        env.pop("SCHEMAC_NO_CACHE", None)
        command = [sys.executable, "-c", _IMPORT_ATTRS_IN_A_PROCESS]
        done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        added.append(int(done.stdout.strip()))
    assert added[0] >= 20 and added[1] == 0
