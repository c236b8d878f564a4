"""The ``aoti`` target: AOTInductor C shims, checked against what torch ships.

torch ships the declarations of every shim (``torch/include/torch/csrc/
inductor/aoti_torch/generated/c_shim_<device>.h``); schemac's
``aoti/c_shim_<device>.cpp`` must define exactly those functions with exactly
those parameters.  The calls inside are compared with torchgen's own
``c_shim_*.cpp`` (the session's torchgen run writes them beside its output),
and the files that need no GPU headers must compile against torch's headers.
The versioning rules (Note [AOTI shim versions]) and the C ABI (Note [The
AOTI C ABI]) are checked on small inputs.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from schemac.backends.aoti.backend import BACKEND, shim_files
from schemac.backends.aoti.c_abi import NotInAbi, lower_argument
from schemac.backends.aoti.policy import ShimPolicyError, parse_versions
from schemac.backends.registry import EmitOptions, parse_targets
from schemac.frontend.loader import load_module
from schemac.frontend.schema_parser import parse_schema
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline
from schemac.profiles import ReleaseProfile, load_profile, reference_profile

CompileCpp = Callable[..., "subprocess.CompletedProcess[str]"]

DEVICES = ("aten", "cpu", "cuda", "mps", "xpu")
GENERATED = "torch/csrc/inductor/aoti_torch/generated"
_DECLARATION = re.compile(r"AOTI_TORCH_EXPORT\s+AOTITorchError\s+(\w+)\s*\(([^)]*)\)\s*;")
_DEFINITION = re.compile(r"^AOTITorchError\s+(\w+)\s*\(([^)]*)\)\s*\{", re.MULTILINE)


def _spaced(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def declared(header: str) -> dict[str, str]:
    """Shim name -> its parameter list (whitespace normalised), as a header declares them."""
    return {m[1]: _spaced(m[2]) for m in _DECLARATION.finditer(header)}


def defined(source: str) -> dict[str, str]:
    return {m[1]: _spaced(m[2]) for m in _DEFINITION.finditer(source)}


def bodies(source: str) -> dict[str, str]:
    """Shim name -> its whole definition without any whitespace (layout differs)."""
    parts = re.split(r"^AOTITorchError\s+(\w+)\s*\(", source, flags=re.MULTILINE)
    return {
        name: re.sub(r"\s+", "", rest) for name, rest in zip(parts[1::2], parts[2::2], strict=True)
    }


@pytest.fixture(scope="module")
def shims(schemac_module: Module, schemac_profile: ReleaseProfile) -> dict[str, str]:
    """schemac's shims of the release (``--torch-version X.Y``)."""
    files = BACKEND.emit(schemac_module, EmitOptions("aoti", profile=schemac_profile))
    return {f.path: f.text for f in files}


def test_aoti_is_a_target_of_all() -> None:
    assert "aoti" in parse_targets("all")


def test_one_file_per_device(shims: dict[str, str]) -> None:
    assert sorted(shims) == sorted(f"aoti/c_shim_{d}.cpp" for d in DEVICES)


@pytest.mark.each_release
@pytest.mark.parametrize("device", DEVICES)
def test_defines_exactly_what_the_shipped_header_declares(
    device: str, shims: dict[str, str], torch_include: Path
) -> None:
    expected = declared((torch_include / GENERATED / f"c_shim_{device}.h").read_text())
    actual = defined(shims[f"aoti/c_shim_{device}.cpp"])
    assert expected, "the shipped header declares no shim"
    assert sorted(set(expected) - set(actual)) == [], "missing"
    assert sorted(set(actual) - set(expected)) == [], "extra"
    wrong = {
        name: (expected[name], actual[name]) for name in expected if expected[name] != actual[name]
    }
    assert wrong == {}


_GUARD = re.compile(r"#if TORCH_FEATURE_VERSION >= (\w+)\n" + _DECLARATION.pattern)


@pytest.mark.each_release
def test_each_version_is_available_since_the_release_the_header_guards_it_with(
    schemac_module: Module, schemac_profile: ReleaseProfile, torch_include: Path
) -> None:
    seen = 0
    for file in shim_files(schemac_module, EmitOptions("aoti", profile=schemac_profile)):
        header = (torch_include / GENERATED / f"c_shim_{file.device}.h").read_text()
        guarded = {m[2]: m[1] for m in _GUARD.finditer(header)}
        assert {f.name: f.since for f in file.functions if f.since} == guarded, file.device
        seen += len(guarded)
    assert seen > 0, "no guarded declaration: the check checks nothing"


@pytest.mark.each_release
@pytest.mark.parametrize("device", DEVICES)
def test_calls_what_torchgen_calls(
    device: str, shims: dict[str, str], torchgen_aten_dir: Path
) -> None:
    reference = (torchgen_aten_dir / f"aoti/c_shim_{device}.cpp").read_text()
    ours = shims[f"aoti/c_shim_{device}.cpp"]
    assert list(bodies(ours).items()) == list(bodies(reference).items())
    includes = re.compile(r"#include <([^>]+)>")
    assert includes.findall(ours) == includes.findall(reference)


@pytest.mark.parametrize("device", ["cpu", "aten"])
def test_compiles_against_torch_headers(
    device: str,
    shims: dict[str, str],
    torch_include: Path,
    compile_cpp: CompileCpp,
    tmp_path: Path,
) -> None:
    source = tmp_path / f"c_shim_{device}.cpp"
    source.write_text(shims[f"aoti/c_shim_{device}.cpp"])
    includes = (torch_include, torch_include / "torch/csrc/api/include")
    result = compile_cpp(source, includes, "-DAT_PER_OPERATOR_HEADERS")
    assert result.returncode == 0, result.stderr[-4000:]


# -- versions ----------------------------------------------------------------------------
def test_versions_newest_first_with_the_arguments_each_leaves_out() -> None:
    record = {"since": "TORCH_VERSION_2_10_0", "v2": {"new_args": ["b"]}, "v3": {"new_args": ["c"]}}
    op = parse_versions("aten.f.default", json.dumps(record))
    order = [(v.number, sorted(dropped), v.since) for v, dropped in op.newest_first()]
    assert order == [(3, [], None), (2, ["c"], None), (1, ["b", "c"], "TORCH_VERSION_2_10_0")]


def test_a_malformed_version_record_is_refused() -> None:
    with pytest.raises(ShimPolicyError):
        parse_versions("aten.f.default", json.dumps({"version2": {}}))


_TINY = """\
- func: f(Tensor self, int a, *, bool flag=False, float? scale=None) -> Tensor
  dispatch:
    CPU: f_cpu
- func: g(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: g
- func: g.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CompositeExplicitAutograd: g_out
"""


def _tiny_module(tmp_path: Path) -> Module:

    native = tmp_path / "native_functions.yaml"
    native.write_text(_TINY)
    tags = tmp_path / "tags.yaml"
    tags.write_text("- tag: core\n  desc: core\n")
    return run_pipeline(load_module(native, tags)).module


def test_an_older_version_passes_the_defaults_of_the_arguments_it_lacks(tmp_path: Path) -> None:
    base = reference_profile()
    tables = dict(base.tables)
    tables["aoti_fallback_ops"] = {
        "aten.f.default": json.dumps({"v2": {"new_args": ["flag", "scale"], "since": "V2"}}),
        "aten.g.out": "{}",
    }
    tables["aoti_aten_shimified_ops"] = {"aten.f.default": "{}"}
    profile = type(base)(base.release, base.torch_version, base.features, base.lists, tables)
    files = {
        f.device: f
        for f in shim_files(_tiny_module(tmp_path), EmitOptions("aoti", profile=profile))
    }
    cpu = {f.name: f for f in files["cpu"].functions}
    assert list(cpu) == ["aoti_torch_cpu_f_v2", "aoti_torch_cpu_f", "aoti_torch_cpu_g_out"]
    assert cpu["aoti_torch_cpu_f_v2"].arguments == (
        "resolve_tensor_dispatch_flags(self)",
        "a",
        "flag",
        "pointer_to_optional<double>(scale)",
    )
    assert cpu["aoti_torch_cpu_f_v2"].since == "V2"
    assert cpu["aoti_torch_cpu_f"].arguments[2:] == ("false", "::std::nullopt")
    assert cpu["aoti_torch_cpu_f"].call == "at::cpu::f"
    # out= first, nothing returned; no CPU kernel: the composite one.
    assert cpu["aoti_torch_cpu_g_out"].declaration() == (
        "AOTITorchError aoti_torch_cpu_g_out(AtenTensorHandle out, AtenTensorHandle self);"
    )
    assert cpu["aoti_torch_cpu_g_out"].call == "at::compositeexplicitautograd::g_out"
    assert files["cpu"].operator_headers == (
        "ATen/ops/f_cpu_dispatch.h",
        "ATen/ops/g_compositeexplicitautograd_dispatch.h",
    )
    assert [f.name for f in files["aten"].functions] == ["aoti_torch_aten_f"]
    assert files["aten"].functions[0].call == "at::f"


def test_a_library_without_fallback_operators_gets_no_shims(tmp_path: Path) -> None:
    generic = load_profile("generic")
    assert list(shim_files(_tiny_module(tmp_path), EmitOptions("aoti", profile=generic))) == []


# -- the C ABI ----------------------------------------------------------------------------
def _lowered(schema: str) -> list[tuple[list[str], str]]:
    func = parse_schema(schema)
    out = []
    for arg in func.arguments.flat_all:
        lowered = lower_argument(arg)
        out.append(([p.declaration() for p in lowered.params], lowered.expr))
    return out


def test_abi_of_lists_optionals_and_devices() -> None:
    lowered = _lowered(
        "f(int[] size, Tensor?[] indices, Device? device, ScalarType dtype, bool[3] mask,"
        " SymInt[]? shape, Tensor(a!) out) -> Tensor"
    )
    assert lowered == [
        (["const int64_t* size", "int64_t size_len_"], "pointer_to_list<int64_t>(size, size_len_)"),
        (
            ["const AtenTensorHandle** indices", "int64_t indices_len_"],
            "c10::List<::std::optional<at::Tensor>>(c10::ArrayRef<::std::optional<at::Tensor>>("
            "resolve_tensor_list_dispatch_flags(indices, indices_len_)))",
        ),
        (
            ["int32_t* device", "int32_t device_index_"],
            "pointer_to_optional_device(device, device_index_)",
        ),
        (["int32_t dtype"], "static_cast<c10::ScalarType>(dtype)"),
        (["const int32_t* mask", "int64_t mask_len_"], "pointer_to_list<3>(mask)"),
        (
            ["const int64_t** shape", "int64_t shape_len_"],
            "pointer_to_optional_list<c10::SymInt>(shape, shape_len_)",
        ),
        (["AtenTensorHandle out"], "*tensor_handle_to_tensor_pointer(out)"),
    ]


def test_types_without_an_abi_are_refused() -> None:
    func = parse_schema("f(Device[] devices, Dimname dim) -> Tensor")
    for arg in func.arguments.flat_all:
        with pytest.raises(NotInAbi):
            lower_argument(arg)


def test_profiles_carry_the_fallback_operators_of_each_release() -> None:
    for release in ("2.13", "2.14", "2.15"):
        profile = load_profile(release)
        assert "aten.addmm.out" in profile.table("aoti_fallback_ops")
        assert "aten.narrow.default" in profile.table("aoti_aten_shimified_ops")
        assert "convolution_backward" in profile.names("aoti_nullable_returns")
