"""The benchmark runner works end to end (CI never runs ``make bench``: this is its check).

One rep of every benchmark on the toy library: small enough to take seconds,
real enough to run both sides of every comparison (torchgen included), the
subprocess timing of the ATen bench and its unchanged-rerun check.  Nothing
here asserts a time: on a shared machine only the structure of the report is
stable.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.torch
def test_runner_quick_on_toyops() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--input", "examples/toyops"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert re.search(r"^stage\s+unit\s+schemac\s+torchgen\s+ratio\s+target\s+met\?", out, re.M)
    stages = ("front end (load)", "middle end (load+passes)", "aten compile", "aten peak RSS")
    for stage in (*stages, "empty compile -t all"):
        unit = r"(?:wall s|cpu s|MiB)"
        row = re.search(
            rf"^{re.escape(stage)}\s+{unit}\s+([\d.]+)\s+([\d.]+)\s+[\d.]+x\s", out, re.M
        )
        assert row, f"no row for {stage!r} in:\n{out}"
        assert float(row.group(1)) > 0 and float(row.group(2)) > 0
    # The second schemac run over its own output with the same input rewrites nothing.
    rerun = re.search(r"(\d+) of (\d+) files rewritten, (\d+) created, (\d+) removed", out)
    assert rerun, out
    assert int(rerun.group(2)) > 100
    assert (rerun.group(1), rerun.group(3), rerun.group(4)) == ("0", "0", "0")
    # Both sides of the empty compile wrote their fixed files.
    assert re.search(r"empty compile -t all: .*files: schemac [1-9]\d*, torchgen [1-9]\d* ", out)
    # A bench that cannot compare on a toy library says so instead of failing.
    assert "skipped bench_python:" in out


def test_table_formatting() -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks import Stage
    from benchmarks.__main__ import format_table

    table = format_table(
        [Stage("fast", 1.0, 10.0, 0.2), Stage("slow", 3.0, 4.0, 0.5, unit="cpu s")]
    ).splitlines()
    assert table[0].split() == ["stage", "unit", "schemac", "torchgen", "ratio", "target", "met?"]
    assert table[2].split() == ["fast", "wall", "s", "1.000", "10.000", "0.10x", ">=", "5x",
                                "faster", "yes"]  # fmt: skip
    assert table[3].split()[-4:] == ["0.75x", "<=", "0.50x", "NO"]
