"""Fixtures for pass tests: tiny YAML inputs, and the real files run both ways.

The real-file fixtures are session-scoped: loading plus the whole pipeline
takes about a second and a half for schemac, and torchgen's parse about as
long, so each runs once per session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths, torch_yaml_paths
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline

#: A tags.yaml with the tags the passes care about.
TAGS_YAML = """\
- tag: pt2_compliant_tag
  desc: compliant
- tag: generated
  desc: synthesised by the compiler
- tag: out
  desc: out= operator
- tag: inplace
  desc: in-place operator
- tag: view_copy
  desc: copy twin of a view
- tag: inplace_view
  desc: in-place view
- tag: nondeterministic_seeded
  desc: random
- tag: core
  desc: core ATen
"""

LoadYaml = Callable[[str], Module]


@pytest.fixture
def load_yaml(tmp_path: Path) -> LoadYaml:
    """Load a native_functions.yaml text (with :data:`TAGS_YAML`) into a Module."""

    def load(text: str) -> Module:
        native = tmp_path / "native_functions.yaml"
        native.write_text(text, encoding="utf-8")
        tags = tmp_path / "tags.yaml"
        tags.write_text(TAGS_YAML, encoding="utf-8")
        return load_module(native, tags)

    return load


@pytest.fixture(scope="session")
def torch_paths() -> TorchYamlPaths:
    return torch_yaml_paths()


@pytest.fixture(scope="session")
def real_module(torch_paths: TorchYamlPaths) -> Module:
    """The real files after the whole pipeline, with verification on."""
    module = load_module(
        torch_paths.native_functions,
        torch_paths.tags,
        torch_paths.derivatives,
        torch_paths.deprecated,
    )
    return run_pipeline(module, verify=True).module


@pytest.fixture(scope="session")
def reference(torch_paths: TorchYamlPaths) -> Any:
    """torchgen's parse of the same files: (native_functions, backend_indices)."""
    from torchgen.gen import parse_native_yaml

    return parse_native_yaml(str(torch_paths.native_functions), str(torch_paths.tags))
