"""Keeping Python's cyclic garbage collector off the module while ATen emits.

Emission runs while the whole resolved module (hundreds of thousands of
frozen IR objects) is alive, and every automatic collection of the oldest
generation walks all of them and frees none: measured, about a quarter of
the ATen emission time.  :func:`module_frozen` moves every object alive when
emission starts into the collector's permanent generation and back
afterwards, so collections only walk what emission itself allocates.
Unlike pausing the collector (what the pass manager and the autograd backend
do), the reference cycles Mako leaves per rendered file are still freed:
pausing raised the peak memory of a full ATen run by 20 MB, freezing by 4 MB,
for the same time saved.  Nothing but speed changes.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def module_frozen() -> Iterator[None]:
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
