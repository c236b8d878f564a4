"""Running the selected backends over a module and gathering their files.

The one place that calls ``emit``: per target, every backend answering it, in
registry order.  It stamps each file with its target (the manifest needs it)
and adds it to one :class:`~schemac.backends.output.OutputSet`, which rejects
bad and duplicate paths.  Nothing here touches the disk.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from schemac.backends.output.files import GeneratedFile, OutputSet
from schemac.backends.registry import EmitOptions, backends_for
from schemac.ir.module import Module


def emit_targets(module: Module, targets: Sequence[str]) -> tuple[GeneratedFile, ...]:
    """Every file the ``targets`` produce for ``module``, sorted by path.

    Raises :class:`~schemac.backends.output.OutputError` for bad or duplicate
    paths, and whatever :class:`~schemac.diagnostics.SchemacError` a backend
    raises for input it cannot express.
    """
    output = OutputSet()
    for target in targets:
        options = EmitOptions(target=target)
        for entry in backends_for(target):
            backend = entry.load()
            for file in backend.emit(module, options):
                output.add(attrs.evolve(file, target=target))
    return output.files()
