"""Printing each kernel once, for its shard file and for the Everything file.

Every VariableType and TraceType kernel appears twice in the output: in the
shard its operator hashes to (``VariableType_3.cpp``) and in the file holding
all of them (``VariableTypeEverything.cpp``), in another order.  Rendering the
kernels through the file templates would print each one twice, so a partial
template prints every kernel once, each followed by :data:`SEPARATOR`, and the
file templates paste the texts.  One render call for all kernels keeps Mako's
per-call setup out of the loop.

Mako leaves every rendered template's context in a reference cycle, which
keeps the view it was rendered with alive until the cyclic collector runs.
The kernel views are most of what the autograd backend allocates (~40,000
objects for torch), so the batch lets go of them once printed: they are then
freed by reference counting, not by a later collection walking them all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from schemac.backends.templating import Templates

#: Ends each kernel's text in the partial template's output.  No generated C++
#: contains a NUL character; if one ever did, the count check below fails loudly.
SEPARATOR = "\0"


@attrs.frozen
class KernelBatch:
    """What a kernels partial (``_*_kernels.mako``) is rendered with."""

    #: Emptied once printed (see the module docstring).
    kernels: list[object]
    separator: str = SEPARATOR


def kernel_texts(templates: Templates, template: str, kernels: Sequence[object]) -> list[str]:
    """The text of each of ``kernels``, in order, as ``template`` prints it."""
    batch = KernelBatch(list(kernels))
    output = templates.render(template, batch)
    batch.kernels.clear()
    texts = output.split(SEPARATOR)
    trailing = texts.pop()
    if trailing or len(texts) != len(kernels):
        raise AssertionError(
            f"{template}: {len(kernels)} kernels printed as {len(texts)} texts"
            f" (a kernel must contain no {SEPARATOR!r} and nothing may follow the last one)"
        )
    return texts


#: (library, ``m.impl(...)`` lines) per ``TORCH_LIBRARY_IMPL`` block.
Registrations = tuple[tuple[str, tuple[str, ...]], ...]


def registrations_by_library(lines: Iterable[tuple[str, str]]) -> Registrations:
    """(library, registration line) pairs grouped per library, ``aten`` first.

    The shard views carry these strings rather than the kernel views, so that
    the views are freed once printed (see the module docstring).
    """
    groups: dict[str, list[str]] = {}
    for namespace, line in lines:
        groups.setdefault(namespace, []).append(line)
    order = sorted(groups, key=lambda ns: (ns != "aten", ns))
    return tuple((ns, tuple(groups[ns])) for ns in order)
