"""The back end: everything that turns a resolved :class:`~schemac.ir.module.Module` into files.

Backends read only the IR.  They never write to disk themselves: each returns
:class:`~schemac.backends.output.GeneratedFile` values, the driver gathers them
in an :class:`~schemac.backends.output.OutputSet` (which rejects bad or
duplicate paths) and :func:`~schemac.backends.output.commit` writes the set to
the output directory atomically.  See docs/backends.md.
"""
