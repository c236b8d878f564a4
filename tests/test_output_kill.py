"""``kill -9`` during the commit of a real compile, and two compiles into one OUT at once.

A real compile is ``schemac compile --torch -t headers`` (7,600 files).  The
old tree is the compile of torch's YAML; the new one reads the same YAML
under another file name, so every banner, hence every file, changes: the
commit moves 7,600 files, the longest commit there is.  Each trial starts
the compile towards the tree OUT does not hold in a subprocess that
says when ``commit`` starts (a test-only wrapper around the driver's
``commit``; schemac has no hook for it), waits a random time within the
measured length of the commit step, and sends SIGKILL.  Then:

* with no commit directory beside OUT (killed before the commit point, or
  after the end), OUT is byte for byte the old tree or the new one;
* with one (killed during the moves, or while its remains were removed),
  what the next run does first (``recover``) makes OUT the new tree;
* the next compile leaves OUT equal to a cold compile, with nothing left
  beside it.

SCHEMAC_KILL_TRIALS sets the number of trials (default 2: seven compiles in
all; ``make faults`` runs 25).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from out_trees import BOOKKEEPING
from schemac.backends.output.journal import recover
from schemac.backends.output.lock import OutPlaces
from schemac.frontend.loader import torch_yaml_paths

pytestmark = pytest.mark.torch

TRIALS = int(os.environ.get("SCHEMAC_KILL_TRIALS", "2"))

#: Runs the CLI with the driver's ``commit`` wrapped to print COMMIT before and DONE after.
_WRAPPER = """
import sys
import schemac.backends.driver as driver
from schemac.cli import main

real = driver.commit

def commit(*args, **kwargs):
    sys.stdout.write("COMMIT\\n")
    sys.stdout.flush()
    report = real(*args, **kwargs)
    sys.stdout.write("DONE\\n")
    sys.stdout.flush()
    return report

driver.commit = commit
sys.exit(main(sys.argv[1:]))
"""


def _tree(root: Path) -> dict[str, bytes]:
    """Every output file's bytes (not the bookkeeping)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        # Bookkeeping differs by design: the no-op check's stat record, and caches
        # trusted only when their digests say so, so a kill may leave either run's.
        if p.is_file() and p.name not in BOOKKEEPING
    }


def _beside(out: Path) -> list[str]:
    """schemac's names beside OUT; the lock file of a killed compile is harmless, and ignored."""
    places = OutPlaces.of(out)
    lock = Path(places.lock).name
    return sorted(
        p.name for p in out.parent.iterdir() if p.name.startswith(places.prefix) and p.name != lock
    )


def _left_by_the_commit(out: Path) -> list[str]:
    """:func:`_beside` without the fragment cache's temporary, which a compile killed at any
    point leaves (the next compile's recovery removes it): what the commit left."""
    fragments = f"{OutPlaces.of(out).prefix}fragments-"
    return [name for name in _beside(out) if not name.startswith(fragments)]


def _argv(native: Path, tags: Path, out: Path) -> list[str]:
    return ["compile", str(native), "--tags", str(tags), "-t", "headers", "-o", str(out)]


def _start(argv: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _WRAPPER, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(process: subprocess.Popen[str], word: str) -> float:
    assert process.stdout is not None
    for line in process.stdout:
        if line.strip() == word:
            return time.monotonic()
    raise AssertionError(f"the compile ended before {word}: {process.wait()}")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The old and the new YAML, and a cold compile of each."""
    torch = torch_yaml_paths()
    root = tmp_path_factory.mktemp("kill")
    tags = root / "tags.yaml"
    shutil.copyfile(torch.tags, tags)
    old, new = root / "native_functions.yaml", root / "native_functions_next.yaml"
    shutil.copyfile(torch.native_functions, old)
    shutil.copyfile(torch.native_functions, new)
    for name, native in (("old", old), ("new", new)):
        done = subprocess.run(
            [sys.executable, "-m", "schemac", *_argv(native, tags, root / name)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
    return {
        "old_yaml": old,
        "new_yaml": new,
        "tags": tags,
        "old": root / "old",
        "new": root / "new",
    }


def test_kill_9_during_the_commit_leaves_the_old_or_the_new_tree(
    inputs: dict[str, Path], tmp_path: Path
) -> None:
    trees = {"old": _tree(inputs["old"]), "new": _tree(inputs["new"])}
    assert len(trees["new"]) > 7000 and trees["old"].keys() == trees["new"].keys()
    assert trees["old"] != trees["new"]
    out = tmp_path / "out"
    argv = {name: _argv(inputs[f"{name}_yaml"], inputs["tags"], out) for name in ("old", "new")}

    # Calibrate: how long the commit step of this compile takes here, now.
    shutil.copytree(inputs["old"], out)
    process = _start(argv["new"])
    began = _wait_for(process, "COMMIT")
    length = _wait_for(process, "DONE") - began
    assert process.wait() == 0
    assert _tree(out) == trees["new"]

    # Each trial compiles OUT towards the other tree, so no trial needs a fresh copy.
    rng = random.Random(int(os.environ.get("SCHEMAC_KILL_SEED", "14")))
    outcomes = {"old": 0, "new": 0, "recovered": 0}
    source = "new"
    for trial in range(TRIALS):
        aim = "old" if source == "new" else "new"
        process = _start(argv[aim])
        _wait_for(process, "COMMIT")
        delay = rng.uniform(0, length * 1.2)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        where = f"trial {trial}, killed {delay:.3f} s into a {length:.3f} s commit"
        if _left_by_the_commit(out) == [Path(OutPlaces.of(out).commit).name]:
            # Killed during the moves (replayed now) or while removing the
            # finished commit directory (its journal gone first: nothing to replay).
            replayed = recover(str(out)) is not None
            assert _tree(out) == trees[aim], where
            outcomes["recovered" if replayed else "new"] += 1
        else:
            got = _tree(out)
            assert got in (trees[source], trees[aim]), where
            outcomes["old" if got == trees[source] else "new"] += 1
        # The next run, whatever the kill left (staging directories included), equals a cold run.
        done = subprocess.run(
            [sys.executable, "-m", "schemac", *argv[aim]], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert _tree(out) == trees[aim], where
        assert _beside(out) == [], where
        assert not Path(OutPlaces.of(out).lock).exists()
        source = aim
    print(f"kill -9 outcomes over {TRIALS} trials: {outcomes}")


def test_two_compiles_into_one_out_serialise(inputs: dict[str, Path], tmp_path: Path) -> None:
    """The real YAML and a small library at once: the second waits, the tree is its own."""
    toyops = Path(__file__).resolve().parents[1] / "examples" / "toyops"
    out = tmp_path / "out"
    first = _start(_argv(inputs["old_yaml"], inputs["tags"], out))
    lock = Path(OutPlaces.of(out).lock)
    deadline = time.monotonic() + 60
    while not lock.exists():
        assert first.poll() is None and time.monotonic() < deadline, "the first never locked"
        time.sleep(0.01)
    second = _start(_argv(toyops / "native_functions.yaml", toyops / "tags.yaml", out))
    _, first_err = first.communicate(timeout=120)
    _, second_err = second.communicate(timeout=120)
    assert (first.returncode, second.returncode) == (0, 0), first_err + second_err
    assert "waiting for another schemac" in second_err, second_err
    assert "waiting" not in first_err
    cold = tmp_path / "cold"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemac",
            *_argv(toyops / "native_functions.yaml", toyops / "tags.yaml", cold),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert _tree(out) == _tree(cold)
    assert _beside(out) == []
