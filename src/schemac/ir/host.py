"""Host text: PyTorch's own hand-written C++ that generated content is spliced into.

Some files PyTorch's build compiles are mostly hand-written C++ with a few
generated lists pasted in (``python_variable_methods.cpp`` holds
``Tensor.size``, ``Tensor.to`` and the ``__add__`` aliases beside the bound
operators; ``TensorBody.h`` is the ``at::Tensor`` class around its operator
methods).  That hand-written text belongs to PyTorch, exactly as
``native_functions.yaml`` does: schemac never carries a copy, it reads the
release's own template files at run time (the ``templates`` folders of the
torch that ``--torch`` finds, or ``--host-templates DIR``), like any other
input, and a backend splices its generated lists into them.

The text is loaded by the front end and kept in the module, so a backend stays
a pure function of the module and the depfile can name every host file.
"""

from __future__ import annotations

import attrs

from schemac.ir.frozen import FrozenMap

#: The two template folders PyTorch keeps, as the names host files are looked up under.
ATEN = "aten"
AUTOGRAD = "autograd"


@attrs.frozen
class HostFile:
    """One template file of the host (PyTorch) release."""

    #: ``<folder>/<file name>``: ``autograd/python_variable_methods.cpp``.
    name: str
    #: Where it was read from (for diagnostics and depfiles).
    path: str
    #: The whole text; not printed by the IR printers (``print: False``).
    text: str = attrs.field(repr=False, metadata={"print": False})


@attrs.frozen
class HostTemplates:
    """Every template file of one host release, by :attr:`HostFile.name`."""

    #: The directory the user named (or the torch package's ``packaged`` folder).
    root: str
    files: FrozenMap[str, HostFile] = attrs.field(factory=FrozenMap)

    def get(self, folder: str, name: str) -> HostFile | None:
        return self.files.get(f"{folder}/{name}")

    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files.values())
