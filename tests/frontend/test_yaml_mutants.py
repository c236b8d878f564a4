"""A YAML fuzz of the three input files: hostile bytes, and ``check`` agreeing with ``compile``.

Each mutant is the toyops library (native_functions, tags and derivatives
YAML) with one mutation applied to one of the files:

* an explicit tag (``!!int``, ``!!float``, ``!!timestamp``, ``!!bool``,
  ``!!null``, ``!!binary``, ``!!python/object``...) put before a value;
* a control character (C0, DEL, C1, U+202E, U+FEFF) inserted anywhere;
* an invalid UTF-8 byte (a stray continuation byte, a cut sequence) inserted;
* a value replaced by deep nesting (``[[[...]]]`` or ``{a: {a: ...}}``, up to
  well past libyaml's depth limit);
* a value replaced by a huge scalar (up to 1 MB);
* a ``key: value`` line duplicated inside its mapping;
* an anchor put on one value and an alias to it in place of another.

For each, in-process through ``schemac.cli.main`` (nothing may escape it):

* ``check`` and ``compile -t all --dry-run`` exit with 0 or 1 and print no
  traceback, and **their verdicts are equal**;
* on 1, every ``error:`` line is ``file:line:col:`` inside that file, and the
  first error's excerpt has a caret; and for the two mutations whose place is
  known (a control character, a byte that is not UTF-8) the error is at
  exactly that line and column.

Mutants are seeded (seed ``i`` of the run), so a failure names its seed.
SCHEMAC_YAML_MUTANTS sets how many (default 150; ``make faults`` runs 3,000).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from schemac.cli import main

ROOT = Path(__file__).resolve().parents[2]
TOYOPS = ROOT / "examples" / "toyops"
FILES = ("native_functions.yaml", "tags.yaml", "derivatives.yaml")
ORIGINAL = {name: (TOYOPS / name).read_bytes() for name in FILES}
MUTANTS = int(os.environ.get("SCHEMAC_YAML_MUTANTS", "150"))

_ERROR = re.compile(r"^(?P<file>\S[^:\n]*):(?P<line>\d+):(?P<col>\d+): error: ", re.M)
#: Characters YAML refuses in a file: where they are is where the error must be.
_REFUSED = [*(chr(c) for c in range(32) if c not in (9, 10, 13)), "\x7f", "\x80", "\x9f"]
_ALLOWED_ODD = ["\u202e", "\ufeff", "\u2028", "\x85"]
_TAGS = [
    "!!int", "!!float", "!!timestamp", "!!bool", "!!null", "!!binary", "!!str", "!!seq",
    "!!map", "!!python/object:os.system", "!!omap", "!!set", "!custom",
]  # fmt: skip

Mutation = tuple[bytes, tuple[int, int] | None]  # the mutated file, where its error must be


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def _char_boundary(data: bytes, rng: random.Random) -> int:
    while True:
        offset = rng.randrange(len(data) + 1)
        if offset == len(data) or (data[offset] & 0xC0) != 0x80:
            return offset


def _value_lines(data: bytes) -> list[int]:
    """Lines of the form ``  key: value``."""
    return [i for i, line in enumerate(_lines(data)) if re.match(rb"^\s*-?\s*\w+: \S", line)]


def _replace_value(data: bytes, rng: random.Random, make: Callable[[bytes], bytes]) -> bytes:
    lines = _lines(data)
    index = rng.choice(_value_lines(data))
    key, _, value = lines[index].partition(b": ")
    lines[index] = key + b": " + make(value)
    return b"\n".join(lines)


def _explicit_tag(data: bytes, rng: random.Random) -> Mutation:
    tag = rng.choice(_TAGS).encode()
    return _replace_value(data, rng, lambda value: tag + b" " + value), None


def _control(data: bytes, rng: random.Random) -> Mutation:
    offset = _char_boundary(data, rng)
    refused = rng.random() < 0.7
    char = rng.choice(_REFUSED if refused else _ALLOWED_ODD)
    mutated = data[:offset] + char.encode() + data[offset:]
    return mutated, _position(mutated, offset) if refused else None


def _invalid_utf8(data: bytes, rng: random.Random) -> Mutation:
    offset = _char_boundary(data, rng)
    bad = rng.choice([b"\x80", b"\xbf", b"\xff", b"\xfe", b"\xc3", b"\xe2\x82", b"\xf0\x9f"])
    mutated = data[:offset] + bad + data[offset:]
    if bad in (b"\xc3", b"\xe2\x82", b"\xf0\x9f") and mutated[offset + len(bad) :][:1] >= b"\x80":
        return mutated, None  # the cut sequence may have been completed by what follows
    return mutated, _position(mutated, offset)


def _deep(data: bytes, rng: random.Random) -> Mutation:
    depth = rng.choice([5, 50, 500, 999, 1001, 5000, 20000])
    if rng.random() < 0.5:
        nest = b"[" * depth + b"x" + b"]" * depth
    else:
        nest = b"{a: " * depth + b"x" + b"}" * depth
    return _replace_value(data, rng, lambda value: nest), None


def _huge(data: bytes, rng: random.Random) -> Mutation:
    size = rng.choice([1000, 100_000, 1_000_000])
    filler = rng.choice([b"x", b"a_", b"9", b" "])
    return _replace_value(data, rng, lambda value: value + filler * (size // len(filler))), None


def _duplicate_key(data: bytes, rng: random.Random) -> Mutation:
    lines = _lines(data)
    index = rng.choice(_value_lines(data))
    lines.insert(index + 1, lines[index].lstrip(b"- ").rjust(len(lines[index])))
    return b"\n".join(lines), None


def _alias(data: bytes, rng: random.Random) -> Mutation:
    lines = _lines(data)
    candidates = _value_lines(data)
    first, second = sorted(rng.sample(candidates, 2))
    key, _, value = lines[first].partition(b": ")
    lines[first] = key + b": &anchor " + value
    key, _, _ = lines[second].partition(b": ")
    lines[second] = key + b": *anchor"
    return b"\n".join(lines), None


MUTATORS: tuple[Callable[[bytes, random.Random], Mutation], ...] = (
    _explicit_tag,
    _control,
    _invalid_utf8,
    _deep,
    _huge,
    _duplicate_key,
    _alias,
)


def _run(argv: list[str]) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    return code, stderr.getvalue()


def _check_errors(err: str, paths: dict[str, Path], where: str) -> None:
    found = list(_ERROR.finditer(err))
    assert found, f"{where}: exit 1 without a positioned error:\n{err[:2000]}"
    sizes = {
        str(p): len(p.read_bytes().decode("utf-8", "replace").splitlines()) for p in paths.values()
    }
    for match in found:
        assert match["file"] in sizes, f"{where}: error in an unknown file {match['file']}"
        line = int(match["line"])
        assert 1 <= line <= max(sizes[match["file"]], 1), f"{where}: line {line} out of range"
    first = err[found[0].end() :].split("\n")
    assert any(row.strip().startswith("^") for row in first[1:3]), (
        f"{where}: no caret\n{err[:2000]}"
    )


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mutants")


@pytest.mark.parametrize("seed", range(MUTANTS))
def test_mutant_is_refused_where_it_is_broken_and_check_agrees_with_compile(
    seed: int, work: Path
) -> None:
    rng = random.Random(seed)
    mutator = MUTATORS[seed % len(MUTATORS)]
    target = rng.choice(FILES)
    mutated, expected = mutator(ORIGINAL[target], rng)
    where = f"seed {seed}: {mutator.__name__} in {target}"
    directory = work / f"seed{seed}"
    directory.mkdir()
    paths = {name: directory / name for name in FILES}
    for name, path in paths.items():
        path.write_bytes(mutated if name == target else ORIGINAL[name])
    inputs = [
        str(paths["native_functions.yaml"]),
        "--tags",
        str(paths["tags.yaml"]),
        "--derivatives",
        str(paths["derivatives.yaml"]),
    ]
    check_code, check_err = _run(["check", *inputs])
    out = directory / "out"
    compile_code, compile_err = _run(
        ["compile", *inputs, "-t", "all", "-o", str(out), "--dry-run", "-j", "1"]
    )
    for code, err in ((check_code, check_err), (compile_code, compile_err)):
        assert code in (0, 1), f"{where}: exit {code}\n{err[:2000]}"
        assert "Traceback" not in err, f"{where}\n{err[:2000]}"
    assert check_code == compile_code, (
        f"{where}: check says {check_code}, compile says {compile_code}\n"
        f"check:\n{check_err[:2000]}\ncompile:\n{compile_err[:2000]}"
    )
    if check_code == 1:
        # The same report, not only the same verdict (Note [Every error in one run]).
        assert check_err == compile_err, (
            f"{where}\ncheck:\n{check_err[:2000]}\ncompile:\n{compile_err[:2000]}"
        )
        _check_errors(check_err, paths, where)
        if expected is not None:
            line, column = expected
            assert f"{paths[target]}:{line}:{column}: error: " in check_err, (
                f"{where}: expected the error at {line}:{column}\n{check_err[:2000]}"
            )
    else:
        assert expected is None, f"{where}: a refused character was accepted"
    assert not out.exists()
