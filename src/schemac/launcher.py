"""The ``schemac`` command: the no-op check first, then the command line proper.

``schemac compile`` into an output directory that is already up to date
(Note [Up-to-date check] in :mod:`schemac.rebuild`) stops after checking
that, having imported only the standard library and :mod:`schemac.rebuild`:
no argparse tree, no grammar, no IR, no templates.  Everything else goes to
:func:`schemac.cli.main`.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

#: What a command left for the process's end to drop: a list only under
#: :func:`run`, which ends in ``os._exit`` (Note [Left to os._exit]).
_left: list[object] | None = None


def leave_to_exit(*values: object) -> None:
    """Keep ``values`` referenced until the process ends, if it ends in :func:`run`'s
    ``os._exit``; otherwise (an importer calling :func:`main`) do nothing.

    Note [Left to os._exit]
    ~~~~~~~~~~~~~~~~~~~~~~~
    :func:`run` leaves without tearing the heap down, but a compile's IR
    (the loaded module, the passes' result, the record of the last run) was
    freed before that, one object at a time by reference counting, when the
    functions holding it returned: ~15-25 ms of the parent's serial end of
    an edit's re-run of torch's ``-t all``, and ~5 ms more for the record,
    after the state is written and before the process ends.  Handed here,
    they stay referenced and the ``os._exit`` drops them with the address
    space.  The peak memory is unchanged: they were alive until then anyway.
    Everything that must reach a file is written and closed before (the
    commit, the state, the fragments), and streams are flushed by :func:`run`.
    """
    if _left is not None:
        _left.extend(values)


def main(argv: Sequence[str] | None = None, *, cache_code: bool = False) -> int:
    """``cache_code``: compile attrs' class methods through the cache of
    Note [Cached attrs methods], and regular expressions through that of
    Note [Cached regular expressions] (the console script; not for importers)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    from schemac.rebuild.fingerprint import OneCommand

    # The check and the compile's record share one run key (OneCommand).
    with OneCommand():
        return _main(arguments, cache_code)


def _main(arguments: list[str], cache_code: bool) -> int:
    from schemac.rebuild.noop import up_to_date

    if up_to_date(arguments):
        return 0
    code_cache = regex_cache = None
    if cache_code:
        # Patterns first: attrs' own imports compile some (platform's).
        from schemac import regex_cache as regexes
        from schemac.attrs_code import install

        regex_cache = regexes.install()
        code_cache = install()
    from schemac.cli import main as cli_main

    try:
        return cli_main(arguments)
    finally:
        if code_cache is not None:
            code_cache.save()
        if regex_cache is not None:
            regex_cache.save()
            regex_cache.uninstall()  # an importer calling main() keeps its own re


def run() -> None:
    """The console script: :func:`main`, then leave without tearing the heap down.

    Freeing a compile's hundreds of thousands of IR objects one by one at
    interpreter exit costs more than the no-op path itself; the output is
    committed and every stream flushed before ``os._exit``.
    """
    # The process ends in os._exit without freeing its heap, and a compile
    # leaves no cyclic garbage worth collecting (rendered templates break
    # their own cycles; the classes attrs replaced are collected once, before
    # the load: Note [Class garbage collected before the load] in
    # schemac.cli_compile): every automatic collection would walk the whole
    # module and free next to nothing (0.5-0.8 s of a cold ``-t all``).
    gc.disable()
    global _left
    _left = []
    code = main(cache_code=True)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = code or 0
    os._exit(code)
