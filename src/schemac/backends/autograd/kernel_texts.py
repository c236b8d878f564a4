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

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import attrs

from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates

T = TypeVar("T")

#: Ends each kernel's text in the partial template's output.  No generated C++
#: contains a NUL character; if one ever did, the count check below fails loudly.
SEPARATOR = "\0"


@attrs.frozen
class KernelBatch:
    """What a kernels partial (``_*_kernels.mako``) is rendered with."""

    #: Emptied once printed (see the module docstring).
    kernels: list[object]
    separator: str = SEPARATOR


def printed_kernels(templates: Templates, template: str, kernels: Sequence[object]) -> str:
    """``template``'s output for ``kernels``: each kernel's text followed by :data:`SEPARATOR`."""
    batch = KernelBatch(list(kernels))
    output = templates.render(template, batch)
    batch.kernels.clear()
    return output


def split_kernels(output: str, count: int, what: str) -> list[str]:
    """The ``count`` kernel texts of ``output`` (:func:`printed_kernels`), in order."""
    texts = output.split(SEPARATOR)
    trailing = texts.pop()
    if trailing or len(texts) != count:
        raise AssertionError(
            f"{what}: {count} kernels printed as {len(texts)} texts"
            f" (a kernel must contain no {SEPARATOR!r} and nothing may follow the last one)"
        )
    return texts


def kernel_texts(templates: Templates, template: str, kernels: Sequence[object]) -> list[str]:
    """The text of each of ``kernels``, in order, as ``template`` prints it."""
    return split_kernels(printed_kernels(templates, template, kernels), len(kernels), template)


def shard_kernel_texts(
    fragments: Fragments,
    render: Callable[[Any, tuple[str, tuple[T, ...]]], str],
    label: str,
    shards: Sequence[Sequence[T]],
    context: object,
) -> list[list[str]]:
    """The kernel texts of each shard's pieces, one fragment per shard.

    Note [Kernel shard fragments]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    After an edit of one operator only the kernels of its shards can change,
    so each shard's kernels are one fragment of the last run (Note [Fragment
    reuse]): ``render(context, (label, pieces))`` prints a shard's kernels
    (:func:`printed_kernels`) from its pieces alone, each piece being what its
    kernel is made from (an :class:`~.operators.OperatorPlan`, whose key is its
    function, derivative infos and abstractness, and for VariableType the
    autograd key).  ``label`` names the family, so families sharing a render
    function never share a fragment.  The shard is the natural bucket (Note
    [Fragment buckets]): its file must be made again anyway when one of its
    kernels changes, and ten buckets of ~160 kernels cost less to print than
    64 smaller ones (Mako's per-call setup), while an edit still prints only
    about a tenth of the kernels.
    """
    texts: list[list[str]] = []
    for pieces in shards:
        if not pieces:
            texts.append([])
            continue
        output = fragments.text(render, (label, tuple(pieces)), context)
        texts.append(split_kernels(output, len(pieces), label))
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
