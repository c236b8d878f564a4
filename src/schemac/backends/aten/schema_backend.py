"""The ``schema`` target: the operator-library files that need no kernel knowledge.

RegisterSchema.cpp, ATenOpList.cpp, aten_interned_strings.h and enum_tag.h
depend only on operator names, schemas and tags, so they are one small backend
that runs without the dispatch-resolution results the kernel backends need.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.aten.enum_tag import emit_enum_tag_header
from schemac.backends.aten.interned_strings import emit_interned_strings
from schemac.backends.aten.op_list import emit_op_list
from schemac.backends.aten.register_schema import emit_register_schema
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates
from schemac.ir.module import Module


@attrs.frozen
class SchemaBackend:
    name: str = "aten-schema"
    description: str = "RegisterSchema.cpp, ATenOpList.cpp, aten_interned_strings.h, enum_tag.h"
    targets: tuple[str, ...] = ("schema",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        templates = Templates(__package__ or "")
        return (
            emit_register_schema(module, templates),
            emit_op_list(module, templates),
            emit_interned_strings(module, templates),
            emit_enum_tag_header(module, templates),
        )


BACKEND = SchemaBackend()
