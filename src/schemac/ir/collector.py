"""Keeping Python's cyclic garbage collector from re-walking freshly built IR.

Loading a module and running passes allocate a few hundred thousand frozen IR
objects that stay alive for the rest of the compile and contain no reference
cycles.  Left to itself the collector would walk them in every young
collection during the build, then again in the first young collection after
it (~0.02-0.05 s), again when they are promoted to the middle generation
(~0.05-0.1 s) and finally in a full collection: all of it work that finds
nothing.  :func:`building_ir` pauses the collector while IR is built and, on
success, moves what survived straight into the oldest generation, which is
where those collections would have put it (``gc.freeze`` followed by
``gc.unfreeze``: two list splices, no traversal).  Garbage cycles that were
created meanwhile are still found by the next full collection.

Nothing global is left changed: the collector's on/off state is restored, and
the promotion is skipped when a caller has frozen objects of its own (unfreezing
would release them).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def building_ir(*, pause: bool = True) -> Iterator[None]:
    """Pause the collector while IR is built; promote the survivors on success."""
    if not pause:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        promote_survivors()
    finally:
        if was_enabled:
            gc.enable()


def promote_survivors() -> None:
    """Move every object the collector tracks into its oldest generation, unwalked."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
