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
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.module import Module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager
from schemac.profiles import ReleaseProfile, load_profile
from torch_releases import ReferenceRelease, import_torchgen, release_yaml_paths

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
def torch_paths(torch_release: ReferenceRelease) -> TorchYamlPaths:
    return release_yaml_paths(torch_release)


@pytest.fixture(scope="session")
def real_profile(torch_release: ReferenceRelease) -> ReleaseProfile:
    return load_profile(torch_release.short)


@pytest.fixture(scope="session")
def real_module(torch_paths: TorchYamlPaths, real_profile: ReleaseProfile) -> Module:
    """The release's files after the whole pipeline, with verification on."""
    module = load_module(
        torch_paths.native_functions,
        torch_paths.tags,
        torch_paths.derivatives,
        torch_paths.deprecated,
        profile=real_profile,
    )
    context = PassContext(verify=True, profile=real_profile)
    return PassManager.default().run(context, module).module


@pytest.fixture(scope="session")
def torchgen_of(torch_release: ReferenceRelease) -> Callable[[str], Any]:
    """``torchgen_of("torchgen.gen")``: the release's torchgen module (see import_torchgen)."""
    # The modules the conformance tests use, imported together up front.
    for name in ("torchgen.gen", "torchgen.api.autograd",
                 "torchgen.packaged.autograd.load_derivatives"):  # fmt: skip
        import_torchgen(torch_release, name)
    return lambda name: import_torchgen(torch_release, name)


@pytest.fixture(scope="session")
def reference(torch_paths: TorchYamlPaths, torchgen_of: Callable[[str], Any]) -> Any:
    """torchgen's parse of the same files: (native_functions, backend_indices)."""
    gen = torchgen_of("torchgen.gen")
    return gen.parse_native_yaml(str(torch_paths.native_functions), str(torch_paths.tags))
