"""``-t vmap`` against torchgen: VmapGeneratedPlumbing.h has the same plumbing functions.

Every plumbing template torchgen writes is present with the same declaration,
none is extra, and each body is torchgen's once whitespace is removed and the
one label schemac words differently (the name ``vmap_check_escaped`` reports)
is mapped back.  (The header is not compiled here: torch's functorch headers
include nlohmann/json, which the wheel does not ship.)  Per release
(``each_release``), against that release's torchgen.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.backends.vmap.plumbing import PlumbingKind
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile

pytestmark = [pytest.mark.torch, pytest.mark.each_release]

_PLUMBING = re.compile(
    r"^template <typename batch_rule_t, batch_rule_t batch_rule>\n(.*?) \{\n(.*?)^\}", re.M | re.S
)
#: schemac's label for each kind -> torchgen's, which names its generator functions.
_LABELS = {
    PlumbingKind.functional.value: "gen_vmap_plumbing",
    PlumbingKind.inplace.value: "gen_vmap_inplace_plumbing",
    PlumbingKind.no_returns.value: "gen_vmap_plumbing_no_returns",
}


def plumbing(text: str, *, relabel: bool = False) -> dict[str, str]:
    found: dict[str, str] = {}
    for head, body in _PLUMBING.findall(text):
        if relabel:
            for ours, theirs in _LABELS.items():
                body = body.replace(f'"{ours}"', f'"{theirs}"')
        assert head not in found, f"{head} defined twice"
        found[head] = re.sub(r"\s+", "", body)
    return found


@pytest.fixture(scope="module")
def schemac_header(schemac_module: Module, schemac_profile: ReleaseProfile) -> str:
    (file,) = emit_targets(schemac_module, ("vmap",), profile=schemac_profile)
    assert file.path == "ATen/VmapGeneratedPlumbing.h"
    return file.text


def test_plumbing_functions_match(torchgen_aten_dir: Path, schemac_header: str) -> None:
    theirs = plumbing((torchgen_aten_dir / "VmapGeneratedPlumbing.h").read_text())
    ours = plumbing(schemac_header, relabel=True)
    missing, extra = sorted(theirs.keys() - ours.keys()), sorted(ours.keys() - theirs.keys())
    print(f"\nVmapGeneratedPlumbing.h: expected {len(theirs)}, schemac {len(ours)}, "
          f"missing {len(missing)}, extra {len(extra)}")  # fmt: skip
    assert not missing and not extra, f"missing {missing[:5]}, extra {extra[:5]}"
    assert [head for head in theirs if theirs[head] != ours[head]] == []


def test_every_kind_occurs(schemac_header: str) -> None:
    kinds = Counter(re.findall(r'vmap_check_escaped\(maybe_layer, "([^"]+)"\)', schemac_header))
    assert set(kinds) == {kind.value for kind in PlumbingKind}
