"""Declarations.yaml: equal to torchgen's once both are loaded, and a printer YAML reads back.

The conformance test runs per release (``each_release``): the release's YAML,
compiled with its profile, against its own torchgen's Declarations.yaml.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac.backends.declarations.records import yaml_default
from schemac.backends.declarations.yaml_text import document
from schemac.backends.driver import emit_targets
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@pytest.mark.torch
@pytest.mark.each_release
def test_declarations_equal_torchgen(
    torchgen_aten_dir: Path, schemac_module: Module, schemac_profile: ReleaseProfile
) -> None:
    theirs = yaml.load((torchgen_aten_dir / "Declarations.yaml").read_text(), Loader=_LOADER)
    (file,) = emit_targets(schemac_module, ("declarations",), profile=schemac_profile)
    ours = yaml.load(file.text, Loader=_LOADER)
    by_schema = {record["schema_string"]: record for record in theirs}
    differing = {
        record["schema_string"]: sorted(
            key for key in record if record[key] != by_schema[record["schema_string"]].get(key)
        )
        for record in ours
        if record["schema_string"] in by_schema and record != by_schema[record["schema_string"]]
    }
    print(f"\nDeclarations.yaml: {len(theirs)} records in torchgen, {len(ours)} in schemac")
    assert [r["schema_string"] for r in ours] == [r["schema_string"] for r in theirs]
    assert differing == {}
    # Same fields in the same order, record for record.
    assert {tuple(r) for r in ours} == {tuple(r) for r in theirs}
    assert [list(r) for r in ours] == [list(r) for r in theirs]
    assert len(theirs) > 3000


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(),
    st.sampled_from(["", "yes", "No", "null", "~", "1e-05", "a: b", "x #y", "::std::nullopt"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), inner, max_size=3)
    ),
    max_leaves=12,
)


# A loaded machine makes generation look slow; the examples are small either way.
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_values, max_size=4))
def test_printed_yaml_loads_back_equal(items: list[object]) -> None:
    text = document(items)  # type: ignore[arg-type]
    assert yaml.load(text, Loader=yaml.SafeLoader) == (items or None)


def test_cpp_defaults_read_back_as_yaml_values() -> None:
    assert [yaml_default(x) for x in ("false", "1", "-1", "0.5", "1e-05", "{}", "at::kLong")] == [
        False,
        1,
        -1,
        0.5,
        1e-05,
        "{}",
        "at::kLong",
    ]
