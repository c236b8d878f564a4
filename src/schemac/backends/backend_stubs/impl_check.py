"""``--impl-path``: does the backend's source define every kernel the YAML promises?

A kernel the YAML lists but the sources never define is a link error much
later (or, for a shared library, an undefined symbol at import time).  This
check reads the given C++ files and counts definitions of the form
``<Class>::<kernel>(`` (any whitespace after ``::``), ignoring qualified
calls such as ``return ns::<Class>::empty(...)``: a match preceded by ``:``
is a use, not a definition.  Overloads share a kernel name, so the count of
definitions must equal the number of listed operators with that name.  Like
torchgen's check it is a text search, not a parse: it can miss a mistake
(the linker then reports it), but it never needs the backend's build.

Every mismatch is reported at the first YAML entry that asked for the
kernel, with the expected declarations in the hint.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from schemac.backends.backend_stubs.bind import BoundBackend, BoundKernel
from schemac.backends.backend_stubs.register import kernel_signature
from schemac.diagnostics import Diagnostic, Span


def defined_kernels(text: str, class_name: str) -> Counter[str]:
    pattern = re.compile(r"(.*)" + re.escape(class_name) + r"::\s*(\w*)\(")
    return Counter(name for prefix, name in pattern.findall(text) if not prefix.endswith(":"))


def missing_kernel_diagnostics(bound: BoundBackend, paths: list[Path]) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    texts = []
    for path in paths:
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError as error:
            problems.append(
                Diagnostic(
                    Span.point(str(path), 1, 1),
                    f"cannot read the --impl-path file: {error.strerror or error}",
                    "give the C++ files that define the backend's kernels",
                )
            )
    if problems:
        return problems
    class_name = bound.spec.kernel_class
    found: Counter[str] = Counter()
    for text in texts:
        found += defined_kernels(text, class_name)
    expected: dict[str, list[BoundKernel]] = {}
    for kernel in (*bound.forward.values(), *bound.backward.values()):
        expected.setdefault(kernel.kernel.name, []).append(kernel)
    for name, kernels in expected.items():
        if found[name] == len(kernels):
            continue
        first = min(kernels, key=lambda k: (k.entry.span.line, k.entry.span.column))
        declarations = "; ".join(kernel_signature(k).decl() for k in kernels)
        problems.append(
            Diagnostic(
                first.entry.span,
                f"{class_name} is missing a kernel definition for '{name}': found "
                f"{found[name]} definition(s) in the --impl-path files, expected {len(kernels)}",
                f"define: {declarations}",
            )
        )
    for _group, kernel in bound.structured:
        impl = f"structured_{kernel.kernel.name}"
        pattern = re.compile(re.escape(impl) + r"::\s*impl\(")
        if not any(pattern.search(text) for text in texts):
            problems.append(
                Diagnostic(
                    kernel.entry.span,
                    f"{class_name}::{impl}::impl is not defined in the --impl-path files",
                    f"define 'void {class_name}::{impl}::impl(...)' as declared in the header",
                )
            )
    return problems
