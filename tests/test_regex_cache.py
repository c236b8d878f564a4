"""The cache of compiled regular expressions (Note [Cached regular expressions])."""

from __future__ import annotations

import marshal
import re
import subprocess
import sys
from pathlib import Path

import pytest

from schemac import regex_cache
from schemac.regex_cache import RegexCache

ROOT = Path(__file__).resolve().parents[1]

#: Patterns with groups, names, flags set inline and by argument, bytes, and
#: the kind of Unicode class PyYAML's reader compiles.
PATTERNS: list[tuple[str | bytes, int]] = [
    (r"(?P<type>[A-Za-z_][A-Za-z0-9_.]*)(?:\((?P<alias>[a-z])(?P<write>!)?\))?", 0),
    (r"(?i)tensor\??", 0),
    (r"a(b)+c|d", int(re.IGNORECASE | re.MULTILINE)),  # re.compile hands the compiler ints
    (r"^\s*#.*$", int(re.MULTILINE)),
    (rb"[\x00-\x1f]+", 0),
    ("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", 0),
    (r"(?x) a  b  # spaced", int(re.VERBOSE)),
]
TEXTS: list[str] = ["Tensor(a!) x", "TENSOR?", "xABBBc\nd", "  # c\nx", "ok\x00\x01", "\x07", "ab"]


def _compiled_through(cache: RegexCache, pattern: str | bytes, flags: int) -> re.Pattern[str]:
    # re.compile consults its in-memory cache first; the compiler is what misses call.
    return cache.compile(pattern, flags)  # type: ignore[no-any-return]


def _same(a: re.Pattern[str], b: re.Pattern[str]) -> None:
    assert (a.pattern, a.flags, a.groups) == (b.pattern, b.flags, b.groups)
    assert a.groupindex == b.groupindex
    for text in TEXTS:
        subject: str | bytes = text.encode("latin-1") if isinstance(a.pattern, bytes) else text
        left = [m.span() + m.groups() for m in a.finditer(subject)]  # type: ignore[arg-type]
        right = [m.span() + m.groups() for m in b.finditer(subject)]  # type: ignore[arg-type]
        assert left == right


def test_a_stored_pattern_is_the_pattern_re_compiles(tmp_path: Path) -> None:
    compiler = regex_cache._compiler_module()
    if compiler is None:
        pytest.skip("this Python's re has other internals; nothing is installed")
    path = tmp_path / "regex.marshal"
    first = RegexCache(path, compiler)
    made = [_compiled_through(first, p, f) for p, f in PATTERNS]
    assert first.added == len(PATTERNS)
    first.save()

    second = RegexCache(path, compiler)
    kept = [_compiled_through(second, p, f) for p, f in PATTERNS]
    assert second.added == 0  # every pattern came from the file
    for (pattern, flags), a, b in zip(PATTERNS, made, kept, strict=True):
        plain = compiler.compile(pattern, flags)
        _same(a, plain)
        _same(b, plain)


def test_a_damaged_entry_is_compiled_afresh(tmp_path: Path) -> None:
    compiler = regex_cache._compiler_module()
    if compiler is None:
        pytest.skip("this Python's re has other internals; nothing is installed")
    path = tmp_path / "regex.marshal"
    pattern = r"a+(b)"
    path.write_bytes(marshal.dumps({(pattern, 0): (32, [999999, 1, 2], 0, {}, (None, None))}))
    cache = RegexCache(path, compiler)
    _same(_compiled_through(cache, pattern, 0), compiler.compile(pattern, 0))
    assert cache.added == 1
    path.write_bytes(b"not marshal")
    assert RegexCache(path, compiler).compile(pattern, 0).match("aab")


def test_debug_and_parsed_patterns_go_to_the_compiler(tmp_path: Path) -> None:
    compiler = regex_cache._compiler_module()
    if compiler is None:
        pytest.skip("this Python's re has other internals; nothing is installed")
    cache = RegexCache(tmp_path / "regex.marshal", compiler)
    scanner = re.Scanner([(r"[0-9]+", lambda s, t: int(t)), (r"\s+", None)])  # type: ignore[attr-defined]
    assert scanner.scan("1 22")[0] == [1, 22]
    parsed = compiler._parser.parse("ab", 0)
    assert cache.compile(parsed).match("ab")
    assert cache.added == 0


_COMPILE_IN_A_PROCESS = """
import re, sys
from schemac import regex_cache
cache = regex_cache.install()
assert cache is not None
pattern = re.compile(r"(?P<word>[a-z]+)-(\\d+)")
assert pattern.match("abc-12").group("word", 2) == ("abc", "12")
cache.save()
print(cache.added)
"""


def test_a_second_process_takes_the_stored_pattern(tmp_path: Path) -> None:
    if regex_cache._compiler_module() is None:
        pytest.skip("this Python's re has other internals; nothing is installed")
    env = {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(tmp_path)}
    env["PYTHONPATH"] = str(ROOT / "src")
    added = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", _COMPILE_IN_A_PROCESS], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        added.append(int(done.stdout.split()[-1]))
    assert added[0] >= 1 and added[1] == 0


def test_nothing_is_installed_without_a_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHEMAC_NO_CACHE", "1")
    assert regex_cache.install() is None
