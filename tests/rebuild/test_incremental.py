"""Incremental compiles equal cold ones (Note [Target reuse]), on random edits of torch's YAML.

Each example copies torch's four YAML files, compiles them into OUT, then applies a
sequence of small random edits (a default value, a new overload, a derivative formula, a
dispatch entry, a comment), recompiling OUT after each.  After every step OUT must hold
exactly what a cold compile of the edited files writes into an empty directory, and the
files the incremental compile rewrote (new inode or mtime) must be exactly the files whose
bytes changed.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac.cli import main
from schemac.frontend.torch_paths import torch_yaml_paths

pytestmark = pytest.mark.torch

#: A target of each kind of reads: schema and cpu read native_functions.yaml and
#: tags.yaml, autograd derivatives.yaml too.
TARGETS = "schema,cpu,autograd"
STATE = ".schemac-state"


def _copy_torch_yaml(where: Path) -> dict[str, Path]:
    paths = torch_yaml_paths()
    copies = {}
    for name in ("native_functions", "tags", "derivatives", "deprecated"):
        source = Path(getattr(paths, name))
        copies[name] = where / source.name
        shutil.copy(source, copies[name])
    return copies


def _argv(files: dict[str, Path], out: Path) -> list[str]:
    return [
        "compile",
        str(files["native_functions"]),
        "--tags",
        str(files["tags"]),
        "--derivatives",
        str(files["derivatives"]),
        "--deprecated",
        str(files["deprecated"]),
        "-t",
        TARGETS,
        "-o",
        str(out),
    ]


def _contents(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != STATE
    }


def _identities(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != STATE
    }


# -- edits ------------------------------------------------------------------------------
def _nth(pattern: str, text: str, n: int) -> re.Match[str]:
    found = list(re.finditer(pattern, text, flags=re.MULTILINE))
    return found[n % len(found)]


def flip_default(files: dict[str, Path], n: int) -> None:
    path = files["native_functions"]
    text = path.read_text()
    # Operators without variants or derivatives.yaml entries, whose signatures
    # would have to change along (other edits make a compile fail on both sides).
    match = _nth(
        r"^- func: (?:isclose|group_norm|layer_norm|kl_div|vander)\(.*\bbool \w+=(False|True)\b",
        text,
        n,
    )
    flipped = "True" if match.group(1) == "False" else "False"
    path.write_text(text[: match.start(1)] + flipped + text[match.end(1) :])


def add_overload(files: dict[str, Path], n: int) -> None:
    """A copy of a plain function-only entry under a new overload name."""
    path = files["native_functions"]
    text = path.read_text()
    match = _nth(
        r"^- func: (\w+)\.(\w+)(\(Tensor self, Tensor other\) -> Tensor)\n(?:  [^\n]*\n)*?",
        text,
        n,
    )
    entry = f"- func: {match.group(1)}.schemac_edit{n}{match.group(3)}\n  variants: function\n"
    path.write_text(text + "\n" + entry)


def change_formula(files: dict[str, Path], n: int) -> None:
    path = files["derivatives"]
    text = path.read_text()
    match = _nth(r"^  self: (grad[^\n#]*)$", text, n)
    path.write_text(text[: match.start(1)] + f"({match.group(1)}) * 2" + text[match.end(1) :])


def change_dispatch(files: dict[str, Path], n: int) -> None:
    path = files["native_functions"]
    text = path.read_text()
    match = _nth(r"^    CPU: (\w+)$", text, n)
    path.write_text(text[: match.end(1)] + "_edited" + text[match.end(1) :])


def add_comment(files: dict[str, Path], n: int) -> None:
    for name in ("native_functions", "derivatives"):
        path = files[name]
        path.write_text(path.read_text() + f"\n# edit {n}\n")


EDITS = (flip_default, add_overload, change_formula, change_dispatch, add_comment)
edit_steps = st.lists(
    st.tuples(st.sampled_from(EDITS), st.integers(min_value=0, max_value=10_000)),
    min_size=1,
    max_size=2,
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], Path]:
    """Pristine copies of torch's YAML and an OUT compiled from them, shared by the examples.

    Each example starts from the YAML as torch ships it and from OUT as the previous
    example left it: the first compile of an example undoes the previous edits and makes
    the new one, a transition as good as any to test.
    """
    work = tmp_path_factory.mktemp("edits")
    pristine = _copy_torch_yaml(tmp_path_factory.mktemp("pristine"))
    files = {name: work / path.name for name, path in pristine.items()}
    for name, path in pristine.items():
        shutil.copy(path, files[name])
    assert main(_argv(files, work / "out")) == 0
    return work, pristine, work / "out"


@settings(
    max_examples=2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=edit_steps)
def test_incremental_output_is_the_cold_output(workspace, steps, capsys) -> None:
    work, pristine, out = workspace
    files = {name: work / path.name for name, path in pristine.items()}
    for name, path in pristine.items():
        shutil.copy(path, files[name])
    for number, (edit, n) in enumerate(steps):
        before, identity = _contents(out), _identities(out)
        edit(files, n)
        code = main(_argv(files, out))
        cold = work / f"cold{number}"
        # A cold compile: an empty directory, so no state and no reuse.
        assert main(_argv(files, cold)) == code, edit.__name__
        capsys.readouterr()
        if code != 0:
            assert _contents(out) == before  # a failed compile changes nothing
            continue
        after = _contents(out)
        assert after == _contents(cold), edit.__name__
        now = _identities(out)
        rewritten = {p for p in now if identity.get(p) != now[p]}
        differing = {p for p in after if before.get(p) != after[p]}
        assert rewritten == differing, edit.__name__
        shutil.rmtree(cold)
