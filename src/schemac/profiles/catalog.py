"""The committed release profiles, and which one a requested version gets.

Profiles are JSON files in ``schemac/profiles/data/`` (package data, beside
this module in the installed package), one per release, named ``X.Y.json``.
They are read on first use (one ~20 KB file: a fraction of a millisecond;
``importlib.resources`` would cost several milliseconds more on its first
call); the loaded values are immutable, so keeping them for the rest of the
process changes nothing but speed.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path

import attrs

from schemac.profiles.model import ReleaseProfile

#: The profile of a library outside PyTorch (a custom namespace): the newest
#: release's vocabulary, none of PyTorch's per-operator lists.
GENERIC = "generic"

#: What library code gets when it names no release (tests compare against the
#: torch that the test extra pins).  The command line instead picks the torch
#: it finds, else the newest release.
REFERENCE_RELEASE = "2.13"

_RELEASE = re.compile(r"(\d+)\.(\d+)")
_DATA = Path(__file__).with_name("data")
#: What a generic profile keeps of the newest release's: its vocabulary and
#: heuristics, which any library compiled against that torch shares; the
#: lists of PyTorch's own operators (hand-written kernels, skips...) it drops.
_VOCABULARY_LISTS = (
    "base_types",
    "dispatch_keys",
    "autograd_helpers",
    "random_name_exemptions",
    "dropout_not_random",
)
_VOCABULARY_TABLES = ("shard_counts",)


class UnknownReleaseError(ValueError):
    """A release text that is not ``X.Y`` (or ``X.Y.Z...``) nor ``generic``."""


def release_key(release: str) -> tuple[int, int]:
    """``"2.13"`` (or ``"2.13.0"``, ``"2.13.0+cpu"``) as ``(2, 13)``."""
    match = _RELEASE.match(release.strip())
    if match is None:
        raise UnknownReleaseError(f"not a torch version: {release!r} (expected X.Y)")
    return int(match.group(1)), int(match.group(2))


@functools.cache
def supported_releases() -> tuple[str, ...]:
    """Every release with a committed profile, oldest first."""
    names = (name[: -len(".json")] for name in os.listdir(_DATA) if name.endswith(".json"))
    return tuple(sorted(names, key=release_key))


def newest_release() -> str:
    return supported_releases()[-1]


@functools.cache
def load_profile(release: str) -> ReleaseProfile:
    """The committed profile of ``release`` (``"X.Y"`` exactly, or ``generic``)."""
    if release == GENERIC:
        return _generic(load_profile(newest_release()))
    if release not in supported_releases():
        raise UnknownReleaseError(
            f"no profile for torch {release}; supported: {', '.join(supported_releases())}"
        )
    text = (_DATA / f"{release}.json").read_text(encoding="utf-8")
    return ReleaseProfile.from_json_data(json.loads(text))


def reference_profile() -> ReleaseProfile:
    """The default of library APIs (:data:`REFERENCE_RELEASE`)."""
    return load_profile(REFERENCE_RELEASE)


@attrs.frozen
class ReleaseChoice:
    """The profile chosen for a requested version, and why if it is not that version."""

    profile: ReleaseProfile
    #: Set when the request had no profile of its own and a neighbour was taken.
    warning: str | None = None


def choose_release(requested: str) -> ReleaseChoice:
    """The profile for ``requested`` (``"2.14"``, ``"2.14.1"``, ``generic``).

    A release without a profile gets the nearest one (the newer on a tie),
    with a warning naming both.
    """
    if requested.strip() == GENERIC:
        return ReleaseChoice(load_profile(GENERIC))
    wanted = release_key(requested)
    supported = supported_releases()
    exact = f"{wanted[0]}.{wanted[1]}"
    if exact in supported:
        return ReleaseChoice(load_profile(exact))

    keys = [release_key(r) for r in supported]
    if wanted > keys[-1]:
        nearest = supported[-1]
    elif wanted < keys[0]:
        nearest = supported[0]
    else:  # between two supported releases of one major version: the closer minor

        def distance(release: str) -> tuple[int, int, int]:
            major, minor = release_key(release)
            return (abs(major - wanted[0]), abs(minor - wanted[1]), -minor)

        nearest = min(supported, key=distance)
    return ReleaseChoice(
        load_profile(nearest),
        f"no profile for torch {requested}; using the nearest supported release, {nearest} "
        f"(supported: {', '.join(supported)})",
    )


def _generic(newest: ReleaseProfile) -> ReleaseProfile:
    lists = {name: newest.lists[name] for name in _VOCABULARY_LISTS if name in newest.lists}
    tables = {name: newest.tables[name] for name in _VOCABULARY_TABLES if name in newest.tables}
    return ReleaseProfile(
        release=GENERIC,
        torch_version=newest.torch_version,
        features=newest.features,
        lists=lists,
        tables=tables,
    )
