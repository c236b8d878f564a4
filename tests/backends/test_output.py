"""Output sets: path rules, duplicates, sharding and the banner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemac.backends.output import (
    GeneratedFile,
    OutputError,
    OutputSet,
    ShardedFile,
    check_output_path,
    generated_banner,
    shard_index,
    sharded,
)
from schemac.diagnostics import Span

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize(
    "path",
    ["ATen/RegisterSchema.cpp", "ops/add.h", "a/b/c/d.cu", "x", "python_functions_0.cpp",
     "ATen/core/aten_interned_strings.h", "a+b.h", "_x/y-z.h"],
)  # fmt: skip
def test_good_paths(path: str) -> None:
    assert check_output_path(path) is None


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("", "empty"),
        ("/etc/passwd", "absolute"),
        ("../outside.h", "'..'"),
        ("a/../../b.h", "'..'"),
        ("a//b.h", "empty"),
        ("./a.h", "'.'"),
        ("a/", "empty"),
        ("a\\b.h", "'\\'"),
        ("C:/x.h", "characters"),
        ("with space.h", "characters"),
        ('quote".h', "characters"),
        ("dollar$.h", "characters"),
        ("semi;colon.h", "characters"),
        (".hidden", "characters"),
        ("-rf", "characters"),
        ("caf\u00e9.h", "characters"),
        ("new\nline.h", "characters"),
        ("x" * 201, "longer"),
        (".schemac-manifest", "characters"),
    ],
)
def test_bad_paths(path: str, fragment: str) -> None:
    reason = check_output_path(path)
    assert reason is not None and fragment in reason


@given(st.text(min_size=1, max_size=40))
def test_every_accepted_path_stays_inside_the_output_directory(path: str) -> None:
    if check_output_path(path) is not None:
        return
    resolved = PurePosixPath("/out", path)
    assert ".." not in resolved.parts
    assert str(resolved).startswith("/out/")
    assert not PurePosixPath(path).is_absolute()


#: (rank, file): three emit calls (ranks 0-2), two of them producing ``x.h``,
#: one with a bad path too.
_RANKED = [
    (0, GeneratedFile("x.h", "first", target="headers")),
    (0, GeneratedFile("y.h", "y", target="headers")),
    (1, GeneratedFile("X.h", "case twin", target="cpu")),
    (1, GeneratedFile("../up.h", "bad", target="cpu")),
    (2, GeneratedFile("x.h", "again", target="cuda")),
]


@given(st.permutations(range(len(_RANKED))))
def test_problems_do_not_depend_on_the_order_files_arrive(order: list[int]) -> None:
    """With -j 2 two processes add files in an order of their own (Note [Split
    emission]): ranked by their emit call, the report is that of a run in order."""

    def problems(indices: list[int]) -> list[str]:
        files = OutputSet()
        for i in indices:
            files.add(_RANKED[i][1], _RANKED[i][0])
        with pytest.raises(OutputError) as raised:
            files.files()
        return [d.message for d in raised.value.diagnostics]

    expected = problems(list(range(len(_RANKED))))
    assert expected == [
        "invalid output path '../up.h' from target 'cpu': the path has an empty, '.' or '..'"
        " component ('..')",
        "output 'X.h' from target 'cpu' collides with 'x.h' from target 'headers'",
        "output 'x.h' from target 'cuda' collides with the same path from target 'headers'",
    ]
    # The calls in any order (one process emits a call whole, in its own order).
    by_call = {rank: [i for i, (r, _) in enumerate(_RANKED) if r == rank] for rank in (0, 1, 2)}
    calls = list(dict.fromkeys(_RANKED[i][0] for i in order))
    assert problems([i for rank in calls for i in by_call[rank]]) == expected


def test_output_set_sorts_and_reports_every_problem_together() -> None:
    span = Span("native_functions.yaml", 40, 3, 40, 10)
    files = OutputSet()
    files.add(GeneratedFile("b.h", "b", target="headers"))
    files.add(GeneratedFile("a.h", "a", target="headers"))
    assert [f.path for f in files.files()] == ["a.h", "b.h"]

    files.add(GeneratedFile("a.h", "again", target="cpu", span=span))
    files.add(GeneratedFile("B.h", "case twin", target="cpu"))
    files.add(GeneratedFile("../evil.h", "x", target="cpu"))
    with pytest.raises(OutputError) as raised:
        files.files()
    messages = [d.message for d in raised.value.diagnostics]
    assert len(messages) == 3
    assert any("'a.h' from target 'cpu' collides with the same path from target 'headers'" in m
               for m in messages)  # fmt: skip
    assert any("'B.h'" in m and "'b.h'" in m for m in messages)
    assert any("invalid output path '../evil.h'" in m for m in messages)
    # The duplicate points at the YAML entry the backend named.
    assert span in [d.span for d in raised.value.diagnostics]


def test_generated_file_bytes_are_utf8_with_unix_newlines() -> None:
    assert GeneratedFile("a.h", "caf\u00e9\n").data == b"caf\xc3\xa9\n"


# -- sharding -------------------------------------------------------------------------
def test_shard_index_is_stable_and_in_range() -> None:
    keys = [f"op{i}" for i in range(500)]
    indices = [shard_index(k, 5) for k in keys]
    assert all(0 <= i < 5 for i in indices)
    assert indices == [shard_index(k, 5) for k in keys]
    # Roughly balanced: every shard gets a fair share of 500 keys.
    assert min(indices.count(i) for i in range(5)) > 60
    with pytest.raises(ValueError):
        shard_index("x", 0)


def test_shard_index_does_not_depend_on_the_hash_seed() -> None:
    code = "from schemac.backends.output import shard_index; print([shard_index(f'k{i}', 7) for i in range(50)])"  # noqa: E501
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed, "PYTHONPATH": str(SRC)},
            capture_output=True, text=True, check=True,
        ).stdout
        for seed in ("0", "1", "12345")
    }  # fmt: skip
    assert len(runs) == 1


def test_adding_an_item_changes_only_its_own_shard() -> None:
    items = [f"op{i}" for i in range(100)]
    before = sharded(items, str, 4)
    after = sharded([*items, "new_op"], str, 4)
    changed = [i for i in range(4) if before[i] != after[i]]
    assert changed == [shard_index("new_op", 4)]
    assert sorted(x for shard in after for x in shard) == sorted([*items, "new_op"])
    # Input order is kept inside a shard.
    for shard in after:
        assert list(shard) == [x for x in [*items, "new_op"] if x in shard]


def test_sharded_file_names() -> None:
    names = ShardedFile("ATen/RegisterCPU.cpp", 3)
    assert names.shard_paths == (
        "ATen/RegisterCPU_0.cpp",
        "ATen/RegisterCPU_1.cpp",
        "ATen/RegisterCPU_2.cpp",
    )
    assert names.everything_path == "ATen/RegisterCPUEverything.cpp"
    with pytest.raises(ValueError):
        names.shard_path(3)


# -- banner -------------------------------------------------------------------------
def test_banner_names_template_and_source_basenames_only() -> None:
    banner = generated_banner(
        "RegisterSchema.cpp",
        ["/home/me/src/native_functions.yaml", "C:\\x\\tags.yaml", None],  # type: ignore[list-item]
    )
    assert banner.splitlines()[0] == "// @generated by schemac from RegisterSchema.cpp"
    assert "Sources: native_functions.yaml, tags.yaml" in banner
    assert "/home/me" not in banner
    assert generated_banner("x.py", [], comment="#").startswith("# @generated by schemac")


def _pathlib_stem_suffix(path: str, suffix: str) -> str:
    pure = PurePosixPath(path)
    return str(pure.with_name(f"{pure.stem}{suffix}{pure.suffix}"))


@pytest.mark.parametrize(
    "path",
    [
        "ATen/RegisterCPU.cpp", "python_torch_functions.cpp", "a/b.c/d", "a/b.tar.gz", ".hidden",
        "a/.hidden", "a/b.", "a//b.cpp", "./a.cpp", "a/./b.cpp", "/abs/x.h", "a/../b.h", "x",
        "a/b/", "dir.d/name",
    ],
)  # fmt: skip
def test_with_stem_suffix_prints_as_pathlib_does(path: str) -> None:
    from schemac.backends.output.sharding import with_stem_suffix

    for suffix in ("_0", "_12", "Everything"):
        assert with_stem_suffix(path, suffix) == _pathlib_stem_suffix(path, suffix)


@given(st.from_regex(r"[a-z./_]{1,12}", fullmatch=True), st.sampled_from(["_0", "Everything"]))
def test_with_stem_suffix_agrees_with_pathlib_on_random_paths(path: str, suffix: str) -> None:
    from schemac.backends.output.sharding import with_stem_suffix

    try:
        expected = _pathlib_stem_suffix(path, suffix)
    except ValueError:  # pathlib refuses an empty name ("", "/", "."): so must the shortcut
        with pytest.raises(ValueError):
            with_stem_suffix(path, suffix)
        return
    assert with_stem_suffix(path, suffix) == expected
