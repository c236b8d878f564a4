"""The ``headers`` target against torchgen's headers for the installed torch.

torchgen runs in the session (``torchgen_aten_dir``), schemac emits in
memory, and for each per-operator family the *declarations* are compared
after normalising whitespace: every reference declaration must be present
and nothing may be extra.  Comments, include lists and layout are schemac's
own and are not compared.  The per-family match counts are printed
(``pytest -s``) and written to ``headers-conformance.txt`` in the test's
temporary directory.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from schemac.backends.aten.headers.backend import emit_headers
from schemac.backends.aten.headers.mtia import BACKEND as MTIA_HEADERS
from schemac.backends.registry import EmitOptions
from schemac.backends.reuse import rendered
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile

pytestmark = [pytest.mark.torch, pytest.mark.each_release]

_COMMENT = re.compile(r"//[^\n]*")
_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _code_lines(text: str) -> list[str]:
    """Non-empty, non-preprocessor lines with ``//`` comments removed."""
    lines = []
    for line in text.splitlines():
        stripped = _COMMENT.sub("", line).strip()
        if stripped and not stripped.startswith("#"):
            lines.append(stripped)
    return lines


def function_heads(text: str) -> Iterator[str]:
    """``ops/<op>.h``: each inline function's head, and each ``at::symint``
    template's head with its ``template <...>`` line."""
    pending_template = ""
    for line in _code_lines(text):
        if line.startswith("template <"):
            pending_template = line + " "
        elif line.endswith("{") and "(" in line and not line.startswith(("namespace", "struct")):
            yield _norm(pending_template + line[:-1])
            pending_template = ""


def struct_blocks(text: str) -> Iterator[str]:
    """Every ``struct ... { ... };`` at namespace level, flattened to one string."""
    depth = 0
    current: list[str] = []
    for line in _code_lines(text):
        if line.startswith("namespace") or (line.startswith("}") and "namespace" in line):
            continue
        if depth == 0 and line.startswith("struct"):
            current = []
        if depth > 0 or line.startswith("struct"):
            current.append(line)
            depth += line.count("{") - line.count("}")
            if depth == 0:
                yield _norm(" ".join(current))


#: ``TORCH_API`` and the per-library macros (``TORCH_CUDA_CPP_API``, ``TORCH_XPU_API``).
_EXPORTED = re.compile(r"TORCH_(?:\w+_)?API ")


def torch_api_lines(text: str) -> Iterator[str]:
    """Top-level exported function declarations (kernels, at::<key>:: functions)."""
    for line in _code_lines(text):
        if _EXPORTED.match(line) and line.endswith(";"):
            yield _norm(line)


def native_items(text: str) -> Iterator[str]:
    yield from torch_api_lines(text)
    yield from struct_blocks(text)


Extractor = Callable[[str], Iterator[str]]

#: family name -> (file-name suffix, extractor)
FAMILIES: dict[str, tuple[str, Extractor]] = {
    "ops/<op>.h": (".h", function_heads),
    "ops/<op>_ops.h": ("_ops.h", struct_blocks),
    "ops/<op>_native.h": ("_native.h", native_items),
    "ops/<op>_meta.h": ("_meta.h", struct_blocks),
    "ops/<op>_<key>_dispatch.h": ("_dispatch.h", torch_api_lines),
}


def _family_of(name: str) -> str:
    for family, (suffix, _) in sorted(FAMILIES.items(), key=lambda kv: -len(kv[1][0])):
        if family != "ops/<op>.h" and name.endswith(suffix):
            return family
    return "ops/<op>.h"


@pytest.fixture(scope="module")
def schemac_headers(schemac_module: Module, schemac_profile: ReleaseProfile) -> dict[str, str]:
    # With the mtia target's headers: the reference runs with --mtia.
    files = [
        *emit_headers(schemac_module, profile=schemac_profile),
        *map(
            rendered,
            MTIA_HEADERS.emit(schemac_module, EmitOptions("mtia", profile=schemac_profile)),
        ),
    ]
    return {f.path: f.text for f in files}


def _ops_files(files: dict[str, str]) -> dict[str, str]:
    prefix = "ATen/ops/"
    return {p[len(prefix) :]: t for p, t in files.items() if p.startswith(prefix)}


def test_same_per_operator_file_names(
    torchgen_aten_dir: Path, schemac_headers: dict[str, str]
) -> None:
    reference = {p.name for p in (torchgen_aten_dir / "ops").iterdir()}
    ours = set(_ops_files(schemac_headers))
    assert sorted(reference - ours)[:20] == []
    assert sorted(ours - reference)[:20] == []
    assert len(ours) > 7000


#: The top-level headers the ``headers`` target owns (the rest of torchgen's
#: top-level headers belong to other targets: functionalization, vmap, ...).
UMBRELLAS = (
    "Functions.h", "Operators.h", "MethodOperators.h", "NativeFunctions.h",
    "NativeMetaFunctions.h", "RedispatchFunctions.h", "RegistrationDeclarations.h",
)  # fmt: skip


def test_same_umbrella_headers(torchgen_aten_dir: Path, schemac_headers: dict[str, str]) -> None:
    key_headers = {
        p.name
        for p in torchgen_aten_dir.glob("*Functions*.h")
        if p.name.endswith(("Functions.h", "Functions_inl.h"))
    } - {"Functions.h", "NativeFunctions.h", "NativeMetaFunctions.h", "RedispatchFunctions.h"}
    assert len(key_headers) >= 20
    expected = set(UMBRELLAS) | key_headers | {"core/TensorBody.h"}
    ours = {p.removeprefix("ATen/") for p in schemac_headers if not p.startswith("ATen/ops/")}
    assert all((torchgen_aten_dir / name).is_file() for name in expected)
    assert sorted(expected ^ ours) == []


def _compare(
    reference_dir: Path, ours: dict[str, str]
) -> tuple[Counter[str], Counter[str], Counter[str], list[str]]:
    matched: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    extra: Counter[str] = Counter()
    examples: list[str] = []
    for path in sorted((reference_dir / "ops").iterdir()):
        family = _family_of(path.name)
        extract = FAMILIES[family][1]
        theirs = Counter(extract(path.read_text()))
        mine = Counter(extract(ours.get(path.name, "")))
        matched[family] += sum((theirs & mine).values())
        lost, added = theirs - mine, mine - theirs
        missing[family] += sum(lost.values())
        extra[family] += sum(added.values())
        if (lost or added) and len(examples) < 12:
            examples += [f"{path.name}: missing {d}" for d in list(lost)[:2]]
            examples += [f"{path.name}: extra   {d}" for d in list(added)[:2]]
    return matched, missing, extra, examples


def test_declarations_match_per_family(
    torchgen_aten_dir: Path, schemac_headers: dict[str, str], tmp_path: Path
) -> None:
    matched, missing, extra, examples = _compare(torchgen_aten_dir, _ops_files(schemac_headers))
    report = [
        f"{family:28} matched {matched[family]:6}"
        f"  missing {missing[family]:4}  extra {extra[family]:4}"
        for family in FAMILIES
    ]
    print("\n".join(report))
    (tmp_path / "headers-conformance.txt").write_text("\n".join(report) + "\n")
    assert all(matched[f] > 0 for f in FAMILIES), report
    assert not examples, "\n".join(report + examples)


def test_registration_declarations_match(
    torchgen_aten_dir: Path, schemac_headers: dict[str, str]
) -> None:
    def lines(text: str) -> list[str]:
        return [_norm(line) for line in text.splitlines() if line and not line.startswith("//")]

    theirs = lines((torchgen_aten_dir / "RegistrationDeclarations.h").read_text())
    mine = lines(schemac_headers["ATen/RegistrationDeclarations.h"])
    assert len(theirs) > 3000
    assert sorted(set(theirs) - set(mine))[:5] == []
    assert sorted(set(mine) - set(theirs))[:5] == []


def _method_decls(text: str) -> list[str]:
    start = text.index("class TORCH_API Tensor")
    body = text[start : text.index("\n};", start)]
    return [_norm(line) for line in _code_lines(body) if line.endswith(") const;")]


def test_tensor_methods_match(torchgen_aten_dir: Path, schemac_headers: dict[str, str]) -> None:
    theirs = Counter(_method_decls((torchgen_aten_dir / "core" / "TensorBody.h").read_text()))
    mine = Counter(_method_decls(schemac_headers["ATen/core/TensorBody.h"]))
    assert sum(theirs.values()) > 700
    assert list((theirs - mine).elements())[:5] == []
    assert list((mine - theirs).elements())[:5] == []


def _redispatch_heads(text: str) -> Counter[str]:
    return Counter(
        _norm(line[:-1])
        for line in _code_lines(text)
        if line.startswith("inline ") and line.endswith("{")
    )


def test_redispatch_functions_match(
    torchgen_aten_dir: Path, schemac_headers: dict[str, str]
) -> None:
    theirs = _redispatch_heads((torchgen_aten_dir / "RedispatchFunctions.h").read_text())
    mine = _redispatch_heads(schemac_headers["ATen/RedispatchFunctions.h"])
    assert sum(theirs.values()) > 3000
    assert list((theirs - mine).elements())[:5] == []
    assert list((mine - theirs).elements())[:5] == []


def test_umbrella_includes_match(torchgen_aten_dir: Path, schemac_headers: dict[str, str]) -> None:
    def includes(text: str) -> set[str]:
        return {line for line in text.splitlines() if line.startswith("#include <ATen/ops/")}

    for name in (
        "Functions.h", "Operators.h", "NativeFunctions.h", "NativeMetaFunctions.h",
        "MethodOperators.h", "CPUFunctions_inl.h", "MetaFunctions_inl.h",
        "CompositeExplicitAutogradNonFunctionalFunctions_inl.h",
    ):  # fmt: skip
        theirs = includes((torchgen_aten_dir / name).read_text())
        if name == "NativeMetaFunctions.h":
            # torchgen includes a _meta.h for every operator, also for the
            # ones it writes none for; schemac includes those that exist.
            theirs = {i for i in theirs if (torchgen_aten_dir / "ops" / i[19:-1]).is_file()}
        mine = includes(schemac_headers[f"ATen/{name}"])
        assert theirs == mine, (name, sorted(theirs ^ mine)[:5])


# -- the small example library, where every YAML feature appears -------------------

TOYOPS = Path(__file__).resolve().parents[2] / "examples" / "toyops"


@pytest.fixture(scope="module")
def toyops_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """torchgen's headers for examples/toyops (under a second: run per module)."""
    import shutil
    import subprocess
    import sys

    import torchgen

    source = tmp_path_factory.mktemp("toyops-src")
    (source / "native").mkdir()
    for name in ("native_functions.yaml", "tags.yaml"):
        shutil.copy(TOYOPS / name, source / "native" / name)
    (source / "templates").symlink_to(Path(torchgen.__file__).parent / "packaged/ATen/templates")
    out = tmp_path_factory.mktemp("toyops-ref")
    command = [sys.executable, "-m", "torchgen.gen", "-s", str(source), "-d", str(out),
               "--per-operator-headers", "--mps", "--xpu"]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, cwd=out)
    return out


def test_toyops_headers_match(toyops_reference: Path) -> None:
    from schemac.frontend.loader import load_module
    from schemac.passes.manager import run_pipeline

    module = run_pipeline(
        load_module(TOYOPS / "native_functions.yaml", TOYOPS / "tags.yaml")
    ).module
    ours = _ops_files({f.path: f.text for f in emit_headers(module)})
    assert set(ours) == {p.name for p in (toyops_reference / "ops").iterdir()}
    # A deliberate difference: torchgen names every operator "aten::<op>" in
    # _ops.h, whatever its namespace, so the dispatcher lookup of a toyops::
    # operator would fail; schemac writes the operator's real namespace.
    assert all('name = "toyops::' in t for n, t in ours.items() if n.endswith("_ops.h"))
    ours = {n: t.replace('name = "toyops::', 'name = "aten::') for n, t in ours.items()}
    matched, _missing, _extra, examples = _compare(toyops_reference, ours)
    print({family: matched[family] for family in FAMILIES})
    assert all(matched[f] > 0 for f in FAMILIES)
    assert not examples, "\n".join(examples)
