"""The release's shim policy, read from its profile: which operators get shims,
in which versions, and which may be handed null return pointers.

A version record (Note [AOTI shim versions]) is the profile's canonical JSON
of one ``fallback_ops.py`` entry: ``{"since"?: MACRO, "v<N>": {"new_args":
[...], "since"?: MACRO}}``.  Version 1 is the operator as it first was;
version N adds ``new_args``.  A shim exists per version; the newest takes
every argument, and each older one leaves out the arguments added after it
(passing their defaults).  ``since`` names the ``TORCH_VERSION_X_Y_Z`` the
version appeared in (the header guards its declaration with it).
"""

from __future__ import annotations

import json
import re

import attrs

from schemac.profiles import ReleaseProfile

#: Profile table of the per-key shims, and of ``c_shim_aten.cpp``'s.
KEY_OPS_TABLE = "aoti_fallback_ops"
ATEN_OPS_TABLE = "aoti_aten_shimified_ops"
NULLABLE_RETURNS_LIST = "aoti_nullable_returns"

_VERSION_KEY = re.compile(r"v(\d+)")


class ShimPolicyError(ValueError):
    """A profile's version record is malformed (a broken profile file, not user input)."""


@attrs.frozen
class ShimVersion:
    number: int
    #: Arguments this version added to the one before it.
    new_args: tuple[str, ...] = ()
    since: str | None = None


@attrs.frozen
class ShimmedOperator:
    """One ``aten.<name>.<overload>`` entry and its versions, oldest first."""

    name: str
    versions: tuple[ShimVersion, ...]

    def newest_first(self) -> tuple[tuple[ShimVersion, frozenset[str]], ...]:
        """Each version with the arguments it leaves out (those added after it)."""
        dropped: set[str] = set()
        result = []
        for version in reversed(self.versions):
            result.append((version, frozenset(dropped)))
            dropped.update(version.new_args)
        return tuple(result)


def parse_versions(name: str, text: str) -> ShimmedOperator:
    record = json.loads(text)
    if not isinstance(record, dict):
        raise ShimPolicyError(f"{name}: version record is not an object")
    base_since = record.get("since")
    versions = {1: ShimVersion(1, (), base_since)}
    for key, entry in record.items():
        if key == "since":
            continue
        match = _VERSION_KEY.fullmatch(key)
        if match is None or int(match.group(1)) < 2 or not isinstance(entry, dict):
            raise ShimPolicyError(f"{name}: bad version entry {key!r}")
        number = int(match.group(1))
        versions[number] = ShimVersion(number, tuple(entry.get("new_args", ())), entry.get("since"))
    return ShimmedOperator(name, tuple(versions[n] for n in sorted(versions)))


@attrs.frozen
class ShimPolicy:
    key_ops: dict[str, ShimmedOperator]
    aten_ops: dict[str, ShimmedOperator]
    nullable_returns: tuple[str, ...]

    @classmethod
    def of(cls, profile: ReleaseProfile) -> ShimPolicy:
        def table(name: str) -> dict[str, ShimmedOperator]:
            return {op: parse_versions(op, text) for op, text in profile.table(name).items()}

        return cls(
            table(KEY_OPS_TABLE),
            table(ATEN_OPS_TABLE),
            profile.ordered(NULLABLE_RETURNS_LIST),
        )

    @property
    def empty(self) -> bool:
        return not self.key_ops and not self.aten_ops

    def returns_may_be_null(self, unambiguous_name: str) -> bool:
        return any(fragment in unambiguous_name for fragment in self.nullable_returns)
