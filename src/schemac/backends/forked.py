"""A function run in a forked process, its result pickled back.

What ``schemac compile -j 2`` is built on (Note [Split emission]): the
child inherits everything the parent built, so nothing but the result
crosses a process boundary, and results are generated files, which pickle
cheaply.

The child leaves through ``os._exit``: it never runs the parent's clean-up
code or flushes its buffers.  It runs with the cyclic collector off: it only
reads what it inherited, and a collection would walk (and so copy) every page
of it.  A :class:`~schemac.diagnostics.SchemacError` raised in the child is
raised again in the parent with the same diagnostics; anything else becomes
a ``RuntimeError`` carrying the child's traceback.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable
from typing import Generic, TypeVar

from schemac.diagnostics import SchemacError

T = TypeVar("T")


def can_fork() -> bool:
    """Whether this platform has ``os.fork`` (not Windows)."""
    return hasattr(os, "fork") and sys.platform != "win32"


class ForkedCall(Generic[T]):
    """``function()`` in a forked process; then exactly one of :meth:`result`,
    :meth:`raise_if_failed` or :meth:`discard`."""

    def __init__(self, function: Callable[[], T], what: str) -> None:
        assert can_fork()
        #: For messages: what the child does ("the late passes").
        self.what = what
        self._replies, reply_w = os.pipe()
        self._done = False
        pid = os.fork()
        if pid == 0:  # the child
            status = 1
            try:
                os.close(self._replies)
                status = _child(reply_w, function)
            finally:
                os._exit(status)
        self._pid = pid
        os.close(reply_w)

    def result(self) -> T:
        """Wait for the child; its return value, or what it raised."""
        data = self._finish()
        try:
            kind, payload = pickle.loads(data)
        except Exception:
            raise RuntimeError(f"the process running {self.what} died") from None
        if kind == "ok":
            return payload  # type: ignore[no-any-return]
        if kind == "error":
            error_type, diagnostics = payload
            raise error_type(diagnostics)
        raise RuntimeError(f"the process running {self.what} failed:\n{payload}")

    def raise_if_failed(self) -> None:
        """Wait for the child and raise the diagnostics it met, if any; drop its result.

        For a compile that failed in this process when the child's work
        would have come first in a run in order.
        """
        try:
            self.result()
        except SchemacError:
            raise
        except Exception:  # a crashed child: this process's own error is reported
            pass

    def discard(self) -> None:
        """Stop the child (this process is failing or being interrupted), also
        when an interrupt cut :meth:`result`'s wait for it short."""
        if not self._done:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            self._finish()

    def _finish(self) -> bytes:
        chunks = []
        if self._replies >= 0:
            while chunk := os.read(self._replies, 1 << 20):
                chunks.append(chunk)
            os.close(self._replies)
            self._replies = -1
        with contextlib.suppress(ChildProcessError):  # reaped before an interrupt
            os.waitpid(self._pid, 0)
        self._done = True  # only now: an interrupt before this leaves discard() to end it
        return b"".join(chunks)


def _child(reply: int, function: Callable[[], object]) -> int:
    gc.disable()
    message: tuple[str, object]
    try:
        message = ("ok", function())
    except SchemacError as error:
        message = ("error", (type(error), error.diagnostics))
    except BaseException:
        message = ("crash", traceback.format_exc())
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(reply, view) :]
    except OSError:
        return 1  # the parent is gone
    return 0
