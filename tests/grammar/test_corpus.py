"""Whole-corpus conformance: every schema PyTorch ships, as torchgen reads it.

The corpus is the installed torchgen's packaged YAML: every ``func:`` of
native_functions.yaml, and every ``name:`` of derivatives.yaml and
deprecated.yaml that torchgen itself parses (a few deprecated signatures are
not schemas, torchgen never parses them either).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from schemac import parse_schema
from schemac.frontend.schema_parser import SchemaParser, _parse_whole

from .reference import torchgen_parse
from .test_differential import assert_same_with_spans

pytestmark = pytest.mark.torch

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@pytest.fixture(scope="module")
def packaged() -> Path:
    torchgen = pytest.importorskip("torchgen")
    return Path(torchgen.__file__).parent / "packaged"


def _entries(path: Path, key: str) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [entry[key] for entry in yaml.load(handle, Loader=_Loader)]


@pytest.fixture(scope="module")
def native_funcs(packaged: Path) -> list[str]:
    return _entries(packaged / "ATen/native/native_functions.yaml", "func")


@pytest.fixture(scope="module")
def autograd_names(packaged: Path) -> list[str]:
    names = _entries(packaged / "autograd/derivatives.yaml", "name")
    return names + _entries(packaged / "autograd/deprecated.yaml", "name")


def test_every_native_function_schema_matches_torchgen(native_funcs: list[str]) -> None:
    assert len(native_funcs) > 2000
    mismatches = []
    for text in native_funcs:
        reference = torchgen_parse(text)
        assert reference is not None, text
        if str(parse_schema(text)) != str(reference):
            mismatches.append(text)
    assert mismatches == []


def test_every_autograd_schema_torchgen_parses_matches(autograd_names: list[str]) -> None:
    checked = 0
    for text in autograd_names:
        reference = torchgen_parse(text)
        if reference is None:
            continue
        assert str(parse_schema(text)) == str(reference), text
        checked += 1
    assert checked > 600


def test_piecewise_parse_equals_whole_parse_on_the_corpus(
    native_funcs: list[str], autograd_names: list[str]
) -> None:
    parser = SchemaParser()  # one memo for the whole corpus, as the loader uses it
    for line, text in enumerate(native_funcs + autograd_names, start=1):
        if torchgen_parse(text) is None:
            continue
        whole = _parse_whole(text, "native_functions.yaml", line, 9)
        assert_same_with_spans(
            parser.parse(text, file="native_functions.yaml", line=line, column=9), whole
        )
