"""Shared fixtures: the installed torch's YAML files and both loaders' results.

Loading is the expensive part (about a second each for schemac and torchgen),
so each is done once per test session.
"""

from __future__ import annotations

from typing import Any

import pytest

from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths, torch_yaml_paths
from schemac.ir.module import Module


@pytest.fixture(scope="session")
def torch_paths() -> TorchYamlPaths:
    return torch_yaml_paths()


@pytest.fixture(scope="session")
def torch_module(torch_paths: TorchYamlPaths) -> Module:
    return load_module(
        torch_paths.native_functions,
        torch_paths.tags,
        torch_paths.derivatives,
        torch_paths.deprecated,
    )


@pytest.fixture(scope="session")
def torchgen_parsed(torch_paths: TorchYamlPaths) -> Any:
    """torchgen's own parse of the same files: the reference."""
    from torchgen.gen import parse_native_yaml

    return parse_native_yaml(str(torch_paths.native_functions), str(torch_paths.tags))
