"""Which torch release a test compares against (see ``torch_releases.py``).

A test module marked ``pytest.mark.each_release`` runs once per selected
release (``each_release(secondary=True)``: each but the primary one, for
checks the primary release's own tests already make;
``each_release(slow_secondary=True)``, on a test: the releases besides the
primary one only under ``-m slow``, for checks too costly for CI; ``make test``
runs ``slow`` tests, so a test or parameter that must not run there is marked
``slow_only``, deselected unless the run asks for slow tests): its ``torch_release``
fixture (and everything built on it: the YAML paths, schemac's module,
torchgen's outputs) is parametrized at session scope,
so pytest groups the tests by release and builds each release's artefacts
once.  Every other test sees the primary reference, the installed torch.

Selected releases: ``$SCHEMAC_TEST_RELEASES`` (comma-separated), else
:data:`torch_releases.DEFAULT_RELEASES`; a run that asks for slow tests
(``-m slow``) adds the releases marked slow (2.15.0, a 540 MB download).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import pytest

from torch_releases import (
    DEFAULT_RELEASES,
    PRIMARY_RELEASE,
    RELEASES,
    ReferenceRelease,
    reference_release,
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "each_release(secondary=False, slow_secondary=False): run once per selected torch "
        "reference release",
    )
    config.addinivalue_line(
        "markers", "slow_only: run only when the run asks for slow tests (-m slow)"
    )


def _asks_for_slow(config: pytest.Config) -> bool:
    expression = str(config.getoption("markexpr", "") or "")
    return "slow" in expression and "not slow" not in expression


def selected_releases(config: pytest.Config) -> tuple[str, ...]:
    configured = os.environ.get("SCHEMAC_TEST_RELEASES")
    if configured:
        chosen = tuple(v.strip() for v in configured.split(",") if v.strip())
        unknown = sorted(set(chosen) - set(RELEASES))
        if unknown:
            raise pytest.UsageError(f"SCHEMAC_TEST_RELEASES: unknown releases {unknown}")
        return chosen
    if _asks_for_slow(config):
        return RELEASES
    return DEFAULT_RELEASES


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "torch_release" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("each_release")
    if marker is None:
        return
    versions = selected_releases(metafunc.config)
    if marker.kwargs.get("secondary"):
        versions = tuple(v for v in versions if v != PRIMARY_RELEASE)
    slow_secondary = bool(marker.kwargs.get("slow_secondary"))

    def marks(version: str) -> tuple[pytest.MarkDecorator, ...]:
        if slow_secondary and version != PRIMARY_RELEASE:
            return (pytest.mark.slow, pytest.mark.slow_only)
        return () if version in DEFAULT_RELEASES else (pytest.mark.slow,)

    params = [
        pytest.param(version, id=f"torch{version}", marks=marks(version)) for version in versions
    ]
    metafunc.parametrize("torch_release", params, indirect=True, scope="session")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _asks_for_slow(config):
        return
    kept = [item for item in items if item.get_closest_marker("slow_only") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


@pytest.fixture(scope="session")
def torch_release(request: pytest.FixtureRequest) -> ReferenceRelease:
    """The torch release this test compares against (fetched on first use)."""
    return reference_release(getattr(request, "param", PRIMARY_RELEASE))


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The cyclic collector off for the test, as a compile runs (``launcher``),
    after one collection; restored after."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
