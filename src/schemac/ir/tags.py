"""Tags from tags.yaml: names that an operator's ``tags:`` may use."""

from __future__ import annotations

import attrs

from schemac.diagnostics import NO_SPAN, Span


@attrs.frozen
class TagDefinition:
    name: str
    description: str
    span: Span = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)
