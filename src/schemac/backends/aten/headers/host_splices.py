"""What PyTorch's own ``Functions.h`` and ``TensorBody.h`` templates are filled with.

With the host release's templates given (:mod:`schemac.ir.host`), these two
headers are PyTorch's hand-written text (the ``at::Tensor`` class, the
``at::numel``-style helpers) with schemac's generated lists spliced in by
:func:`schemac.backends.host_text.splice`; without them, the package's own
``Functions.h.mako`` / ``TensorBody.h.mako`` skeletons are used.
``Functions.cpp`` and ``core/TensorMethods.cpp`` have nothing generated in
them (the ``TensorMaker`` and ``Tensor::item<T>`` definitions) and are
written only from the host's text.  The keys
are the placeholder names of PyTorch's templates.
"""

from __future__ import annotations

from schemac.backends.aten.headers.functions import FunctionsUmbrella
from schemac.backends.aten.headers.tensor_body import TensorBody
from schemac.backends.host_text import Filling

#: Files that are the host's text with nothing generated in them (output path, template).
HOST_ONLY_SOURCES: tuple[tuple[str, str], ...] = (
    ("ATen/Functions.cpp", "Functions.cpp"),
    ("ATen/core/TensorMethods.cpp", "TensorMethods.cpp"),
)


def functions_h(umbrella: FunctionsUmbrella) -> dict[str, Filling]:
    # With per-operator headers every declaration lives in its ops/<op>.h.
    return {
        "Functions_includes": [f"#include <{path}>" for path in umbrella.includes],
        "Functions_declarations": [],
    }


def tensor_body_h(body: TensorBody, definitions: str) -> dict[str, Filling]:
    """``definitions``: the method definitions, rendered by ``tensor_method_definitions.mako``."""
    return {
        "tensor_method_declarations": list(body.declarations),
        "tensor_method_definitions": definitions.strip("\n"),
    }
