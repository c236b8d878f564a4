"""Work in a forked process: results, errors and interruption come back as in one process."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from schemac.backends.forked import ForkedCall, can_fork
from schemac.diagnostics import Diagnostic, PassError, Span

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs os.fork")

TOYOPS = Path(__file__).resolve().parents[2] / "examples" / "toyops"


def test_the_result_comes_back_whole() -> None:
    # Bigger than a pipe's buffer many times over: the parent reads it in pieces.
    text = "".join(f"line {i}\n" for i in range(400_000))
    call = ForkedCall(lambda: {"text": text, "n": 3}, "a test")
    assert call.result() == {"text": text, "n": 3}


def test_diagnostics_are_raised_again_with_their_type() -> None:
    diagnostic = Diagnostic(Span("f.yaml", 3, 4, 3, 9), "bad formula", "a hint")

    def fail() -> None:
        raise PassError([diagnostic])

    call = ForkedCall(fail, "a test")
    with pytest.raises(PassError) as raised:
        call.result()
    assert raised.value.diagnostics == (diagnostic,)


def test_a_crash_is_a_runtime_error_with_the_childs_traceback() -> None:
    def crash() -> None:
        raise ZeroDivisionError("deep inside")

    with pytest.raises(RuntimeError, match=r"a test failed:(.|\n)*ZeroDivisionError: deep inside"):
        ForkedCall(crash, "a test").result()


def test_raise_if_failed_raises_diagnostics_only() -> None:
    def crash() -> None:
        raise ZeroDivisionError("ignored")

    ForkedCall(crash, "a test").raise_if_failed()  # the caller's own error wins
    ForkedCall(lambda: 1, "a test").raise_if_failed()
    diagnostic = Diagnostic(Span("f.yaml", 1, 1, 1, 2), "late problem")

    def fail() -> None:
        raise PassError([diagnostic])

    with pytest.raises(PassError):
        ForkedCall(fail, "a test").raise_if_failed()


def test_discard_stops_a_busy_child_at_once() -> None:
    call = ForkedCall(lambda: time.sleep(60), "a test")
    start = time.perf_counter()
    call.discard()
    call.discard()  # a second call is harmless
    assert time.perf_counter() - start < 30
