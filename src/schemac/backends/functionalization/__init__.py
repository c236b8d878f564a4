"""``-t functionalization``: the Functionalize key's kernels, ViewMeta classes, view inverses.

:mod:`.plan` reads the variant families and view groups of the IR and
decides what each contributes; :mod:`.mutation` and :mod:`.views` print the
kernels, :mod:`.view_meta` the ViewMeta classes and inverse declarations,
:mod:`.arguments` the unwrapping every kernel starts with; :mod:`.backend`
lays them out in files.  See docs/backends.md, "The functionalization target".
"""
