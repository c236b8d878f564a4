"""What one PyTorch release's code generator decides that the YAML format does not.

Note [Release profiles]
~~~~~~~~~~~~~~~~~~~~~~~
torchgen ships inside each torch wheel, so its policy (which operators get
hand-written autograd, which ones Python skips, which base types and dispatch
keys exist, how it guesses that an operator is random...) is simply the code
of that release.  schemac is one compiler for many releases, so that policy is
data: one :class:`ReleaseProfile` per release, read from a JSON file that
``tools/extract_profile.py`` derives from the release's own torchgen and
headers.  Code asks a profile for a *named* behaviour
(``profile.has("node_creation_hooks")``, ``profile.names("manual_autograd")``)
and never compares version numbers; adding a release is adding a data file.

Every feature and list a profile may carry is declared in
:mod:`schemac.profiles.vocabulary` with what it means, so a misspelt query is
an error rather than a silent "no".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

from schemac.profiles.vocabulary import FEATURES, LISTS, TABLES


class UnknownProfileKeyError(KeyError):
    """A feature, list or table name that :mod:`.vocabulary` does not declare."""


def _frozen_names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _frozen_lists(value: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType({name: tuple(items) for name, items in value.items()})


def _frozen_tables(value: Mapping[str, Any]) -> Mapping[str, Mapping[str, str]]:
    return MappingProxyType({name: MappingProxyType(dict(table)) for name, table in value.items()})


@attrs.frozen
class ReleaseProfile:
    """One release's policy: feature switches, name lists and small tables.

    ``release`` is ``"X.Y"`` (or ``"generic"`` for a library outside PyTorch);
    ``torch_version`` the exact version the data was extracted from.
    """

    release: str
    torch_version: str
    features: frozenset[str] = attrs.field(converter=_frozen_names)
    lists: Mapping[str, tuple[str, ...]] = attrs.field(converter=_frozen_lists)
    tables: Mapping[str, Mapping[str, str]] = attrs.field(converter=_frozen_tables, factory=dict)
    # Sets of the lists, made once: membership is what most callers ask.
    _sets: Mapping[str, frozenset[str]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        for kind, names, declared in (
            ("feature", self.features, FEATURES),
            ("list", self.lists, LISTS),
            ("table", self.tables, TABLES),
        ):
            unknown = sorted(set(names) - set(declared))
            if unknown:
                raise UnknownProfileKeyError(
                    f"profile {self.release}: undeclared {kind}(s) {', '.join(unknown)} "
                    "(declare them in schemac/profiles/vocabulary.py)"
                )
        sets = {name: frozenset(items) for name, items in self.lists.items()}
        object.__setattr__(self, "_sets", MappingProxyType(sets))

    # -- queries ---------------------------------------------------------------
    def has(self, feature: str) -> bool:
        """Whether this release behaves as ``feature`` describes (see FEATURES)."""
        if feature not in FEATURES:
            raise UnknownProfileKeyError(f"unknown profile feature {feature!r}")
        return feature in self.features

    def names(self, name: str) -> frozenset[str]:
        """The list ``name`` as a set (empty when the release has none)."""
        if name not in LISTS:
            raise UnknownProfileKeyError(f"unknown profile list {name!r}")
        return self._sets.get(name, frozenset())

    def ordered(self, name: str) -> tuple[str, ...]:
        """The list ``name`` in the order the release's torchgen keeps it."""
        if name not in LISTS:
            raise UnknownProfileKeyError(f"unknown profile list {name!r}")
        return self.lists.get(name, ())

    def table(self, name: str) -> Mapping[str, str]:
        """The table ``name`` (a string-to-string mapping; empty when absent)."""
        if name not in TABLES:
            raise UnknownProfileKeyError(f"unknown profile table {name!r}")
        return self.tables.get(name, MappingProxyType({}))

    # -- data ------------------------------------------------------------------
    def to_json_data(self) -> dict[str, Any]:
        """The profile as the JSON object its data file holds (sorted, stable)."""
        return {
            "release": self.release,
            "torch_version": self.torch_version,
            "features": sorted(self.features),
            "lists": {name: list(self.lists[name]) for name in sorted(self.lists)},
            "tables": {
                name: dict(sorted(self.tables[name].items())) for name in sorted(self.tables)
            },
        }

    @classmethod
    def from_json_data(cls, data: Mapping[str, Any]) -> ReleaseProfile:
        return cls(
            release=data["release"],
            torch_version=data["torch_version"],
            features=data.get("features", ()),
            lists=data.get("lists", {}),
            tables=data.get("tables", {}),
        )
