"""An edit that makes one function's kernel share another's name, recompiled into the same OUT,
writes what a cold compile of the edited YAML writes.

A unit blind to kernel names (``BackendEntry.blind_to``; Note [Keys blind to an aspect] in
``schemac.ir.slots``) is skipped after an edit of kernel names alone.  ``test_blind_units.py``
renames every kernel alike, which keeps every equality between names; a unit that related
functions by their kernels (two declarations of one kernel merged, say) would pass it and still
go stale when one kernel is renamed to another's name.  Here ``sub.out``'s CPU and CUDA kernel
takes the name of ``mul.out``'s (``sub_out`` -> ``mul_out``), so two functions share a kernel that
did not, and the recompile must equal a cold compile, with the registrations changed and a unit
blind to kernel names kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from out_trees import contents
from torch_yaml_edits import compile_units, copy_torch_yaml, unit_of_file, units_blind_to

pytestmark = pytest.mark.torch

#: The units whose files name no kernel, by ``target/backend``.
_BLIND_TO_KERNEL_NAMES = units_blind_to("kernel-names")
#: ``sub.out``'s dispatch line, and the same with ``mul.out``'s kernel.
_LINE = "    CPU, CUDA: sub_out\n"
_SHARED = "    CPU, CUDA: mul_out\n"


def test_a_kernel_renamed_to_anothers_name(tmp_path: Path) -> None:
    yaml_dir = copy_torch_yaml(tmp_path / "yaml")
    out, cold_out = tmp_path / "out", tmp_path / "cold"
    compile_units(yaml_dir, out)
    before = contents(out)

    native = yaml_dir / "native_functions.yaml"
    text = native.read_text(encoding="utf-8")
    head, sub_out, tail = text.partition("- func: sub.out(")
    assert sub_out and _LINE in tail.split("- func:", 1)[0], "sub.out's CPU, CUDA kernel moved"
    assert "    CPU, CUDA, MPS, MTIA: mul_out\n" in text, "mul.out's kernel moved"
    native.write_text(head + sub_out + tail.replace(_LINE, _SHARED, 1), encoding="utf-8")

    compile_units(yaml_dir, out)
    units = unit_of_file(compile_units(yaml_dir, cold_out))
    after, cold = contents(out), contents(cold_out)
    stale = sorted(path for path in after.keys() | cold.keys() if after.get(path) != cold.get(path))
    assert not stale, [(path, units.get(path)) for path in stale[:10]]

    # The edit reached the files that name kernels, and no file of a unit blind to them.
    changed = {units[path] for path, data in cold.items() if before.get(path) != data}
    assert "cpu/aten-registrations" in changed, sorted(changed)
    assert not changed & _BLIND_TO_KERNEL_NAMES, sorted(changed & _BLIND_TO_KERNEL_NAMES)
