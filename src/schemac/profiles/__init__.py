"""Release profiles: what each PyTorch release's generator decides, as data.

See Note [Release profiles] in :mod:`schemac.profiles.model`.  This package
sits beside ``ir`` at the bottom of the layers: the front end, the passes and
the backends all read profiles, and it imports none of them.
"""

from schemac.profiles.catalog import (
    GENERIC,
    REFERENCE_RELEASE,
    ReleaseChoice,
    UnknownReleaseError,
    choose_release,
    load_profile,
    newest_release,
    reference_profile,
    release_key,
    supported_releases,
)
from schemac.profiles.model import ReleaseProfile, UnknownProfileKeyError

__all__ = [
    "GENERIC",
    "REFERENCE_RELEASE",
    "ReleaseChoice",
    "ReleaseProfile",
    "UnknownProfileKeyError",
    "UnknownReleaseError",
    "choose_release",
    "load_profile",
    "newest_release",
    "reference_profile",
    "release_key",
    "supported_releases",
]
