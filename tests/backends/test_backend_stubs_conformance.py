"""``compile --backend`` against ``torchgen.gen_backend_stubs``, per torch release.

Three backend YAMLs: the hostdev example's (PrivateUse1, autograd, symint),
one using every key of the format (use_out_as_primary true, device_guard
false, class_name, a nested cpp_namespace, symint, autograd), and an
XLA-style one of 400+ operators (use_out_as_primary false, device_guard
true).  For each, torchgen runs once per session (shared by xdist workers)
and the files must agree: the same kernel declarations in the same order,
the same ``m.impl`` registrations in order per file, and the same wrapper
functions (signature and body, compared without comments and whitespace).
The generated ``.cpp`` files then compile with ``g++ -fsyntax-only``
against torch's headers (the example's are compiled for real by the
end-to-end test).

Per release (``each_release``): the release's YAML compiled with its profile,
against the release's own ``gen_backend_stubs`` and headers.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from schemac.backends.backend_stubs.backend import backend_files
from schemac.frontend.backend_loader import read_backend_yaml
from schemac.ir.module import Module
from torch_releases import ReferenceRelease

pytestmark = [pytest.mark.torch, pytest.mark.each_release]

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "backend_stubs"
YAMLS = {
    "hostdev": ROOT / "examples" / "hostdev" / "backend.yaml",
    "all_keys": DATA / "all_keys.yaml",
    "xla_style": DATA / "xla_style.yaml",
}


def _torchgen(release: ReferenceRelease, yamls: dict[str, Path]) -> Callable[[Path], None]:
    def run(destination: Path) -> None:
        staging = destination.with_name(destination.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        for name, path in yamls.items():
            command = [
                sys.executable, "-m", "torchgen.gen_backend_stubs",
                "-s", str(path), "-o", str(staging / name),
            ]  # fmt: skip
            subprocess.run(command, check=True, capture_output=True, env=release.python_env())
        staging.rename(destination)

    return run


#: The shared directories outlive the run: key them by the YAMLs' bytes too.
_DIGEST = hashlib.sha256(b"".join(p.read_bytes() for p in YAMLS.values())).hexdigest()[:12]


@pytest.fixture(scope="module")
def release_yamls(  # type: ignore[no-untyped-def]
    build_shared_reference, schemac_module: Module, torch_release: ReferenceRelease
) -> dict[str, Path]:
    """The YAMLs without the operators the release does not define (2.14 dropped
    ``cholesky``): what both generators read."""
    known = {str(f.func.name) for f in schemac_module.functions}

    def build(destination: Path) -> None:
        staging = destination.with_name(destination.name + ".partial")
        staging.mkdir(parents=True, exist_ok=True)
        for name, path in YAMLS.items():
            data = yaml.safe_load(path.read_text())
            for key in ("supported", "autograd"):
                if key in data:
                    data[key] = [op for op in data[key] if op in known]
            (staging / f"{name}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        staging.rename(destination)

    directory = build_shared_reference(f"backend-yamls-{torch_release.version}-{_DIGEST}", build)
    return {name: directory / f"{name}.yaml" for name in YAMLS}


@pytest.fixture(scope="module")
def torchgen_stubs(  # type: ignore[no-untyped-def]
    build_shared_reference, torch_release: ReferenceRelease, release_yamls: dict[str, Path]
) -> Path:
    name = f"torchgen-backend-stubs-{torch_release.version}-{_DIGEST}"
    return build_shared_reference(name, _torchgen(torch_release, release_yamls))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def schemac_stubs(
    schemac_module: Module, release_yamls: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("schemac-stubs")
    for name, path in release_yamls.items():
        spec, problems = read_backend_yaml(path)
        assert spec is not None and not problems, problems
        for file in backend_files(schemac_module, spec):
            target = out / name / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(file.text)
    return out


# -- reading both generators' files --------------------------------------------
_COMMENT = re.compile(r"//[^\n]*")
_REGISTRATION = re.compile(r'm\.impl\("([^"]+)",\s*TORCH_FN\((\w+)\)\);')
_WRAPPER_HEAD = re.compile(r"^[^\n;{}]*\bwrapper_\w+\([^;{]*\)\s*\{", re.MULTILINE)


def declarations(header: Path) -> list[str]:
    return [line.strip() for line in header.read_text().splitlines() if line.startswith("static ")]


def registrations(source: Path) -> list[tuple[str, str]]:
    return _REGISTRATION.findall(source.read_text())


def wrappers(source: Path) -> list[str]:
    """Every ``wrapper_*`` function, comments and whitespace removed."""
    text = _COMMENT.sub("", source.read_text())
    found = []
    for match in _WRAPPER_HEAD.finditer(text):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        found.append(re.sub(r"\s+", "", text[match.start() : end + 1]))
    return found


def _files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.mark.parametrize("name", list(YAMLS))
def test_same_files(name: str, torchgen_stubs: Path, schemac_stubs: Path) -> None:
    assert _files(schemac_stubs / name) == _files(torchgen_stubs / name)


@pytest.mark.parametrize("name", list(YAMLS))
def test_same_declarations(name: str, torchgen_stubs: Path, schemac_stubs: Path) -> None:
    (header,) = (p.name for p in (torchgen_stubs / name).glob("*NativeFunctions.h"))
    theirs = declarations(torchgen_stubs / name / header)
    ours = declarations(schemac_stubs / name / header)
    assert theirs, "torchgen declared no kernels"
    assert ours == theirs
    print(f"{name}: {len(ours)} kernel declarations equal")


@pytest.mark.parametrize("name", list(YAMLS))
def test_same_registrations_and_wrappers(
    name: str, torchgen_stubs: Path, schemac_stubs: Path
) -> None:
    sources = sorted(p.name for p in (torchgen_stubs / name).glob("Register*.cpp"))
    assert sources
    for source in sources:
        theirs, ours = torchgen_stubs / name / source, schemac_stubs / name / source
        assert registrations(ours) == registrations(theirs), source
        assert registrations(theirs)
        their_wrappers, our_wrappers = wrappers(theirs), wrappers(ours)
        assert len(their_wrappers) == len(registrations(theirs))
        for mine, reference in zip(our_wrappers, their_wrappers, strict=True):
            assert mine == reference
        print(f"{name}/{source}: {len(our_wrappers)} registrations and wrappers equal")


@pytest.mark.each_release(slow_secondary=True)  # about a minute of g++ per release
def test_generated_sources_compile(
    schemac_stubs: Path,
    torch_include: Path,
    compile_cpp,  # type: ignore[no-untyped-def]
) -> None:
    """``g++ -fsyntax-only`` accepts every file but the example's (built for real elsewhere)."""
    sources = [
        p for name in ("all_keys", "xla_style") for p in (schemac_stubs / name).glob("*.cpp")
    ]
    assert len(sources) == 4

    def check(source: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
        includes = [source.parent, torch_include, torch_include / "torch/csrc/api/include"]
        return source, compile_cpp(source, includes)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for source, result in pool.map(check, sources):
            assert result.returncode == 0, f"{source}:\n{result.stderr[-4000:]}"
