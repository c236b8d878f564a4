"""Late passes in a worker beside the other backends: the same outcome as one process.

See Note [Late work] in schemac.backends.late_work.  Compiles run the CLI on
the toy library (examples/toyops) with ``-j 1`` and ``-j 2`` and compare
everything a user sees: files, exit code, messages.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from schemac.backends.late_work import LateWork, emit_late
from schemac.backends.output.background import can_fork
from schemac.cli_pipeline import compile_pass_manager
from schemac.compile_plan import split_late_work
from schemac.frontend.loader import load_module
from schemac.passes.base import PassContext

ROOT = Path(__file__).resolve().parents[2]
TOYOPS = ROOT / "examples" / "toyops"


def _split(
    targets: list[str], select: Path | None = None
) -> tuple[tuple[str, ...], LateWork | None]:
    manager = compile_pass_manager(targets, select)
    early, late = split_late_work(manager, targets, PassContext())
    return early.names(), late


def test_python_leaves_matching_derivatives_to_the_node_getters() -> None:
    early, late = _split(["python"])
    assert early == ("resolve-dispatch", "autogen-variants")
    assert late is not None
    assert late.pass_names == ("match-derivatives",)
    assert late.backends == {"python-autograd-nodes"}


@pytest.mark.parametrize(
    "targets",
    [
        ["autograd"],  # every backend needs the late facts: nothing to overlap
        ["headers", "cpu"],  # no pass provides only derived tables
    ],
)
def test_no_split_without_both_kinds_of_backend(targets: list[str]) -> None:
    manager = compile_pass_manager(targets, None)
    early, late = split_late_work(manager, targets, PassContext())
    assert late is None
    assert early is manager


def test_no_split_when_an_early_pass_needs_a_late_fact(tmp_path: Path) -> None:
    # selective-build reads the autograd infos, so matching them cannot wait.
    selection = tmp_path / "selected.yaml"
    selection.write_text("- aten::scale\n")
    _, late = _split(["python"], selection)
    assert late is None


def test_worker_emits_exactly_the_late_backends() -> None:
    module = load_module(
        TOYOPS / "native_functions.yaml", TOYOPS / "tags.yaml", TOYOPS / "derivatives.yaml"
    )
    manager = compile_pass_manager(["python"], None)
    early, late = split_late_work(manager, ["python"], PassContext())
    assert late is not None
    result = emit_late(early.run(PassContext(), module).module, late, ["python"])
    paths = sorted(f.path for f in result.files)
    assert paths[0] == "python/python_functions.h"
    assert all(p.startswith("python/python_functions") for p in paths)
    assert {f.target for f in result.files} == {"python"}
    assert [name for name, _ in result.timings] == [
        "match-derivatives (worker)",
        "python (worker)",
    ]


def _compile(
    out: Path,
    jobs: int,
    *,
    derivatives: Path = TOYOPS / "derivatives.yaml",
    native: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable, "-m", "schemac", "compile", str(native or TOYOPS / "native_functions.yaml"),
        "--tags", str(TOYOPS / "tags.yaml"), "--derivatives", str(derivatives),
        "-t", "python,schema,autograd", "-o", str(out), "-j", str(jobs),
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)


def _tree(root: Path) -> dict[str, bytes]:
    """Every output file's bytes; the no-op check's record (``.schemac-state``)
    names the command line, which differs by ``-j`` on purpose, and the fragment
    cache holds the worker's pieces after the main process's."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name not in (".schemac-state", ".schemac-fragments")
    }


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_same_files_with_and_without_the_worker(tmp_path: Path) -> None:
    one = _compile(tmp_path / "one", 1)
    two = _compile(tmp_path / "two", 2)
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    files = _tree(tmp_path / "one")
    assert any(path.startswith("python/python_functions_") for path in files)
    assert files == _tree(tmp_path / "two")


def _broken_derivatives(tmp_path: Path) -> Path:
    text = (TOYOPS / "derivatives.yaml").read_text()
    broken = text.replace("self: grad * factor", "self: grad * no_such_name", 1)
    assert broken != text
    path = tmp_path / "derivatives.yaml"
    path.write_text(broken)
    return path


def _output_before(tmp_path: Path, name: str) -> Path:
    """An output directory holding an earlier, successful compile."""
    out = tmp_path / name
    assert _compile(out, 1).returncode == 0
    return out


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_an_error_of_the_late_passes_is_reported_as_in_one_process(tmp_path: Path) -> None:
    derivatives = _broken_derivatives(tmp_path)
    outs = [_output_before(tmp_path, f"out{jobs}") for jobs in (1, 2)]
    before = _tree(outs[0])
    one = _compile(outs[0], 1, derivatives=derivatives)
    two = _compile(outs[1], 2, derivatives=derivatives)
    assert one.returncode == two.returncode == 1
    assert "unknown name 'no_such_name'" in one.stderr
    assert two.stderr == one.stderr
    assert _tree(outs[0]) == _tree(outs[1]) == before  # nothing written


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_a_late_pass_error_comes_before_an_error_found_while_emitting(tmp_path: Path) -> None:
    # Both inputs are bad: an argument named like a C++ keyword (found by the
    # name check in the main process) and a derivative formula (found by the
    # worker).  In one process the pass runs first; so its error wins in both.
    native = tmp_path / "native_functions.yaml"
    text = (TOYOPS / "native_functions.yaml").read_text()
    native.write_text(text + "\n- func: keyword_arg(Tensor self, int default) -> Tensor\n")
    derivatives = _broken_derivatives(tmp_path)
    one = _compile(tmp_path / "one", 1, derivatives=derivatives, native=native)
    two = _compile(tmp_path / "two", 2, derivatives=derivatives, native=native)
    assert one.returncode == two.returncode == 1
    assert "no_such_name" in one.stderr and "'default'" not in one.stderr
    assert two.stderr == one.stderr
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_a_crashing_worker_fails_the_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import schemac.backends.late_work as late_work
    from schemac.backends.driver import compile_to_directory

    def crash(*_: object) -> object:
        raise ZeroDivisionError("boom in the worker")

    monkeypatch.setattr(late_work, "emit_late", crash)  # the forked worker inherits it
    module = load_module(
        TOYOPS / "native_functions.yaml", TOYOPS / "tags.yaml", TOYOPS / "derivatives.yaml"
    )
    manager = compile_pass_manager(["python"], None)
    early, late = split_late_work(manager, ["python"], PassContext())
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="boom in the worker"):
        compile_to_directory(
            early.run(PassContext(), module).module, ["python"], out, jobs=2, late=late
        )
    assert not out.exists()


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_a_bad_name_found_by_the_worker_is_reported_as_in_one_process(tmp_path: Path) -> None:
    # With a late worker the C++ names are checked there (after the late
    # passes), while the main process already emits the binding files.
    native = tmp_path / "native_functions.yaml"
    text = (TOYOPS / "native_functions.yaml").read_text()
    native.write_text(text + "\n- func: keyword_arg(Tensor self, int default) -> Tensor\n")
    one = _compile(tmp_path / "one", 1, native=native)
    two = _compile(tmp_path / "two", 2, native=native)
    assert one.returncode == two.returncode == 1
    assert "'default'" in one.stderr
    assert two.stderr == one.stderr
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()
