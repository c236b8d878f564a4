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

Note [Autograd pieces]
~~~~~~~~~~~~~~~~~~~~~~
After an edit of one operator only its kernels and the nodes of its infos
can change, so the kernels (VariableType, TraceType, ADInplaceOrView) and the
backward nodes (Functions.h/.cpp) are printed in buckets of fragments (Note
[Fragment buckets] in :mod:`schemac.backends.buckets`): a kernel's view is
made only when its bucket misses.  A kernel's piece is its
:class:`~.operators.OperatorPlan` (with VariableType's autograd key), whose key
is ``OperatorPlan.reuse_fields``: the function, its :class:`FunctionAutograd`
(every info and forward formula it ends up with, whichever entry or function
they came from), its abstractness and the foreach element arguments, which is
everything a plan's other fields are computed from; the release's policy and
the templates are the run's.  A node's piece is its info and the conventions
of the function it was resolved against.  The functions, the infos and the
plans are remembered by the run's fingerprints, so a key costs a few digests
once another target (the headers) has digested the functions.

Which kernels a file holds, their order and their registration lines are
decided every run from the plans, outside the pieces.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from schemac.backends import buckets
from schemac.backends.templating import Templates

#: Ends each kernel's text in the partial template's output, as it ends each
#: piece of a bucket.  No generated C++ contains a NUL character; if one ever
#: did, the count checks fail loudly.
SEPARATOR = buckets.SEPARATOR


@attrs.frozen
class KernelBatch:
    """What a kernels partial (``_*_kernels.mako``) is rendered with."""

    #: Emptied once printed (see the module docstring).
    kernels: list[object]
    separator: str = SEPARATOR


def printed_kernels(templates: Templates, template: str, kernels: Sequence[object]) -> str:
    """``template``'s output for ``kernels``: each kernel's text followed by
    :data:`SEPARATOR` (a bucket's text, Note [Fragment buckets])."""
    batch = KernelBatch(list(kernels))
    output = templates.render(template, batch)
    batch.kernels.clear()
    return output


def kernel_texts(templates: Templates, template: str, kernels: Sequence[object]) -> list[str]:
    """The text of each of ``kernels``, in order, as ``template`` prints it."""
    output = printed_kernels(templates, template, kernels)
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
