"""The backend registry and ``-t`` parsing."""

from __future__ import annotations

import pytest

from schemac.backends.registry import (
    ALL,
    BACKENDS,
    NOT_IN_ALL,
    TARGET_NAMES,
    UnknownTargetError,
    backends_for,
    parse_targets,
)


@pytest.mark.parametrize("entry", BACKENDS, ids=lambda e: e.name)
def test_every_entry_loads_a_backend_matching_it(entry) -> None:
    backend = entry.load()
    assert backend.name == entry.name
    assert tuple(backend.targets) == entry.targets
    assert backend.description
    assert callable(backend.emit)


def test_entries_name_known_targets_and_are_unique() -> None:
    assert len({e.name for e in BACKENDS}) == len(BACKENDS)
    for entry in BACKENDS:
        assert set(entry.targets) <= set(TARGET_NAMES), entry.name
    assert len(set(TARGET_NAMES)) == len(TARGET_NAMES)
    assert ALL not in TARGET_NAMES


def test_parse_targets_orders_and_deduplicates() -> None:
    assert parse_targets("schema") == ("schema",)
    assert parse_targets(" python , schema,schema ") == ("schema", "python")


def test_all_means_every_implemented_target_including_mps_and_xpu() -> None:
    everything = parse_targets(ALL)
    assert everything == tuple(t for t in TARGET_NAMES if backends_for(t) and t not in NOT_IN_ALL)
    assert "extension" not in everything  # a different layout; rejects ATen's YAML
    assert parse_targets(f"schema,{ALL}") == everything
    for target in ("schema", "python", "mps", "xpu"):
        if backends_for(target):
            assert target in everything


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no target given"),
        (" , ", "no target given"),
        ("cpu,gpu", "unknown target 'gpu'"),
        ("Schema", "unknown target 'Schema'"),
    ],
)
def test_bad_targets_name_the_valid_ones(text: str, message: str) -> None:
    with pytest.raises(UnknownTargetError) as raised:
        parse_targets(text)
    assert message in str(raised.value)
    assert "valid targets: all, headers, schema, cpu" in str(raised.value)
