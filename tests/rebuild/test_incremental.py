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

from out_trees import BOOKKEEPING, contents
from schemac.cli import main
from schemac.frontend.torch_paths import torch_yaml_paths

pytestmark = pytest.mark.torch

#: A target of each kind of reads: schema and cpu read native_functions.yaml and
#: tags.yaml, autograd derivatives.yaml too; headers defers its per-operator
#: files (Note [File reuse]); declarations, the registration targets and
#: functionalization render their per-operator pieces as fragments (Note
#: [Fragment reuse]): cpu a plain key, meta and composite the wrappers every
#: structured group gets (generated Meta and CompositeExplicitAutogradNonFunctional
#: kernels, where groups cross operators); python reads deprecated.yaml and renders
#: its bindings, grouped by name across entries, in buckets of fragments (Note
#: [Fragment buckets]).  cpu, cuda, meta, composite, functionalization and aoti skip
#: their emit calls when their slice of the module did not change (Note [Unit slices]):
#: a slice missing a value their files read leaves a stale file after an edit of it.
TARGETS = (
    "headers,schema,cpu,cuda,meta,composite,autograd,declarations,functionalization,python,aoti"
)
#: Bookkeeping, not output: the state and the fragment cache.


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


def _identities(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in BOOKKEEPING
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


# Edits across the relations that cross operator boundaries (Note [File reuse]):
# a compile that fails after one is fine, it must then leave OUT as it was.
#: A ``- func:`` line's operator base name and a bool argument's default.
_OP_WITH_BOOL = r"(?P<op>\w+?)_?[.(][^\n]*\bbool (?P<arg>\w+)=(?P<value>False|True)\b"


def _flip_bool(files: dict[str, Path], match: re.Match[str]) -> None:
    """Flip the bool default ``match`` found (:data:`_OP_WITH_BOOL`) in every variant of that
    operator (defaults agree across a variant group) and its derivatives.yaml
    entries."""
    value = match["value"]
    flipped = "True" if value == "False" else "False"
    op = re.escape(match["op"])
    lines = rf"^(- (?:func|name): {op}_?[.(][^\n]*\bbool {match['arg']}=){value}\b"
    for name in ("native_functions", "derivatives"):
        path = files[name]
        path.write_text(re.sub(lines, rf"\g<1>{flipped}", path.read_text(), flags=re.MULTILINE))


def flip_any_default(files: dict[str, Path], n: int) -> None:
    """Any function's bool default: out= and in-place siblings, structured groups."""
    path = files["native_functions"]
    text = path.read_text()
    _flip_bool(files, _nth(rf"^- func: {_OP_WITH_BOOL}", text, n))


def rename_kernel(files: dict[str, Path], n: int) -> None:
    """Any key's kernel of any entry: view ops with a _copy, structured kernels."""
    path = files["native_functions"]
    text = path.read_text()
    match = _nth(r"^    \w+: (\w+)$", text, n)
    path.write_text(text[: match.end(1)] + "_edited" + text[match.end(1) :])


def edit_view_with_copy(files: dict[str, Path], n: int) -> None:
    """A kernel of a view operator that has a *_copy variant."""
    path = files["native_functions"]
    text = path.read_text()
    match = _nth(
        r"^- func: (?:transpose\.int|permute|expand|select\.int|diagonal|unfold)\(.*\n"
        r"(?:  .*\n)*?    CompositeExplicitAutograd: (\w+)$",
        text,
        n,
    )
    path.write_text(text[: match.end(1)] + "_edited" + text[match.end(1) :])


def edit_structured_delegate(files: dict[str, Path], n: int) -> None:
    """A default of an entry that delegates to a structured kernel (its out= sibling's)."""
    path = files["native_functions"]
    text = path.read_text()
    match = _nth(
        rf"^- func: {_OP_WITH_BOOL}[^\n]*\n(?:  [^\n]*\n)*?  structured_delegate:", text, n
    )
    _flip_bool(files, match)


def add_python_overload(files: dict[str, Path], n: int) -> None:
    """A new overload of an existing (Python-bound) name."""
    path = files["native_functions"]
    text = path.read_text()
    random = r"(?!\w*(?:rand|dropout|bernoulli|normal|multinomial|poisson|uniform|cauchy))"
    name = _nth(rf"^- func: {random}([a-z]\w*)[.(]", text, n).group(1)
    entry = f"- func: {name}.schemac_py{n}(Tensor self, int[] schemac_sizes) -> Tensor\n"
    path.write_text(text + "\n" + entry + "  variants: function\n")


EDITS = (
    flip_default,
    add_overload,
    change_formula,
    change_dispatch,
    add_comment,
    flip_any_default,
    rename_kernel,
    edit_view_with_copy,
    edit_structured_delegate,
    add_python_overload,
)
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
        before, identity = contents(out), _identities(out)
        edit(files, n)
        code = main(_argv(files, out))
        cold = work / f"cold{number}"
        # A cold compile: an empty directory, so no state and no reuse.
        assert main(_argv(files, cold)) == code, edit.__name__
        capsys.readouterr()
        if code != 0:
            assert contents(out) == before  # a failed compile changes nothing
            continue
        after = contents(out)
        assert after == contents(cold), edit.__name__
        now = _identities(out)
        rewritten = {p for p in now if identity.get(p) != now[p]}
        differing = {p for p in after if before.get(p) != after[p]}
        assert rewritten == differing, edit.__name__
        shutil.rmtree(cold)
