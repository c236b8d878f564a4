"""Which host template files each target splices, and whether they are the target release's.

Note [Host text of another release]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Host text (:mod:`schemac.ir.host`) is PyTorch's hand-written C++ around the
generated lists, and it changes between releases: 2.14's ``TensorBody.h``
dropped ``is_variable()``, 2.15's Python templates use ``TORCH_CHECK_PYTHON``.
``--torch`` reads it from the torch it finds, which need not be the release
``--torch-version`` names.  Spliced into the other release's output, that text
gives files of neither release (a 2.13 ``TensorBody.h`` does not compile
against 2.14's headers).

So each release profile records a digest of every host file schemac splices
(table ``host_template_digests``, extracted from the wheel).  When the host
text comes from a torch of another release than the target, every file the
selected targets splice is compared with the target's digest: a file that
differs is an error (the output would be wrong); when none differs, one
warning says where the text came from.  ``--host-templates DIR`` is the user
naming the text explicitly, and is used as given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from schemac.digests import sha256
from schemac.ir.host import ATEN, AUTOGRAD, HostFile, HostTemplates
from schemac.profiles import ReleaseProfile

_PYTHON_TEMPLATES = tuple(
    f"{AUTOGRAD}/python_{name}.cpp"
    for name in (
        "variable_methods",
        "torch_functions",
        "nn_functions",
        "fft_functions",
        "linalg_functions",
        "nested_functions",
        "sparse_functions",
        "special_functions",
    )
)

#: Target -> the host files (:attr:`HostFile.name`) its backends splice when
#: given (docs/backends.md, "Host text"; a test checks it against what the
#: backends ask for).
SPLICED_BY_TARGET: Mapping[str, tuple[str, ...]] = {
    "headers": tuple(
        f"{ATEN}/{name}"
        for name in ("Functions.h", "TensorBody.h", "Functions.cpp", "TensorMethods.cpp")
    ),
    "autograd": (f"{AUTOGRAD}/variable_factories.h",),
    "python": _PYTHON_TEMPLATES,
}

#: Every host file some target splices, in a stable order.
SPLICED_FILES: tuple[str, ...] = tuple(
    dict.fromkeys(name for names in SPLICED_BY_TARGET.values() for name in names)
)

#: The profile table of the digests.
DIGESTS = "host_template_digests"


def host_text_digest(text: str) -> str:
    """The digest a profile records for one host file's text."""
    return sha256(text.encode("utf-8")).hexdigest()[:16]


@attrs.frozen
class HostComparison:
    """The host files a run splices, compared with the target release's."""

    #: Files whose text differs from the target release's.
    differing: tuple[HostFile, ...]
    #: Files with the target release's text.
    same: tuple[HostFile, ...]
    #: Files the target's profile records no digest for.
    unknown: tuple[HostFile, ...]


def compare_host_text(
    host: HostTemplates, targets: Iterable[str], profile: ReleaseProfile
) -> HostComparison:
    """How the host files the ``targets`` splice compare with ``profile``'s release."""
    expected = profile.table(DIGESTS)
    names = dict.fromkeys(name for t in targets for name in SPLICED_BY_TARGET.get(t, ()))
    differing: list[HostFile] = []
    same: list[HostFile] = []
    unknown: list[HostFile] = []
    for name in names:
        file = host.files.get(name)
        if file is None:
            continue
        digest = expected.get(name)
        if digest is None:
            unknown.append(file)
        elif digest == host_text_digest(file.text):
            same.append(file)
        else:
            differing.append(file)
    return HostComparison(tuple(differing), tuple(same), tuple(unknown))
