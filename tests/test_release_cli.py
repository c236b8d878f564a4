"""The target release on the command line: --torch-version, formula helpers, --Werror.

Each test runs ``schemac`` in process on a few lines of YAML.  The release
vocabulary cases are the ones the issue found on real releases: named-tensor
types before 2.13, 2.15's ``_philox_`` exemption, a formula helper that one
release's headers declare and another's do not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac import cli_release
from schemac.cli import main

NATIVE = """\
- func: neg(Tensor self) -> Tensor
  dispatch:
    CPU: neg
"""

DERIVATIVES = """\
- name: neg(Tensor self) -> Tensor
  self: my_neg_backward(grad)
"""


def _files(tmp_path: Path, native: str = NATIVE, derivatives: str | None = None) -> list[str]:
    (tmp_path / "native_functions.yaml").write_text(native, encoding="utf-8")
    args = [str(tmp_path / "native_functions.yaml")]
    if derivatives is not None:
        (tmp_path / "derivatives.yaml").write_text(derivatives, encoding="utf-8")
        args += ["--derivatives", str(tmp_path / "derivatives.yaml")]
    return args


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


# -- formula helpers (the point 4) ------------------------------------------------


def test_unknown_helper_without_headers_is_a_positioned_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 2.14 is not the installed torch (2.13): its headers are not the target's,
    # so the profile's list is only a guess.
    files = _files(tmp_path, derivatives=DERIVATIVES)
    code, err = _run(capsys, "check", *files, "--torch-version", "2.14")
    assert code == 0
    assert "derivatives.yaml:2:9: warning: call to unknown function 'my_neg_backward'" in err
    assert "    ^^^^^^^^^^^^^^^" in err  # the caret under the name
    assert err.rstrip().endswith("1 warning")


def test_werror_turns_the_warning_into_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path, derivatives=DERIVATIVES)
    code, err = _run(capsys, "check", *files, "--torch-version", "2.14", "--Werror")
    assert code == 1
    assert "derivatives.yaml:2:9: error: call to unknown function 'my_neg_backward'" in err
    assert err.rstrip().endswith("1 error")


def test_unknown_helper_is_an_error_when_the_header_was_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = tmp_path / "Helpers.h"
    header.write_text("at::Tensor my_neg_backwards(const at::Tensor& grad);\n")
    files = _files(tmp_path, derivatives=DERIVATIVES)
    code, err = _run(capsys, "check", *files, "--formula-helpers", str(header))
    assert code == 1
    assert "derivatives.yaml:2:9: error: call to unknown function 'my_neg_backward'" in err
    assert "did you mean 'my_neg_backwards'?" in err


@pytest.mark.parametrize("kind", ["header", "names file"])
def test_a_helper_declared_in_a_file_on_the_command_line_is_known(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    if kind == "header":
        helpers = tmp_path / "Helpers.h"
        helpers.write_text(
            "// helpers\nnamespace my {\nTORCH_API at::Tensor my_neg_backward(\n"
            "    const at::Tensor& grad);\n}\n"
        )
    else:
        helpers = tmp_path / "helpers.txt"
        helpers.write_text("# one a line\nmy_neg_backward\n")
    files = _files(tmp_path, derivatives=DERIVATIVES)
    code, err = _run(capsys, "check", *files, "--formula-helpers", str(helpers), "--Werror")
    assert (code, err) == (0, "")


def test_cmath_constants_are_always_known(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    formula = '- name: neg(Tensor self) -> Tensor\n  self: "grad * M_PI_4 * M_LOG10E"\n'
    files = _files(tmp_path, derivatives=formula)
    assert _run(capsys, "check", *files, "--Werror") == (0, "")


# -- release vocabulary ------------------------------------------------------------------------

NAMED = """\
- func: names_of(Tensor self, Dimname[]? names) -> Tensor
  dispatch:
    CPU: names_of
"""


def test_dimname_exists_up_to_2_12_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path, NAMED)
    assert _run(capsys, "check", *files, "--torch-version", "2.12")[0] == 0
    code, err = _run(capsys, "check", *files, "--torch-version", "2.13")
    assert code == 1
    assert "native_functions.yaml:1:31: error: unknown type 'Dimname' for torch 2.13" in err


PHILOX = """\
- func: _philox_rand_like(Tensor self, Tensor key) -> Tensor
  dispatch:
    CPU: philox_rand_like
"""


def test_the_randomness_rule_is_the_release_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path, PHILOX)
    code, err = _run(capsys, "check", *files, "--torch-version", "2.14")
    assert code == 1 and "looks random" in err
    assert _run(capsys, "check", *files, "--torch-version", "2.15")[0] == 0


# -- choosing the release ------------------------------------------------------------------------


def test_an_unsupported_release_warns_and_uses_the_nearest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    code, err = _run(capsys, "check", *files, "--torch-version", "2.99")
    assert code == 0
    assert "<command line>: warning: --torch-version: no profile for torch 2.99" in err
    assert "nearest supported release, 2.15" in err
    assert err.count("no profile for torch 2.99") == 1 and err.rstrip().endswith("1 warning")
    assert _run(capsys, "check", *files, "--torch-version", "2.99", "--Werror")[0] == 1


def test_a_version_that_is_no_version_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(capsys, "check", *_files(tmp_path), "--torch-version", "latest")
    assert code == 2 and "not a torch version" in err


def test_the_default_is_the_installed_torch_else_the_newest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    files = _files(tmp_path)
    monkeypatch.setattr(cli_release, "installed_torch_version", lambda: "2.14.1")
    assert main(["compile", *files, "-t", "schema", "-o", str(out), "-j", "1"]) == 0
    banner = (out / "ATen" / "RegisterSchema.cpp").read_text().splitlines()[:4]
    assert "// Made by schemac" in banner[2] and banner[2].endswith(" for torch 2.14.")
    assert "for torch 2.14." in (out / ".schemac-manifest").read_text()
    monkeypatch.setattr(cli_release, "installed_torch_version", lambda: None)
    assert main(["compile", *files, "-t", "schema", "-o", str(out), "-j", "1"]) == 0
    assert "for torch 2.15." in (out / ".schemac-manifest").read_text()
    capsys.readouterr()


def test_installed_version_is_read_from_the_dist_info(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from schemac.frontend import torch_paths

    site = tmp_path / "site"
    (site / "torchgen").mkdir(parents=True)
    (site / "torchgen" / "__init__.py").write_text("raise SystemExit('never imported')\n")
    (site / "torch-2.14.1.dist-info").mkdir()
    (site / "torch-2.14.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.14.1\n\nVersion: 9.9\n"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(__import__("sys").modules, "torchgen", raising=False)
    assert torch_paths.installed_torch_version() == "2.14.1"
