"""Staging output files in a helper process while the backends still emit.

Creating thousands of files is kernel time, and on some file systems a lot
of it: on ext4 without a journal, creating a file near many recently deleted
ones scans past each of them (up to 0.4 ms a file), so staging the 7,700
ATen outputs costs anywhere from 0.2 s to 3 s depending on what else ran.
That time need not be added to the Python time of emitting them.  A
:class:`BackgroundStager` forks a helper process (:class:`StagerOnDemand`: once
the compile has produced enough files to make that worth it);
each file the driver accepts is handed over as it is produced, and the
helper compares and stages it (:class:`~.staging.Stager`) on the other core
while the next file is being generated.

Files travel down a pipe (a small header, the path, the bytes, in batches
of 256 KiB) whose buffer is enlarged to 1 MiB.  The helper replies with each
file's status and the SHA-256 of its bytes (:attr:`.staging.Staged.digests`),
hashed on its core, so that the emitting process may drop a text once the
helper has it.  When the helper falls
behind, the emitting process waits on the full pipe; that costs no time
overall, because the compile cannot end before the helper has staged the
last file anyway, and the helper is never short of work while it waits.
No second copy of the outputs piles up anywhere.

Determinism and atomicity are those of the in-process path: the helper writes
only into the staging directory, the main process still decides everything
after the last backend succeeded (:func:`~.commit.commit`), and a failed
compile discards the staging directory.  The helper exits through
``os._exit``: it never runs the parent's clean-up code or flushes its
buffers.  ``schemac compile -j 1`` does everything in one process.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import struct
import sys
from pathlib import Path

from schemac.backends.output.staging import Staged, Stager

#: The header of one file on the pipe: path length, data length.
_HEADER = struct.Struct("<II")
#: A path length no path has: the last header of a successful compile.
_DONE = 0xFFFFFFFF
#: Files are sent in batches of about this many bytes: a write and a wake-up
#: per file cost more system time than the copying.
_BATCH_SIZE = 256 << 10
#: Bytes per pipe read.
_READ_SIZE = 1 << 20
#: Pipe buffer asked for (Linux caps unprivileged requests at 1 MiB by default).
_PIPE_SIZE = 1 << 20


def can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32"


def _grow_pipe(handle: int) -> None:
    try:
        import fcntl

        fcntl.fcntl(handle, getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE_SIZE)
    except (ImportError, OSError):
        pass  # a smaller pipe only means the emitting process waits sooner


def _write_all(handle: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view) :]


class BackgroundStager:
    """A :class:`~.staging.Stager` running in a forked helper process.

    ``add`` hands a file over; ``result`` waits for the helper and returns
    what it staged (raising :class:`OSError` if staging failed); ``discard``
    stops it and removes whatever it staged.  Exactly one of the two must be
    called.
    """

    def __init__(self, out_dir: Path) -> None:
        files_r, self._files = os.pipe()
        self._replies, reply_w = os.pipe()
        _grow_pipe(self._files)
        first_compile = not out_dir.is_dir()
        self._broken = False
        self._batch: list[bytes] = []
        self._batch_size = 0
        self._reply: str | None = None
        pid = os.fork()
        if pid == 0:  # the helper
            status = 1
            try:
                os.close(self._files)
                os.close(self._replies)
                status = _helper(files_r, reply_w, str(out_dir), first_compile)
            finally:
                os._exit(status)
        self._pid = pid
        os.close(files_r)
        os.close(reply_w)

    def add(self, path: str, data: bytes) -> None:
        encoded = path.encode("utf-8")
        self._batch += (_HEADER.pack(len(encoded), len(data)), encoded)
        if len(data) >= _BATCH_SIZE:
            # A large file (OperatorsEverything.cpp: 3 MB) goes down the pipe
            # as it is: joining it into a batch would copy it at the peak.
            self._flush()
            self._send(data)
            return
        self._batch.append(data)
        self._batch_size += _HEADER.size + len(encoded) + len(data)
        if self._batch_size >= _BATCH_SIZE:
            self._flush()

    def _flush(self) -> None:
        """Send the batched files: one write and one wake-up of the helper per batch."""
        batch, self._batch, self._batch_size = self._batch, [], 0
        if batch:
            self._send(b"".join(batch))

    def _send(self, data: bytes) -> None:
        if self._broken:
            return  # after a failure, result() reports why
        try:
            _write_all(self._files, data)
        except BrokenPipeError:
            self._broken = True

    def result(self) -> Staged:
        self._flush()
        if not self._broken:
            with contextlib.suppress(BrokenPipeError):
                os.write(self._files, _HEADER.pack(_DONE, 0))
        reply = self._finish()
        head, _, body = reply.partition("\n")
        kind, _, detail = head.partition("\t")
        if kind != "ok":
            raise OSError(detail or "the process staging the outputs failed")
        status: dict[str, str] = {}
        digests: dict[str, str] = {}
        for line in body.splitlines():
            letter, _, rest = line.partition("\t")
            digest, _, path = rest.partition("\t")
            status[path] = letter
            digests[path] = digest
        return Staged(detail or None, status, digests)

    def discard(self) -> None:
        self._finish()

    def _finish(self) -> str:
        """Close the hand-over, read the helper's reply and reap it (once)."""
        if self._reply is not None:
            return self._reply
        self._reply = "error\tthe process staging the outputs was already stopped"
        os.close(self._files)
        chunks = []
        while chunk := os.read(self._replies, 1 << 16):
            chunks.append(chunk)
        os.close(self._replies)
        _, wait_status = os.waitpid(self._pid, 0)
        if os.waitstatus_to_exitcode(wait_status) != 0 and not chunks:
            self._reply = "error\tthe process staging the outputs died"
        else:
            self._reply = b"".join(chunks).decode("utf-8", errors="replace")
        return self._reply


def _helper(files: int, reply: int, out_dir: str, first_compile: bool) -> int:
    """The helper's whole life: stage what arrives, reply, return an exit status."""
    # It only moves bytes; a collection would walk (and copy) the parent's heap.
    gc.disable()
    stager = Stager(out_dir, first_compile=first_compile)
    digests: dict[str, str] = {}
    done = False
    text: str
    try:
        pending = bytearray()
        start = 0  # of the first unparsed byte in pending
        while not done:
            chunk = os.read(files, _READ_SIZE)
            if not chunk:
                break  # the compile failed or was interrupted: discard
            pending += chunk
            while len(pending) - start >= _HEADER.size:
                path_size, data_size = _HEADER.unpack_from(pending, start)
                if path_size == _DONE:
                    done = True
                    break
                end = start + _HEADER.size + path_size + data_size
                if len(pending) < end:
                    break
                path_start = start + _HEADER.size
                data_start = path_start + path_size
                path = pending[path_start:data_start].decode("utf-8")
                data = bytes(pending[data_start:end])
                stager.add(path, data)
                digests[path] = hashlib.sha256(data).hexdigest()
                start = end
            del pending[:start]
            start = 0
    except BaseException as error:  # reported to the parent, which raises OSError
        stager.discard()
        text = f"error\t{type(error).__name__}: {error}".replace("\n", " ")
    else:
        if done:
            staged = stager.result()
            lines = [f"ok\t{staged.staging or ''}"]
            lines += [f"{letter}\t{digests[p]}\t{p}" for p, letter in staged.status.items()]
            text = "\n".join(lines) + "\n"
        else:
            stager.discard()
            text = "aborted\t"
    try:
        _write_all(reply, text.encode("utf-8"))
    except OSError:
        return 1
    return 0


#: Files a compile hands over before the helper process is started.  A
#: compile that makes fewer (``-t python`` writes 19) stages them in line:
#: forking, and copying the pages the forked helper shares with the emitting
#: process, cost more than staging a few files (measured on ``-t python``:
#: about 0.05 s more CPU and no wall time saved).
HELPER_THRESHOLD = 128


class StagerOnDemand:
    """A :class:`BackgroundStager` started only once :data:`HELPER_THRESHOLD` files arrived.

    Until then the files wait here; :meth:`result` is None if the helper was
    never started (the caller stages in line, as with ``-j 1``).
    """

    def __init__(self, out_dir: Path, threshold: int | None = None) -> None:
        self._out_dir = out_dir
        self._threshold = HELPER_THRESHOLD if threshold is None else threshold
        self._waiting: list[tuple[str, bytes]] = []
        self._helper: BackgroundStager | None = None

    def add(self, path: str, data: bytes) -> list[str]:
        """Hand a file over; the paths of the files the helper received with this
        call (none while waiting, all waiting ones when it starts), whose texts
        the caller need not keep."""
        if self._helper is not None:
            self._helper.add(path, data)
            return [path]
        self._waiting.append((path, data))
        if len(self._waiting) < self._threshold:
            return []
        self._helper = BackgroundStager(self._out_dir)
        for waiting in self._waiting:
            self._helper.add(*waiting)
        handed = [waiting_path for waiting_path, _ in self._waiting]
        self._waiting.clear()
        return handed

    @property
    def started(self) -> bool:
        return self._helper is not None

    def result(self) -> Staged | None:
        return None if self._helper is None else self._helper.result()

    def discard(self) -> None:
        if self._helper is not None:
            self._helper.discard()
