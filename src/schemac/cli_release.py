"""The command line's target release: ``--torch-version``, ``--Werror``, formula helpers.

One function, :func:`target_from_args`, turns the options into the release
profile, the derivative-helper names and the run's warnings, which the
subcommands then hand to the front end (``load_module(profile=)``), the
passes (:class:`~schemac.passes.base.PassContext`) and the backends
(``EmitOptions.profile``): there is no other way for a release to reach them.

The release, when not given: the version of the torch that ``--torch`` finds
(read from its dist-info as text, never by importing it), else the newest
release schemac has a profile for.  A release without a profile gets the
nearest one, with a warning.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

import attrs

from schemac.diagnostics import Diagnostic, InputError, Severity, Span, count_text, render_all
from schemac.frontend.helper_headers import installed_helper_headers, read_helper_names
from schemac.frontend.torch_paths import installed_torch_include, installed_torch_version
from schemac.passes.base import HelperNames, PassContext
from schemac.profiles import (
    GENERIC,
    ReleaseProfile,
    UnknownReleaseError,
    choose_release,
    newest_release,
    release_key,
)

#: Where a warning about the command line itself points.
_COMMAND_LINE = Span.point("<command line>", 0, 0)


def add_release_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--torch-version",
        metavar="X.Y",
        help="the PyTorch release to generate for ('generic' for a library outside "
        "PyTorch); default: the version of the torch --torch finds, else the newest "
        "supported. A release without a profile uses the nearest one, with a warning",
    )
    parser.add_argument(
        "--formula-helpers",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="a C++ header (or a .txt file, one name a line) declaring functions "
        "derivative formulas may call; repeatable. Default: FunctionsManual.h and "
        "VariableTypeUtils.h of the torch --torch finds, when it is the target release. "
        "With headers read, a call to an undeclared function is an error; without, a warning",
    )
    parser.add_argument(
        "--Werror", action="store_true", dest="werror", help="treat warnings as errors"
    )


@attrs.frozen
class TargetRelease:
    """What the options decided: the profile, the helper names, early warnings."""

    profile: ReleaseProfile
    helpers: HelperNames | None
    werror: bool
    #: Warnings about the options themselves (an unsupported release).
    warnings: tuple[Diagnostic, ...] = ()

    def pass_context(
        self, *, verify: bool = False, left_out: frozenset[str] = frozenset()
    ) -> PassContext:
        """``left_out``: what the load left out (``LoadResult.left_out_bases``)."""
        return PassContext(
            verify=verify,
            profile=self.profile,
            werror=self.werror,
            helpers=self.helpers,
            left_out=left_out,
        )


def release_usage_error(args: argparse.Namespace) -> str | None:
    """A ``--torch-version`` that is no version at all (a usage error: exit 2)."""
    requested = getattr(args, "torch_version", None)
    if requested is None or requested.strip() == "generic":
        return None
    try:
        release_key(requested)
    except UnknownReleaseError as error:
        return f"--torch-version: {error}"
    return None


def target_from_args(args: argparse.Namespace, *, need_helpers: bool = True) -> TargetRelease:
    """The target release the options name (see the module docstring).

    ``need_helpers``: read the helper headers (only derivative formulas use
    them; a run without derivatives.yaml skips the reading).
    """
    installed = installed_torch_version()
    requested = args.torch_version or installed or newest_release()
    choice = choose_release(requested)
    warnings = []
    if choice.warning is not None:
        origin = "--torch-version" if args.torch_version else "the installed torch"
        warnings.append(
            Diagnostic(
                _COMMAND_LINE,
                f"{origin}: {choice.warning}",
                "give --torch-version with a supported release to silence this",
                Severity.WARNING,
            )
        )
    profile = choice.profile
    helpers = None
    if need_helpers:
        helpers = _helpers(args.formula_helpers, profile, installed)
    return TargetRelease(profile, helpers, args.werror, tuple(warnings))


def _helpers(
    files: list[Path], profile: ReleaseProfile, installed: str | None
) -> HelperNames | None:
    if files:
        # Read now: a file that cannot be read is an error of the command line.
        return HelperNames.of(
            read_helper_names(files),
            authoritative=True,
            origin=", ".join(str(f) for f in files),
        )
    # The installed torch's headers are the target's when it is the target
    # release, or when the target is a library outside PyTorch (built against it).
    if installed is None or (
        profile.release != GENERIC and choose_release(installed).profile.release != profile.release
    ):
        return None  # the profile's list (PassContext.helper_names)
    headers = installed_helper_headers(installed_torch_include())
    if not headers:
        return None
    return HelperNames(
        lambda: read_helper_names(headers),
        authoritative=True,
        origin=f"the headers of torch {installed}",
    )


def target_release(args: argparse.Namespace) -> TargetRelease:
    """The target release of the options (:func:`target_from_args`).

    Its own warnings are printed at once, so that they show even if the run
    fails later; with ``--Werror`` they are raised as errors instead.
    """
    need_helpers = args.torch or args.derivatives is not None
    target = target_from_args(args, need_helpers=need_helpers)
    if target.warnings and target.werror:
        raise InputError(w.as_error() for w in target.warnings)
    if target.warnings:
        sys.stderr.write(render_all(target.warnings) + "\n")
    return target


def report_warnings(target: TargetRelease, warnings: Iterable[Diagnostic], stream: TextIO) -> None:
    """Print a successful run's warnings, rendered like errors, and count them
    with the target's (printed already by :func:`target_release`)."""
    items = sorted(warnings, key=Diagnostic.sort_key)
    if items:
        stream.write(render_all(items) + "\n")
    if items or target.warnings:
        stream.write(count_text([*target.warnings, *items]) + "\n")
