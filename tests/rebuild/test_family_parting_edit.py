"""An edit of one variant's default value, recompiled into the same OUT, writes what a cold
compile of the edited YAML writes.

A unit blind to defaults (``BackendEntry.blind_to``; Note [Keys blind to an aspect] in
``schemac.ir.slots``) is skipped when only default values changed.  Yet the passes relate
functions by signatures that hold their defaults: the variant families (``addr``,
``addr_``, ``addr.out``), the canonical function of a derivatives.yaml entry, a view and its
``_copy`` twin.  An edit of the default of one of them alone parts it from the others, and
the files of such a unit can change, so its key must show the parting (a unit's own slice
holds the families it reads; the module slices hold ``_signature_classes`` of
``schemac.backends.slices``).  ``test_blind_units.py`` changes every default alike, which
parts nothing, so it cannot see this.  Here torch's YAML is compiled, one function's default
is edited while its partners keep theirs, and the recompile into the same OUT must equal a
cold compile of the edited files, with some file of a unit blind to defaults changed.

* ``addr_`` parted from ``addr`` and ``addr.out``: the functionalization kernels change
  (the autograd units, compiled alongside, do not: an in-place variant takes its formulas
  from its functional one by the signature without defaults).
* ``expand_copy`` parted from its view ``expand``: it loses the view's formulas, so the
  autograd units change.  The two have different family keys; ``_signature_classes`` also
  relates them by the family key with a twin's base name mapped to its view's, and before
  it did, the recompile kept ``ExpandBackward0_copy`` and VariableType's ``expand_copy``
  kernel.  Only targets that do not need the view groups accept the edit (functionalization
  rejects a view without a twin).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest

from out_trees import contents
from torch_yaml_edits import compile_units, copy_torch_yaml, unit_of_file, units_blind_to

pytestmark = pytest.mark.torch

#: The units whose files depend on no default value, by ``target/backend``.
_BLIND_TO_DEFAULTS = units_blind_to("defaults")


class _Edit(NamedTuple):
    """A default of one function's schema changed, its partners' left as they are."""

    #: The edited function's name, as its ``func:`` line spells it.
    function: str
    old: str
    new: str
    #: The functions it is parted from, which keep ``old``.
    partners: tuple[str, ...]
    #: A unit blind to defaults whose files the edit changes.
    changes: str
    #: The targets compiled: the changed unit's and the autograd units' (~1.5 s a cold
    #: compile, where ``all`` takes ~3.5 s).
    targets: str


_EDITS = [
    pytest.param(
        _Edit(
            "addr_",
            "alpha=1",
            "alpha=2",
            ("addr", "addr.out"),
            "functionalization/functionalization",
            "autograd,python,functionalization",
        ),
        id="in-place-variant",
    ),
    pytest.param(
        _Edit(
            "expand_copy",
            "implicit=False",
            "implicit=True",
            ("expand",),
            "autograd/autograd",
            "autograd,python",
        ),
        id="view-copy-twin",
    ),
]


def _func_line(text: str, function: str) -> str:
    """The ``func:`` line of ``function``, which must have exactly one."""
    lines: list[str] = re.findall(rf"^- func: {re.escape(function)}\(.*$", text, flags=re.MULTILINE)
    assert len(lines) == 1, (function, lines)
    return lines[0]


@pytest.mark.parametrize("edit", _EDITS)
def test_one_variants_default_edited(edit: _Edit, tmp_path: Path) -> None:
    yaml_dir = copy_torch_yaml(tmp_path / "yaml")
    out, cold_out = tmp_path / "out", tmp_path / "cold"
    compile_units(yaml_dir, out, edit.targets)
    before = contents(out)

    native = yaml_dir / "native_functions.yaml"
    text = native.read_text(encoding="utf-8")
    line = _func_line(text, edit.function)
    assert line.count(edit.old) == 1, line
    native.write_text(text.replace(line, line.replace(edit.old, edit.new)), encoding="utf-8")
    edited = native.read_text(encoding="utf-8")
    assert edit.new in _func_line(edited, edit.function)
    for partner in edit.partners:
        assert edit.old in _func_line(edited, partner), partner

    compile_units(yaml_dir, out, edit.targets)
    units = unit_of_file(compile_units(yaml_dir, cold_out, edit.targets))
    after, cold = contents(out), contents(cold_out)
    stale = sorted(path for path in after.keys() | cold.keys() if after.get(path) != cold.get(path))
    assert not stale, [(path, units.get(path)) for path in stale[:10]]

    # The edit reached the files of a unit blind to defaults: one whose key shows no default.
    changed = {units[path] for path, data in cold.items() if before.get(path) != data}
    assert edit.changes in _BLIND_TO_DEFAULTS
    assert edit.changes in changed, sorted(changed)
