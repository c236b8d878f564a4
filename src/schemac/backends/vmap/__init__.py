"""``-t vmap``: ``ATen/VmapGeneratedPlumbing.h``, functorch's batch-rule plumbing.

:mod:`.plumbing` decides which operators get plumbing and prints it;
:mod:`.backend` lays the functions out in the header.  See docs/backends.md,
"The vmap target".
"""
