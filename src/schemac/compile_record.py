"""Recording a successful ``schemac compile`` for the next run's no-op check.

The glue between the compile (which knows the files it wrote) and
:mod:`schemac.rebuild` (which must not import the backends, so that the
no-op path stays light): :func:`start_recording` before the compile reads
anything, :meth:`Recording.finish` after it committed.  Note [Up-to-date
check] in :mod:`schemac.rebuild` says what is recorded and why it is safe.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from schemac.backends.driver import CompileResult
from schemac.backends.output import MANIFEST_NAME, GeneratedFile
from schemac.rebuild.fingerprint import run_key
from schemac.rebuild.inputs import InputRecorder
from schemac.rebuild.state import up_to_date_files, write_state

#: Set to any value to neither use nor write ``OUT/.schemac-state``.
DISABLE_VARIABLE = "SCHEMAC_NO_STATE"


class Recording:
    """One compile being watched: its key and the files it reads."""

    def __init__(self, argv: Sequence[str], out_dir: Path) -> None:
        self.out_dir = out_dir
        # Keyed before anything is read: code edited during the run makes a
        # key that the next run, reading the new code, does not match.
        self.key = run_key(argv)
        self.recorder = InputRecorder(out_dir)
        self.recorder.start()

    def stop(self) -> None:
        self.recorder.stop()

    def finish(
        self, result: CompileResult, auxiliary: Sequence[Path | None], extra_inputs: Sequence[str]
    ) -> bool:
        """Write the state for a committed ``result``; False if it was not recorded."""
        self.recorder.stop()
        if not self.out_dir.is_dir():
            return False
        if not result.report.changed and up_to_date_files(str(self.out_dir), lambda: self.key):
            # The state already describes OUT: an unchanged run touches nothing.
            return True
        by_path = {f.path: f for f in result.files}

        def expected(path: str) -> bytes | None:
            file = by_path.get(path)
            return None if file is None else file.data

        bookkeeping = [MANIFEST_NAME] if (self.out_dir / MANIFEST_NAME).is_file() else []
        try:
            return self._write(result, expected, bookkeeping, auxiliary, extra_inputs, by_path)
        except OSError:
            # Only a cache: without it the next run is a full one.
            return False

    def _write(
        self,
        result: CompileResult,
        expected: Callable[[str], bytes | None],
        bookkeeping: list[str],
        auxiliary: Sequence[Path | None],
        extra_inputs: Sequence[str],
        by_path: dict[str, GeneratedFile],
    ) -> bool:
        return write_state(
            self.out_dir,
            self.key,
            inputs={*self.recorder.read_files(), *(os.path.abspath(p) for p in extra_inputs)},
            directories=self.recorder.listed_directories(),
            generated=by_path,
            bookkeeping=bookkeeping,
            auxiliary=[os.path.abspath(p) for p in auxiliary if p is not None],
            expected=expected,
        )


def start_recording(argv: Sequence[str], out_dir: Path, dry_run: bool) -> Recording | None:
    """A :class:`Recording` of this compile, or None if it must not leave a state."""
    if dry_run or os.environ.get(DISABLE_VARIABLE):
        return None
    return Recording(argv, out_dir)
