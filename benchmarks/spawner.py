"""The bench's timed child processes, started from a small process of their own.

Why: on Linux a child's ``ru_maxrss`` counts the memory it had before its
``exec``.  ``exec`` folds the old address space's high-water mark into the
process's peak, and ``subprocess`` starts a child with ``vfork``, so until it
execs the child shares its parent's address space: every child's peak RSS was
at least the bench process's own.  After the in-process front-end and
middle-end benches the bench process holds ~72 MiB, which floored schemac's
and torchgen's rows alike (2026-12-02: ``-t autograd``, ``-t python`` and
torchgen's headers all read 72.6 MiB).  A :class:`Spawner` is forked when the
bench starts, while it is small (~15 MiB), and starts every timed child; what
it measures (wall time, CPU time, peak RSS from ``os.wait4``) is the child's.
"""

from __future__ import annotations

import os
import pickle
import struct
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Spawned:
    """One finished child: its times, peak RSS (KiB on Linux), exit code and output."""

    wall: float
    user: float
    system: float
    maxrss: int
    returncode: int
    stdout: bytes
    stderr: bytes


class Spawner:
    """A forked helper that runs commands one at a time and reports on each."""

    def __init__(self) -> None:
        requests, self._requests = os.pipe()
        self._replies, replies = os.pipe()
        self._pid = os.fork()
        if self._pid == 0:  # the spawner
            status = 1
            try:
                os.close(self._requests)
                os.close(self._replies)
                _serve(requests, replies)
                status = 0
            finally:
                os._exit(status)
        os.close(requests)
        os.close(replies)

    def run(
        self,
        argv: Sequence[str],
        cwd: Path | str,
        env: dict[str, str] | None = None,
        *,
        capture_stdout: bool = False,
    ) -> Spawned:
        _send(self._requests, (list(argv), str(cwd), env, capture_stdout))
        reply = _receive(self._replies)
        assert isinstance(reply, Spawned)
        return reply


def _serve(requests: int, replies: int) -> None:
    while (request := _receive(requests)) is not None:
        argv, cwd, env, capture_stdout = request
        _send(replies, _spawn(argv, cwd, env, capture_stdout))


def _spawn(argv: list[str], cwd: str, env: dict[str, str] | None, capture: bool) -> Spawned:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=out if capture else subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return Spawned(
            wall,
            usage.ru_utime,
            usage.ru_stime,
            usage.ru_maxrss,
            proc.returncode,
            out.read(),
            err.read()[-4000:],
        )


def _send(fd: int, value: object) -> None:
    data = pickle.dumps(value)
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int) -> object:
    head = _read_exactly(fd, 8)
    if head is None:
        return None
    (size,) = struct.unpack("<Q", head)
    body = _read_exactly(fd, size)
    assert body is not None, "the other end closed in the middle of a message"
    return pickle.loads(body)


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


_SPAWNER: list[Spawner] = []


def spawner() -> Spawner:
    """The bench's spawner, forked on first use (``python -m benchmarks`` asks first thing)."""
    if not _SPAWNER:
        _SPAWNER.append(Spawner())
    return _SPAWNER[0]
