"""``-t functionalization`` against torchgen: same registrations, inverses, ViewMeta classes.

* RegisterFunctionalization_<n>.cpp: the operators registered on the
  Functionalize key (over all shards, and in the Everything file) are exactly
  torchgen's; each is registered the same way (a generated kernel, or a
  composite kernel through ``static_cast`` to the same function type); and
  every generated kernel has torchgen's C++ signature.
* FunctionalInverses.h: the same declarations.
* ViewMetaClasses.h / .cpp: the same classes with the same members, and the
  same definitions (bodies compared without whitespace).
* ViewMetaClassesPythonBinding.cpp: the same bindings, against torchgen's
  ``gen_functionalization_view_meta_classes`` (which PyTorch's build calls
  apart from gen.py).

Per release (``each_release``): each release's YAML, compiled with its
profile, against that release's torchgen.  Counts are printed with ``pytest -s``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile
from torch_releases import ReferenceRelease

pytestmark = [pytest.mark.torch, pytest.mark.each_release]

_IMPL = re.compile(r'm\.impl\("([^"]+)", (.*)\);')
_KERNEL_HEAD = re.compile(
    r"^\s*(\S[^\n]*?) (\w+)\((c10::DispatchKeySet dispatchKeySet[^\n]*)\) \{$", re.M
)
_FUNCTION = re.compile(r"^(\S[^\n]* [\w:]+\([^\n]*\)) \{\n(.*?)^\}", re.M | re.S)
_STRUCT = re.compile(r"^struct TORCH_API (\w+) : public ViewMeta \{\n(.*?)^\};", re.M | re.S)
_STATIC = re.compile(r"^static (.*);$", re.M)
_SHARD = re.compile(r"RegisterFunctionalization_\d+\.cpp$")


def _normalized(text: str) -> str:
    # Spellings that name the same C++ entity in the same scope.
    text = text.replace("at::functionalization::", "").replace("const Tensor&", "const at::Tensor&")
    return re.sub(r"\s+", "", re.sub(r"//[^\n]*", "", text))


def _without_parameter_names(target: str) -> str:
    """``static_cast<R (*)(const at::Tensor & self, ...)>`` -> types only."""
    match = re.fullmatch(r"static_cast<(.*) \(\*\)\((.*)\)>\((.*)\)", target)
    if match is None:
        return target.removeprefix("TORCH_FN(functionalization::").removeprefix("TORCH_FN(")
    returns, params, function = match.groups()
    types = [re.sub(r" \w+$", "", p) for p in params.split(", ")] if params else []
    return f"cast<{returns}({', '.join(types)})>({function})"


def registrations(texts: Iterable[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for text in texts:
        for name, target in _IMPL.findall(text):
            assert name not in found, f"{name} registered twice"
            found[name] = _without_parameter_names(target)
    return found


def kernel_heads(texts: Iterable[str]) -> dict[str, tuple[str, str]]:
    return {m.group(2): (m.group(1), m.group(3)) for t in texts for m in _KERNEL_HEAD.finditer(t)}


@pytest.fixture(scope="module")
def schemac_files(schemac_module: Module, schemac_profile: ReleaseProfile) -> dict[str, str]:
    files = emit_targets(schemac_module, ("functionalization",), profile=schemac_profile)
    return {Path(f.path).name: f.text for f in files}


def _reference(directory: Path, name: str) -> str:
    return (directory / name).read_text()


def _shards(files: dict[str, str]) -> list[str]:
    return [text for name, text in sorted(files.items()) if _SHARD.search(name)]


def test_same_file_names(torchgen_aten_dir: Path, schemac_files: dict[str, str]) -> None:
    theirs = {
        p.name
        for pattern in (
            "RegisterFunctionalization*.cpp",
            "FunctionalInverses.h",
            "ViewMetaClasses.*",
        )
        for p in torchgen_aten_dir.glob(pattern)
    }
    ours = {name for name in schemac_files if name != "ViewMetaClassesPythonBinding.cpp"}
    assert ours == theirs


def test_registrations_match(torchgen_aten_dir: Path, schemac_files: dict[str, str]) -> None:
    reference_shards = [
        p.read_text() for p in sorted(torchgen_aten_dir.glob("RegisterFunctionalization_*"))
    ]
    theirs = registrations(reference_shards)
    ours = registrations(_shards(schemac_files))
    missing, extra = sorted(theirs.keys() - ours.keys()), sorted(ours.keys() - theirs.keys())
    print(f"\nFunctionalize: expected {len(theirs)}, schemac {len(ours)}, "
          f"missing {len(missing)}, extra {len(extra)}")  # fmt: skip
    assert not missing and not extra, f"missing {missing[:10]}, extra {extra[:10]}"
    differ = {k: (theirs[k], ours[k]) for k in theirs if theirs[k] != ours[k]}
    assert not differ, list(differ.items())[:5]
    everything = registrations([schemac_files["RegisterFunctionalizationEverything.cpp"]])
    assert everything == ours
    assert all(text.count("TORCH_LIBRARY_IMPL(aten, Functionalize, m)") == 1
               for text in _shards(schemac_files))  # fmt: skip


def test_kernel_signatures_match(torchgen_aten_dir: Path, schemac_files: dict[str, str]) -> None:
    theirs = kernel_heads(
        p.read_text() for p in torchgen_aten_dir.glob("RegisterFunctionalization_*")
    )
    ours = kernel_heads(_shards(schemac_files))
    registered = {
        target.removesuffix(")")
        for target in registrations(_shards(schemac_files)).values()
        if not target.startswith("cast<")
    }
    assert registered <= ours.keys(), sorted(registered - ours.keys())[:10]
    differ = {k: (theirs.get(k), ours[k]) for k in registered if theirs.get(k) != ours[k]}
    print(f"\nFunctionalize kernels: {len(registered)} with torchgen's signature")
    assert not differ, list(differ.items())[:5]


def test_functional_inverses_match(torchgen_aten_dir: Path, schemac_files: dict[str, str]) -> None:
    def declared(text: str) -> list[str]:
        return sorted(_normalized(d) for d in _STATIC.findall(text))

    theirs = declared(_reference(torchgen_aten_dir, "FunctionalInverses.h"))
    ours = declared(schemac_files["FunctionalInverses.h"])
    print(f"\nFunctionalInverses.h: expected {len(theirs)}, schemac {len(ours)}")
    assert ours == theirs


def test_view_meta_classes_match(torchgen_aten_dir: Path, schemac_files: dict[str, str]) -> None:
    def classes(text: str) -> dict[str, str]:
        return {name: _normalized(body) for name, body in _STRUCT.findall(text)}

    def definitions(text: str) -> dict[str, str]:
        return {_normalized(head): _normalized(body) for head, body in _FUNCTION.findall(text)}

    theirs = classes(_reference(torchgen_aten_dir, "ViewMetaClasses.h"))
    ours = classes(schemac_files["ViewMetaClasses.h"])
    print(f"\nViewMetaClasses.h: expected {len(theirs)}, schemac {len(ours)}")
    assert sorted(ours) == sorted(theirs)
    assert [k for k in theirs if theirs[k] != ours[k]] == []
    theirs = definitions(_reference(torchgen_aten_dir, "ViewMetaClasses.cpp"))
    ours = definitions(schemac_files["ViewMetaClasses.cpp"])
    print(f"ViewMetaClasses.cpp: expected {len(theirs)} definitions, schemac {len(ours)}")
    assert sorted(ours) == sorted(theirs)
    assert [k for k in theirs if theirs[k] != ours[k]] == []


def _python_binding_reference(
    paths: TorchYamlPaths, release: ReferenceRelease
) -> Callable[[Path], None]:
    def build(destination: Path) -> None:
        templates = Path(paths.native_functions).parent.parent / "templates"
        script = (
            "import sys\n"
            "from torchgen.gen_functionalization_type import "
            "gen_functionalization_view_meta_classes as gen\n"
            "from torchgen.selective_build.selector import SelectiveBuilder\n"
            "nf, tags, out, templates = sys.argv[1:]\n"
            "gen(nf, tags, SelectiveBuilder.get_nop_selector(), out, templates)\n"
        )
        staging = destination.with_name(destination.name + ".partial")
        staging.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-c", script, str(paths.native_functions), str(paths.tags),
                   str(staging), str(templates)]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, env=release.python_env())
        staging.rename(destination)

    return build


def test_python_bindings_match(
    build_shared_reference: Callable[[str, Callable[[Path], None]], Path],
    torch_paths: TorchYamlPaths,
    torch_release: ReferenceRelease,
    schemac_files: dict[str, str],
) -> None:
    reference = build_shared_reference(
        f"torchgen-view-meta-bindings-{torch_release.version}",
        _python_binding_reference(torch_paths, torch_release),
    )

    def bindings(text: str) -> list[str]:
        return re.findall(r"create_binding_with_pickle<([\w:]+)>\(functionalization\);", text)

    theirs = bindings(_reference(reference, "ViewMetaClassesPythonBinding.cpp"))
    ours = bindings(schemac_files["ViewMetaClassesPythonBinding.cpp"])
    print(f"\nViewMetaClassesPythonBinding.cpp: expected {len(theirs)}, schemac {len(ours)}")
    assert ours == theirs
