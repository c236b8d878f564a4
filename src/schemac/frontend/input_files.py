"""Reading an input file's text: only regular files, of a bounded size, as UTF-8.

Every input (the YAML files and a ``--select`` file) goes through
:func:`read_input_text`, so that no path can make schemac hang or run out of
memory: a FIFO would block ``open`` for ever and ``/dev/zero`` or
``/dev/urandom`` never end, so anything that is not a regular file is
refused before it is read (opened with ``O_NONBLOCK``, which a FIFO without
a writer does not block on), and a regular file larger than
:data:`MAX_INPUT_BYTES` is refused unread.  Bytes that are not UTF-8 are
reported at their own line and column, not at 1:1.
"""

from __future__ import annotations

import errno
import os
import stat

from schemac.diagnostics import Diagnostic, Span

#: The largest input read: 64 MiB, a hundred times torch's native_functions.yaml.
MAX_INPUT_BYTES = 64 << 20

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class InputFileError(Exception):
    """Why a file cannot be read, as a diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _refuse(file: str, message: str, hint: str | None = None) -> InputFileError:
    return InputFileError(Diagnostic(Span.point(file, 1, 1), message, hint))


def read_input_text(path: str | os.PathLike[str], file: str, what: str = "") -> str:
    """The text of ``path`` (named ``file`` in messages); raises :class:`InputFileError`.

    ``what`` prefixes the "cannot read" messages (``selection file``).
    """
    label = f"{what} {file}".strip() if what else file
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        missing = f"cannot read {label}: no such file" if what else f"no such file: {file}"
        raise _refuse(file, missing) from None
    except OSError as error:
        raise _refuse(file, f"cannot read {label}: {error}") from None
    try:
        info = os.fstat(handle)
        if stat.S_ISDIR(info.st_mode):
            why = IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
            raise _refuse(file, f"cannot read {label}: {why}")
        kind = next((name for test, name in _KINDS if test(info.st_mode)), None)
        if kind is not None or not stat.S_ISREG(info.st_mode):
            raise _refuse(
                file,
                f"cannot read {label}: it is {kind or 'not a regular file'}",
                "schemac reads inputs from regular files only",
            )
        if info.st_size > MAX_INPUT_BYTES:
            raise _refuse(
                file,
                f"cannot read {label}: it is {info.st_size:,} bytes; inputs may be at most"
                f" {MAX_INPUT_BYTES >> 20} MiB",
            )
        data = _read_at_most(handle, MAX_INPUT_BYTES + 1)
    except OSError as error:
        raise _refuse(file, f"cannot read {label}: {error}") from None
    finally:
        os.close(handle)
    if len(data) > MAX_INPUT_BYTES:  # it grew while being read
        raise _refuse(file, f"cannot read {label}: it is over {MAX_INPUT_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputFileError(_decode_diagnostic(file, label, data, error)) from None


def _read_at_most(handle: int, limit: int) -> bytes:
    chunks = []
    size = 0
    while size < limit:
        chunk = os.read(handle, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _decode_diagnostic(file: str, label: str, data: bytes, error: UnicodeDecodeError) -> Diagnostic:
    """Where the first byte that is not UTF-8 is: its line, and its column in characters."""
    start = error.start
    line_start = data.rfind(b"\n", 0, start) + 1
    line = data.count(b"\n", 0, start) + 1
    column = len(data[line_start:start].decode("utf-8", errors="replace")) + 1
    bad = data[start : max(error.end, start + 1)]
    shown = " ".join(f"0x{b:02x}" for b in bad[:4])
    return Diagnostic(
        Span.point(file, line, column),
        f"cannot read {label}: invalid UTF-8, can't decode byte {shown} ({error.reason})",
        "input files must be UTF-8 text",
    )
