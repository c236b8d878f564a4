"""Which operators get no generated Python binding, as data.

PyTorch binds some operators by hand (``size``, ``to``, ``item``...), keeps
others internal (backward kernels, functionalization helpers) or exposes them
as attributes rather than functions (``mT``, ``mH``).  Which ones is release
policy: the skip lists of the release's Python binding generator
(``tools/autograd/gen_python_functions.py``) are profile data
(Note [Release profiles]).  Besides them, PyTorch leaves the synthesised
operators unbound (below).  A name rule matches the C++ name of an overload:
the base name, plus ``_out`` for an out= overload (``add_out``, ``abs_``);
a schema rule, the whole schema.
"""

from __future__ import annotations

import re

import attrs

from schemac.profiles import ReleaseProfile, reference_profile

#: Synthesised (``generated``-tagged) operators are not bound, except the
#: ``view_copy`` family, which was bound before it became generated.
GENERATED_TAG = "generated"
STILL_BOUND_GENERATED_TAG = "view_copy"


def _compile(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern matching what any of ``patterns`` fully matches; None for none."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def _split(patterns: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The patterns that are plain names (``size``, ``to``), and the others.

    A plain name fully matches only itself, so a set lookup answers for it.
    Two thirds of a release's patterns are plain names, and compiling them
    into the alternation was most of its cost (~3 ms of every process that
    binds Python, however few operators it has).
    """
    plain = frozenset(p for p in patterns if re.escape(p) == p)
    return plain, tuple(p for p in patterns if p not in plain)


@attrs.frozen
class PythonSkips:
    """One release's skip rules (profile lists ``python_skipped_name_patterns``,
    whole-name regular expressions, and ``python_skipped_schemas``)."""

    #: The plain-name patterns (see ``_split``) and the rest as one regular expression.
    skipped_plain_names: frozenset[str]
    skipped_name: re.Pattern[str] | None
    skipped_schemas: frozenset[str]
    #: The overload names of ``skipped_schemas`` (``add.Scalar``): only a
    #: function with one of these names needs its whole schema spelled and compared.
    skipped_schema_names: frozenset[str]

    @classmethod
    def of(cls, profile: ReleaseProfile) -> PythonSkips:
        schemas = profile.names("python_skipped_schemas")
        plain, patterns = _split(profile.ordered("python_skipped_name_patterns"))
        return cls(
            skipped_plain_names=plain,
            skipped_name=_compile(patterns),
            skipped_schemas=schemas,
            skipped_schema_names=frozenset(s.partition("(")[0] for s in schemas),
        )

    def is_skipped_name(self, cpp_name: str) -> bool:
        if cpp_name in self.skipped_plain_names:
            return True
        return self.skipped_name is not None and self.skipped_name.fullmatch(cpp_name) is not None


def reference_skips() -> PythonSkips:
    """The default release's rules (library calls that name no release)."""
    return PythonSkips.of(reference_profile())
