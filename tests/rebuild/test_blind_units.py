"""Each unit the registry calls blind to an aspect of the entries writes the same bytes
when that aspect changes (Note [Keys blind to an aspect] in ``schemac.ir.slots``).

A unit blind to an aspect is skipped after an edit of only that aspect, so its claim must
hold for every operator: torch's four YAML files are compiled once as they are and once
with every kernel name of every ``dispatch:`` table, every default value of every schema
(in each file that spells schemas, alike), or both, changed; every file of a unit claiming
blindness to that aspect must come out byte for byte the same.  The unit a file belongs to
is read from the state each compile leaves in OUT.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from out_trees import contents
from schemac.backends.registry import BACKENDS
from schemac.ir.slots import BLIND_ASPECTS
from torch_yaml_edits import compile_units, copy_torch_yaml

pytestmark = pytest.mark.torch


#: A ``dispatch:`` table's line: ``    CPU, CUDA: kernel``.
_DISPATCH_LINE = re.compile(r"^(    [A-Za-z][\w, ]*: )(\w+)$")
#: A default value in a schema: ``=`` then a value up to the next ``,`` or ``)``.
_DEFAULT = re.compile(r"=(\[[^\]]*\]|\"[^\"]*\"|'[^']*'|[^,)]+)")


def _other_kernel_names(text: str) -> str:
    """Every kernel name of every ``dispatch:`` table, renamed."""
    lines = text.split("\n")
    in_dispatch = False
    for index, line in enumerate(lines):
        if line.startswith("  ") and not line.startswith("   "):
            in_dispatch = line.strip() == "dispatch:"
            continue
        match = _DISPATCH_LINE.match(line)
        if in_dispatch and match:
            lines[index] = match[1] + match[2] + "_blind"
    return "\n".join(lines)


def _other_default(value: str) -> str:
    """A different default of the same type (None stays None: no other value fits)."""
    if value in ("True", "False"):
        return "False" if value == "True" else "True"
    if re.fullmatch(r"-?\d+", value):
        return str(int(value) + 7)
    if re.fullmatch(r"-?[\d.]+(e-?\d+)?", value):
        return repr(float(value) * 3 + 0.5)
    if value[:1] in "\"'" and "\\" not in value:
        return value[0] + value[1:-1] + "_blind" + value[0]
    if value.startswith("[") and re.fullmatch(r"\[(-?\d+,?)*\]", value):
        return "[" + ",".join(str(int(n) + 7) for n in re.findall(r"-?\d+", value)) + "]"
    return value


def _other_defaults(text: str) -> str:
    """Every default value of every schema line (``func:``, derivatives' and deprecated
    ``name:``), changed alike, so that the files still agree with each other."""

    def schema_line(match: re.Match[str]) -> str:
        # bernoulli_.float's p=0.5 is what makes bernoulli.p its functional
        # variant (Note [bernoulli.p signature] in schemac.ir.signature).
        if match[2].startswith("bernoulli"):
            return match[0]
        return match[1] + _DEFAULT.sub(lambda m: "=" + _other_default(m[1]), match[2])

    return re.sub(r"^(- (?:func|name): )(.*)$", schema_line, text, flags=re.MULTILINE)


_CHANGES: dict[str, Callable[[str, str], str]] = {
    "kernel-names": lambda name, text: (
        _other_kernel_names(text) if name == "native_functions" else text
    ),
    "defaults": lambda name, text: _other_defaults(text),
    "kernel-names+defaults": lambda name, text: _other_defaults(
        _other_kernel_names(text) if name == "native_functions" else text
    ),
}


@pytest.fixture(scope="module")
def as_written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    root = tmp_path_factory.mktemp("as-written")
    out = root / "out"
    return out, compile_units(copy_torch_yaml(root / "yaml"), out)


def _claims(aspect: str) -> list[str]:
    return sorted(
        f"{target}/{entry.name}"
        for entry in BACKENDS
        if entry.blind_to == aspect
        for target in entry.targets
    )


def test_every_claim_names_an_aspect() -> None:
    assert {entry.blind_to for entry in BACKENDS} <= {"", *BLIND_ASPECTS}
    assert all(_claims(aspect) for aspect in BLIND_ASPECTS)


@pytest.mark.parametrize("aspect", BLIND_ASPECTS)
def test_units_blind_to_an_aspect_write_the_same_bytes(
    aspect: str, as_written: tuple[Path, dict[str, list[str]]], tmp_path: Path
) -> None:
    out, units = as_written
    changed_out = tmp_path / "out"
    changed_units = compile_units(copy_torch_yaml(tmp_path / "yaml", _CHANGES[aspect]), changed_out)
    before, after = contents(out), contents(changed_out)
    # The change reached the output: some unit that is not blind to it wrote other bytes.
    assert any(before.get(path) != data for path, data in after.items())
    for unit in _claims(aspect):
        assert changed_units.get(unit) == units.get(unit), unit
        differing = [path for path in units.get(unit, []) if before[path] != after[path]]
        assert not differing, f"{unit} is not blind to {aspect}: {differing[:5]}"
