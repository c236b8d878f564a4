"""Host text follows the target release (Note [Host text of another release]).

``--torch`` finds torch 2.13.0 (the test extra's); ``--torch-version 2.14``
names another release, whose TensorBody.h, Functions.cpp and TensorMethods.cpp
differ from 2.13's, while variable_factories.h and the Python templates are
the same text in both.  The profiles' digests come from each wheel
(tools/extract_profile.py), so these tests also check them against the
releases' own files.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.backends.host_release import (
    DIGESTS,
    SPLICED_BY_TARGET,
    SPLICED_FILES,
    compare_host_text,
    host_text_digest,
)
from schemac.cli import main
from schemac.frontend.host_templates import host_root_of, load_host_templates
from schemac.frontend.loader import load_module, torch_yaml_paths
from schemac.ir.host import HostFile, HostTemplates
from schemac.passes.manager import run_pipeline
from schemac.profiles import load_profile
from torch_releases import reference_release

pytestmark = pytest.mark.torch

_PYTHON = SPLICED_BY_TARGET["python"]

#: An operator of each kind the spliced files list: a method, a function, a factory.
NATIVE = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CPU: add
- func: ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: ones
"""  # noqa: E501
DERIVATIVES = "- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
DERIVATIVES += "  self: grad\n  other: grad * alpha\n"


@pytest.fixture
def toy(tmp_path: Path) -> list[str]:
    """The toy YAML, named explicitly beside ``--torch`` (whose host text is used)."""
    (tmp_path / "native_functions.yaml").write_text(NATIVE)
    (tmp_path / "derivatives.yaml").write_text(DERIVATIVES)
    (tmp_path / "deprecated.yaml").write_text("[]\n")
    tags = torch_yaml_paths().tags
    return [
        str(tmp_path / "native_functions.yaml"),
        *("--tags", str(tags), "--derivatives", str(tmp_path / "derivatives.yaml")),
        *("--deprecated", str(tmp_path / "deprecated.yaml"), "--torch"),
    ]


def _compile(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["compile", *argv])
    return code, capsys.readouterr().err


def test_text_of_another_release_is_an_error_naming_both(
    toy: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, err = _compile(capsys, *toy, "--torch-version", "2.14", "-t", "headers", "-o", str(out))
    assert code == 1
    assert not out.exists()  # nothing written
    files = re.findall(r"^(\S+): error: host template '([^']+)'", err, re.M)
    assert sorted(name for _, name in files) == [
        "aten/Functions.cpp",
        "aten/TensorBody.h",
        "aten/TensorMethods.cpp",
    ]
    assert all(path.endswith(name.split("/")[1]) for path, name in files)
    assert "is torch 2.13.0+cpu's text (found by --torch)" in err
    assert "differs from torch 2.14's" in err
    assert "hint: give --host-templates DIR with torch 2.14's templates" in err


def test_the_same_text_in_both_releases_is_a_warning(
    toy: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*toy, "--torch-version", "2.14", "-t", "autograd", "-o", str(tmp_path / "out")]
    code, err = _compile(capsys, *argv)
    assert code == 0
    assert (
        "<command line>: warning: host templates come from torch 2.13.0+cpu (found by --torch), "
        "not from the target release 2.14; 1 of the 1 files this run splices are checked to be "
        "the same text in torch 2.14"
    ) in err
    assert "--host-templates DIR" in err
    code, err = _compile(capsys, *argv, "--Werror")
    assert code == 1
    assert "[-Werror]" in err


def test_no_diagnostic_when_the_text_is_the_targets(
    toy: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The found torch is the target; a run that splices nothing; explicit text.
    runs = [
        ["--torch-version", "2.13", "-t", "headers"],
        ["--torch-version", "2.14", "-t", "cpu"],
        ["--torch-version", "generic", "-t", "autograd"],
        [
            *("--torch-version", "2.14", "-t", "headers"),
            *("--host-templates", str(reference_release("2.14.1").root)),
        ],
    ]
    for number, extra in enumerate(runs):
        code, err = _compile(capsys, *toy, *extra, "-o", str(tmp_path / f"out{number}"))
        assert code == 0, err
        assert "host template" not in err, extra


def test_profiles_record_each_release_own_text() -> None:
    for version in ("2.13.0", "2.14.1"):
        release = reference_release(version)
        host = load_host_templates(release.packaged)
        digests = load_profile(release.short).table(DIGESTS)
        assert sorted(digests) == sorted(SPLICED_FILES)
        assert {n: host_text_digest(host.files[n].text) for n in SPLICED_FILES} == digests
    comparison = compare_host_text(host, ["headers", "python"], load_profile("2.13"))
    assert sorted(f.name for f in comparison.differing) == [
        "aten/Functions.cpp",
        "aten/TensorBody.h",
        "aten/TensorMethods.cpp",
    ]
    assert len(comparison.same) == len(SPLICED_BY_TARGET["headers"] + _PYTHON) - 3


class _Recording(HostTemplates):
    """Host templates that note every file a backend asks for."""

    def get(self, folder: str, name: str) -> HostFile | None:
        _ASKED.add(f"{folder}/{name}")
        return super().get(folder, name)


_ASKED: set[str] = set()


@pytest.mark.parametrize("target", ["headers", "autograd", "python", "cpu", "functionalization"])
def test_spliced_files_are_what_the_backends_ask_for(target: str, toy: list[str]) -> None:
    native, derivatives = toy[0], toy[4]
    module = run_pipeline(load_module(native, toy[2], derivatives)).module
    real = load_host_templates(host_root_of(torch_yaml_paths().native_functions))
    module = module.evolve(host_templates=_Recording(real.root, real.files))
    _ASKED.clear()
    emit_targets(module, (target,))
    assert sorted(_ASKED) == sorted(SPLICED_BY_TARGET.get(target, ()))
