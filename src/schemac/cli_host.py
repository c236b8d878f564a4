"""The command line's check that host text belongs to the target release.

``--torch`` takes PyTorch's template text from the torch it finds; when
``--torch-version`` names another release, the files the selected targets
splice are compared with the target's (Note [Host text of another release]):
a file that differs is an error, naming both releases, since the output
would belong to neither; otherwise one warning says where the text came
from.  ``--host-templates DIR`` (the user's own choice of text) and the
``generic`` target (a library builds against the torch it finds) are not
checked.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from schemac.backends.host_release import compare_host_text
from schemac.cli_release import TargetRelease
from schemac.diagnostics import Diagnostic, InputError, Severity, Span
from schemac.frontend.torch_paths import installed_torch_version
from schemac.ir.module import Module
from schemac.profiles import GENERIC, release_key

_COMMAND_LINE = Span.point("<command line>", 0, 0)


def _other_release(args: argparse.Namespace, target: TargetRelease) -> str | None:
    """The found torch's version, when the host text is its and it is not the target."""
    if not args.torch or args.host_templates is not None or args.torch_version is None:
        return None  # explicit text, or the target is the found torch itself
    if target.profile.release == GENERIC:
        return None
    found = installed_torch_version()
    if found is None or release_key(found) == release_key(args.torch_version):
        return None
    return found


def host_release_warnings(
    args: argparse.Namespace, target: TargetRelease, module: Module, targets: Sequence[str]
) -> list[Diagnostic]:
    """The warnings about the host text of this run; raises InputError for its errors.

    With ``--Werror`` the warnings are raised as errors too.
    """
    found = _other_release(args, target)
    if found is None or module.host_templates is None:
        return []
    comparison = compare_host_text(module.host_templates, targets, target.profile)
    spliced = (*comparison.differing, *comparison.same, *comparison.unknown)
    if not spliced:
        return []
    wanted = target.profile.release
    major, minor = release_key(found)
    hint = (
        f"give --host-templates DIR with torch {wanted}'s templates (the 'torchgen/packaged' "
        f"folder of its wheel, or a PyTorch checkout of that release), or --torch-version "
        f"{major}.{minor}, the release --torch finds"
    )
    errors = [
        Diagnostic(
            Span.point(file.path, 0, 0),
            f"host template '{file.name}' is torch {found}'s text (found by --torch), which "
            f"differs from torch {wanted}'s: the file generated from it would not be "
            f"torch {wanted}'s",
            hint,
        )
        for file in comparison.differing
    ]
    if errors:
        raise InputError(errors)
    checked = (
        f"; {len(comparison.same)} of the {len(spliced)} files this run splices are checked "
        f"to be the same text in torch {wanted}"
    )
    warning = Diagnostic(
        _COMMAND_LINE,
        f"host templates come from torch {found} (found by --torch), not from the target "
        f"release {wanted}{checked}",
        hint,
        Severity.WARNING,
    )
    if target.werror:
        raise InputError([warning.as_error()])
    return [warning]
