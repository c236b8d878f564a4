"""tools/extract_profile.py: committed profiles are what the releases' own code says.

Like CPython's generated opcode tables, the profiles under
``src/schemac/profiles/data/`` are derived data: these tests run the
extractor on the releases and require the committed files to match.  2.13
comes from the installed torch (the test extra pins it); 2.14.1 and 2.15.0
are wheels fetched once into ``~/.cache/schemac-tests`` (2.15.0 is large, so
its test is marked slow).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "extract_profile.py"
DATA = ROOT / "src" / "schemac" / "profiles" / "data"
# The same wheel cache as the conformance harness's (one download per release).
CACHE = Path(
    os.environ.get("SCHEMAC_TEST_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "schemac-tests"
)


def _load_tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("extract_profile", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


extract_profile = _load_tool()


def _installed_site_packages() -> Path:
    spec = importlib.util.find_spec("torchgen")
    if spec is None or spec.origin is None:
        pytest.skip("torch is not installed")
    return Path(spec.origin).parent.parent


def _wheel(version: str, *, unconstrained: bool = False) -> Path:
    """The torch ``version`` wheel, downloaded once into the test cache."""
    wheels = CACHE / "wheels"
    found = sorted(wheels.glob(f"torch-{version}-*.whl"))
    if found:
        return found[0]
    wheels.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if unconstrained:  # the machines' pip config caps torch below 2.15
        env["PIP_CONFIG_FILE"] = os.devnull
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels)]
    result = subprocess.run(
        [*command, f"torch=={version}"], env=env, capture_output=True, text=True, check=False
    )
    found = sorted(wheels.glob(f"torch-{version}-*.whl"))
    if result.returncode != 0 or not found:
        pytest.fail(f"cannot download torch {version}: {result.stderr[-2000:]}")
    return found[0]


def _check(source: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), str(source), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_installed_torch_reproduces_its_committed_profile() -> None:
    result = _check(_installed_site_packages())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2.13.json: up to date" in result.stdout


def test_a_2_14_wheel_reproduces_its_profile_and_reports_the_changes() -> None:
    result = _check(_wheel("2.14.1"))
    assert result.returncode == 0, result.stdout + result.stderr
    # What changed since 2.13, as the issue found it by hand.
    assert "+ feature node_creation_hooks" in result.stdout
    assert "- feature tensor_is_variable" in result.stdout
    assert "+masked_fill_inplace_if_safe" in result.stdout


@pytest.mark.slow
def test_a_2_15_wheel_reproduces_its_profile() -> None:
    result = _check(_wheel("2.15.0", unconstrained=True))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "~ random_name_exemptions: +_philox_" in result.stdout


def test_check_fails_when_the_committed_profile_is_stale(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "2.13.json").write_text('{"release": "2.13"}\n', encoding="utf-8")
    command = [sys.executable, str(TOOL), str(_installed_site_packages())]
    stale = subprocess.run(
        [*command, "--check", "--data", str(data)], capture_output=True, text=True, check=False
    )
    assert stale.returncode == 1 and "out of date" in stale.stderr
    written = subprocess.run(
        [*command, "--write", "--data", str(data)], capture_output=True, text=True, check=False
    )
    assert written.returncode == 0
    assert (data / "2.13.json").read_text(encoding="utf-8") == (DATA / "2.13.json").read_text(
        encoding="utf-8"
    )


# -- the pieces, on small sources -------------------------------------------------------------


def test_randomness_rule_finds_the_exemptions() -> None:
    model = """
def check(self):
    if (
        ("rand" in str(self.func.name) and "_philox_" not in str(self.func.name))
        or (
            ("dropout" in str(self.func.name))
            and "backward" not in str(self.func.name)
            and str(self.func.name.name) != "_cudnn_init_dropout_state"
        )
    ):
        pass
"""
    assert extract_profile.randomness_rule(model) == (["_philox_"], ["_cudnn_init_dropout_state"])
    plain = 'def f(self):\n    return "rand" in str(self.func.name)\n'
    assert extract_profile.randomness_rule(plain) == ([], [])
    with pytest.raises(extract_profile.ExtractionError):
        extract_profile.randomness_rule("x = 1\n")


def test_module_literals_evaluates_only_literal_data() -> None:
    text = """
A = {"b", "a"}
B = A | {"c"}
C = ["x"] + ["y"]
D = {"k": "v", **{"k2": "v2"}}
E = set(D.keys()).union({"z"})
F = compute()
"""
    names = extract_profile.module_literals(text)
    assert names["B"] == {"a", "b", "c"}
    assert names["C"] == ["x", "y"]
    assert names["D"] == {"k": "v", "k2": "v2"}
    assert names["E"] == {"k", "k2", "z"}
    assert "F" not in names


def test_changes_lists_additions_and_removals() -> None:
    old = {"features": ["a"], "lists": {"l": ["x", "y"]}, "tables": {}}
    new = {"features": ["b"], "lists": {"l": ["y", "z"], "m": ["q"]}, "tables": {}}
    assert extract_profile.changes(old, new) == [
        "+ feature b",
        "- feature a",
        "~ l: +z, -x",
        "+ list m (1 entries)",
    ]


def test_aoti_versions_are_written_in_one_form_whatever_the_release_spells() -> None:
    old_style = extract_profile.aoti_versions({"v2": ["block_table"]})
    new_style = extract_profile.aoti_versions(
        {"since": "TORCH_VERSION_2_12_0", "v2": {"new_args": ["block_table"]}}
    )
    assert json.loads(old_style) == {"v2": {"new_args": ["block_table"]}}
    assert json.loads(new_style) == {
        "since": "TORCH_VERSION_2_12_0",
        "v2": {"new_args": ["block_table"]},
    }
    with pytest.raises(extract_profile.ExtractionError):
        extract_profile.aoti_versions({"v2": "block_table"})


def test_aoti_nullable_returns_are_the_names_gen_returns_loops_over() -> None:
    text = """
def gen_returns(schema):
    for name in ("b_backward", "a_attention"):
        if name in schema:
            pass
"""
    assert extract_profile.aoti_nullable_returns(text) == ["a_attention", "b_backward"]
    with pytest.raises(extract_profile.ExtractionError):
        extract_profile.aoti_nullable_returns("def gen_returns(schema):\n    return 1\n")
