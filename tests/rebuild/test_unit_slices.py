"""Note [Unit slices]: an emit call whose slice of the module did not change is skipped.

On torch's YAML: flipping a default of ``isclose`` (a ``CompositeImplicitAutograd``
operator) changes no ``Register<Key>.cpp`` of a device key, so after it only the
``composite`` target's registrations are emitted; a kernel renamed under CUDA emits the
``cuda`` registrations (not the ``cpu`` ones).  Each time OUT equals a cold compile's.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest

from out_trees import contents, stats
from schemac import launcher
from schemac.backends.aten.registrations.targets import RegistrationBackend
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions, backends_for, fragment_unit
from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.ir.module import Module
from schemac.rebuild import noop
from schemac.rebuild.state import STATE_NAME

pytestmark = pytest.mark.torch

TARGETS = "cpu,cuda,meta,composite"


@pytest.fixture
def yaml(tmp_path: Path) -> Path:
    where = tmp_path / "yaml"
    where.mkdir()
    paths = torch_yaml_paths()
    for name in ("native_functions", "tags"):
        shutil.copy(getattr(paths, name), where / f"{name}.yaml")
    return where


@pytest.fixture
def emitted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The targets the registration backend emits, in order, from now on (``-j 1``)."""
    made: list[str] = []
    original = RegistrationBackend.emit

    def emit(
        self: RegistrationBackend, module: Module, options: EmitOptions
    ) -> Iterable[GeneratedFile]:
        made.append(options.target)
        return original(self, module, options)

    monkeypatch.setattr(RegistrationBackend, "emit", emit)
    return made


def _argv(yaml: Path, out: Path, jobs: str = "1") -> list[str]:
    native, tags = yaml / "native_functions.yaml", yaml / "tags.yaml"
    return ["compile", str(native), "--tags", str(tags), "-t", TARGETS, "-o", str(out), "-j", jobs]


def _edit(yaml: Path, pattern: str, make: str) -> str:
    """Replace group 1 of the first match of ``pattern``; the whole match, before."""
    path = yaml / "native_functions.yaml"
    text = path.read_text()
    match = re.search(pattern, text, flags=re.MULTILINE)
    assert match is not None, pattern
    path.write_text(text[: match.start(1)] + make + text[match.end(1) :])
    return match.group(0)


def _flip_isclose(yaml: Path) -> None:
    # isclose is CompositeImplicitAutograd only: no device key's file holds it.
    line = _edit(yaml, r"^- func: isclose\(.*\bbool equal_nan=(False)\b", "True")
    assert "equal_nan" in line


def _rename_cuda_kernel(yaml: Path) -> str:
    """The CUDA kernel of ``_cudnn_ctc_loss.Tensor``, whose grouped item has a
    kernel for no other key, gets a new name."""
    _edit(yaml, r"^    CUDA: (_cudnn_ctc_loss_tensor)$", "_cudnn_ctc_loss_tensor_schemac_edited")
    return "_cudnn_ctc_loss_tensor"


def _cold(yaml: Path, where: Path) -> dict[str, bytes]:
    assert launcher.main(_argv(yaml, where)) == 0
    return contents(where)


def test_a_default_edit_of_a_composite_implicit_operator_skips_the_device_keys(
    yaml: Path, tmp_path: Path, emitted: list[str]
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(yaml, out)) == 0
    assert emitted == ["cpu", "cuda", "meta", "composite"]
    cuda = [p for p in contents(out) if p.startswith("ATen/RegisterCUDA")]
    before = stats(out)
    _flip_isclose(yaml)
    emitted.clear()
    assert launcher.main(_argv(yaml, out)) == 0
    # The composite registrations hold isclose, but print no default value: they
    # are keyed blind to defaults (Note [Keys blind to an aspect]) and skipped too.
    assert emitted == []
    assert contents(out) == _cold(yaml, tmp_path / "cold")
    # The skipped unit's files were not touched; the state records them: a no-op next.
    assert cuda and all(stats(out)[p] == before[p] for p in cuda)
    assert noop.up_to_date(_argv(yaml, out))


def test_a_kernel_renamed_under_cuda_emits_the_cuda_registrations(
    yaml: Path, tmp_path: Path, emitted: list[str]
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(yaml, out)) == 0
    kernel = _rename_cuda_kernel(yaml)
    emitted.clear()
    assert launcher.main(_argv(yaml, out)) == 0
    assert emitted == ["cuda"]
    after = contents(out)
    assert after == _cold(yaml, tmp_path / "cold")
    assert any(f"{kernel}_schemac_edited" in text.decode() for text in after.values())


def test_a_sliced_units_file_deleted_sends_that_unit_the_full_way(
    yaml: Path, tmp_path: Path, emitted: list[str]
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(yaml, out)) == 0
    (out / "ATen/RegisterCUDA_0.cpp").unlink()
    _flip_isclose(yaml)
    emitted.clear()
    assert launcher.main(_argv(yaml, out)) == 0
    assert emitted == ["cuda"]
    assert contents(out) == _cold(yaml, tmp_path / "cold")


def test_a_split_run_hands_the_childs_slices_over(yaml: Path, tmp_path: Path) -> None:
    # With -j 2 some units run in the forked child: the slice keys it computed and
    # the units it skipped reach the parent's record.
    out = tmp_path / "out"
    assert launcher.main(_argv(yaml, out, jobs="2")) == 0
    _flip_isclose(yaml)
    assert launcher.main(_argv(yaml, out, jobs="2")) == 0
    state = (out / STATE_NAME).read_text()
    sliced = {line.split()[1] for line in state.splitlines() if line.startswith("slice ")}
    targets = TARGETS.split(",")
    assert sliced == {
        fragment_unit(t, e.name) for t in targets for e in backends_for(t) if e.sliced
    }
    assert "cuda/aten-registrations" in sliced
    assert contents(out) == _cold(yaml, tmp_path / "cold")
    assert noop.up_to_date(_argv(yaml, out, jobs="2"))


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """Each sliced unit asked about since, and whether its files were kept (``-j 1``)."""
    from schemac.compile_record import Recording

    answers: dict[str, bool] = {}
    original = Recording.keep_slice

    def keep_slice(self: Recording, unit: str, local: str) -> object:
        kept = original(self, unit, local)
        answers[unit] = kept is not None
        return kept

    monkeypatch.setattr(Recording, "keep_slice", keep_slice)
    return answers


def test_the_group_and_shim_slices_skip_what_an_ungrouped_operator_cannot_reach(
    yaml: Path, tmp_path: Path, asked: dict[str, bool]
) -> None:
    # isclose is in no variant family or view group (functionalization, the view-copy
    # kernels) and no AOTI shim table; the composite registrations hold it.
    targets = "composite,functionalization,aoti"
    native, tags = yaml / "native_functions.yaml", yaml / "tags.yaml"

    def argv(out: Path) -> list[str]:
        words = ["compile", str(native), "--tags", str(tags), "-t", targets]
        return [*words, "-o", str(out), "-j", "1"]

    out = tmp_path / "out"
    assert launcher.main(argv(out)) == 0
    assert not any(asked.values())  # a first compile has no state to keep from
    asked.clear()
    _flip_isclose(yaml)
    assert launcher.main(argv(out)) == 0
    assert asked == {
        "composite/aten-registrations": True,  # blind to defaults
        "composite/aten-view-copy-kernels": True,
        "functionalization/functionalization": True,
        "aoti/aoti": True,
    }
    # A kernel of a view with a _copy twin: both group readers run again.
    asked.clear()
    _edit(yaml, r"^    CompositeExplicitAutograd: (transpose)$", "transpose_schemac_edited")
    assert launcher.main(argv(out)) == 0
    assert asked["functionalization/functionalization"] is False
    assert asked["composite/aten-view-copy-kernels"] is False
    cold = tmp_path / "cold"
    assert launcher.main(argv(cold)) == 0
    assert contents(out) == contents(cold)


@pytest.fixture
def matched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per run of the derivative-matching pass (this process's)."""
    from schemac.passes.derivatives import MatchDerivatives

    runs: list[int] = []
    original = MatchDerivatives.run

    def run(self: MatchDerivatives, ctx: object, module: object) -> object:
        runs.append(1)
        return original(self, ctx, module)  # type: ignore[arg-type]

    monkeypatch.setattr(MatchDerivatives, "run", run)
    return runs


def test_the_autograd_slices_skip_what_an_operator_without_autograd_kernels_cannot_reach(
    yaml: Path, tmp_path: Path, asked: dict[str, bool], matched: list[int]
) -> None:
    # isclose has no derivatives.yaml entry and, being CompositeImplicitAutograd,
    # neither a VariableType nor an ADInplaceOrView kernel; its TraceType kernel
    # is the autograd unit's.
    paths = torch_yaml_paths()
    for name in ("derivatives", "deprecated"):
        shutil.copy(getattr(paths, name), yaml / f"{name}.yaml")
    words = [str(yaml / "native_functions.yaml"), "--tags", str(yaml / "tags.yaml")]
    words += ["--derivatives", str(yaml / "derivatives.yaml")]
    words += ["--deprecated", str(yaml / "deprecated.yaml")]

    def argv(out: Path) -> list[str]:
        return ["compile", *words, "-t", "autograd,python", "-o", str(out), "-j", "1"]

    out = tmp_path / "out"
    assert launcher.main(argv(out)) == 0
    assert matched == [1]
    asked.clear()
    _flip_isclose(yaml)
    assert launcher.main(argv(out)) == 0
    # Every unit reading the autograd table is kept by its slice, which holds no
    # late fact: the late passes did not run (Note [Late passes skipped]).
    assert matched == [1]
    # The Python bindings print defaults and run; variable_factories.h does too,
    # but holds no isclose (its slice is the factory functions); the others are
    # keyed blind to defaults.
    assert asked == {
        "autograd/autograd": True,
        "autograd/autograd-kernels": True,
        "autograd/autograd-factories": True,
        "python/python-enum-tag": True,
        "python/python-bindings": False,
        "python/python-autograd-nodes": True,
    }
    cold = tmp_path / "cold"
    assert launcher.main(argv(cold)) == 0
    assert contents(out) == contents(cold)
    # A kernel of a differentiable operator renamed: no file of these targets
    # names a kernel, so every unit is kept (each is keyed blind to kernel names).
    asked.clear()
    _edit(yaml, r"^    CompositeExplicitAutograd: (abs)$", "abs_schemac_edited")
    matched.clear()
    assert launcher.main(argv(out)) == 0
    assert asked and all(asked.values()), asked
    assert matched == []
    cold = tmp_path / "cold2"
    assert launcher.main(argv(cold)) == 0
    assert contents(out) == contents(cold)
    # A formula edited: the units reading the table run, after the late passes.
    derivatives = yaml / "derivatives.yaml"
    text = derivatives.read_text()
    derivatives.write_text(text.replace("self: grad * self.sgn()", "self: self.sgn() * grad", 1))
    assert derivatives.read_text() != text
    matched.clear()
    asked.clear()
    assert launcher.main(argv(out)) == 0
    assert matched == [1] and asked["autograd/autograd"] is False
    cold = tmp_path / "cold3"
    assert launcher.main(argv(cold)) == 0
    assert contents(out) == contents(cold)


def test_a_slice_does_not_hold_what_the_run_s_targets_decide_to_compute(
    yaml: Path, tmp_path: Path, asked: dict[str, bool], matched: list[int]
) -> None:
    # After an edit of derivatives.yaml alone, only the autograd units run, and the
    # passes making the variant families (which the headers need) do not: a slice
    # holding the families would differ from the next run's for nothing, and a
    # kernel renamed next would run the autograd units and their late passes.
    paths = torch_yaml_paths()
    shutil.copy(paths.derivatives, yaml / "derivatives.yaml")
    words = [str(yaml / "native_functions.yaml"), "--tags", str(yaml / "tags.yaml")]
    words += ["--derivatives", str(yaml / "derivatives.yaml")]

    def argv(out: Path) -> list[str]:
        return ["compile", *words, "-t", "autograd,headers", "-o", str(out), "-j", "1"]

    out = tmp_path / "out"
    assert launcher.main(argv(out)) == 0
    derivatives = yaml / "derivatives.yaml"
    text = derivatives.read_text()
    derivatives.write_text(text.replace("self: grad * self.sgn()", "self: self.sgn() * grad", 1))
    assert launcher.main(argv(out)) == 0
    asked.clear()
    matched.clear()
    _edit(yaml, r"^    CompositeExplicitAutograd: (abs)$", "abs_schemac_edited")
    assert launcher.main(argv(out)) == 0
    assert all(kept for unit, kept in asked.items() if unit.startswith("autograd/")), asked
    assert matched == []
    cold = tmp_path / "cold"
    assert launcher.main(argv(cold)) == 0
    assert contents(out) == contents(cold)
