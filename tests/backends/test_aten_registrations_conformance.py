"""Register<Key>.cpp against torchgen: same registrations, same wrapper signatures.

For every dispatch key torchgen writes a registration file for, the operator
names registered with ``m.impl`` must be exactly torchgen's (every reference
registration present, nothing extra), and each registered wrapper must have
the same C++ signature (name, return type, parameter list) and the same body.
The structured wrapper classes and every other function of the file (the
``at::<key>::`` direct calls, the helpers) must be torchgen's too.  Bodies are
compared with comments and whitespace removed: the C++ must agree, not the
layout.  The per-key counts are printed (``pytest -s``) and each key is its own
test case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from schemac.backends.aten.registrations.operators import PACKAGE, operators_files
from schemac.backends.aten.registrations.targets import TARGET_KEYS
from schemac.backends.driver import emit_targets
from schemac.backends.templating import Templates
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile

pytestmark = [pytest.mark.torch, pytest.mark.each_release]

_IMPL = re.compile(r'm\.impl\(\s*"([^"]+)",\s*TORCH_FN\((\w+)\)\);')
_WRAPPER_HEAD = re.compile(r"^(\S.*?) (wrapper_\w+)\((.*)\) \{$", re.M)
#: A function defined at column 0: head, name, body up to the closing brace at column 0.
_FUNCTION = re.compile(r"^([A-Za-z:][^\n]* (\w+)\([^\n]*\)) \{\n(.*?)^\}", re.M | re.S)
_STRUCT = re.compile(r"^struct (\w+) final : public ([\w:]+) \{\n(.*?)^\};", re.M | re.S)
_SHARD = re.compile(r"Register(\w+?)_\d+\.cpp$")

#: Registered operator -> (wrapper name, return type, parameters).
Registrations = dict[str, tuple[str, str, str]]


def parse_registrations(texts: Iterable[str]) -> Registrations:
    found: Registrations = {}
    for text in texts:
        heads = {m.group(2): (m.group(1), m.group(3)) for m in _WRAPPER_HEAD.finditer(text)}
        for match in _IMPL.finditer(text):
            wrapper = match.group(2)
            returns, params = heads.get(wrapper, ("?", "?"))
            found[match.group(1)] = (wrapper, returns, params)
    return found


def _normalized(body: str) -> str:
    return re.sub(r"\s+", "", re.sub(r"//[^\n]*", "", body))


def parse_definitions(texts: Iterable[str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """(wrapper name -> normalized body, sorted (head, normalized body) of the other functions)."""
    wrappers: dict[str, str] = {}
    others: list[tuple[str, str]] = []
    for text in texts:
        for match in _FUNCTION.finditer(text):
            head, name, body = match.groups()
            if name.startswith("wrapper_"):
                wrappers[name] = _normalized(body)
            else:
                others.append((head, _normalized(body)))
    return wrappers, sorted(others)


def parse_structs(texts: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Structured wrapper class -> (parent class, normalized body)."""
    return {
        m.group(1): (m.group(2), _normalized(m.group(3)))
        for text in texts
        for m in _STRUCT.finditer(text)
    }


def _by_key(paths_and_texts: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    keyed: dict[str, list[str]] = {}
    for path, text in paths_and_texts:
        match = _SHARD.search(path)
        if match:
            keyed.setdefault(match.group(1), []).append(text)
    return keyed


@pytest.fixture(scope="module")
def reference_files(torchgen_aten_dir: Path) -> dict[str, list[str]]:
    return _by_key(
        (p.name, p.read_text()) for p in sorted(torchgen_aten_dir.glob("Register*_*.cpp"))
    )


@pytest.fixture(scope="module")
def schemac_files(schemac_module: Module, schemac_profile: ReleaseProfile) -> dict[str, list[str]]:
    files = emit_targets(schemac_module, tuple(TARGET_KEYS), profile=schemac_profile)
    return _by_key((f.path, f.text) for f in files)


#: The keys torchgen (``--mps --xpu --mtia``) writes files for, minus
#: Functionalization (a different generator); checked to equal what the reference wrote.
REFERENCE_KEYS = tuple(k for keys in TARGET_KEYS.values() for k in keys)


def test_same_key_files(
    reference_files: dict[str, list[str]], schemac_files: dict[str, list[str]]
) -> None:
    reference = set(reference_files) - {"Functionalization"}
    assert reference == set(REFERENCE_KEYS)
    assert set(schemac_files) == reference


@pytest.mark.parametrize("key", REFERENCE_KEYS)
def test_registrations_match(
    key: str, reference_files: dict[str, list[str]], schemac_files: dict[str, list[str]]
) -> None:
    reference = parse_registrations(reference_files[key])
    ours = parse_registrations(schemac_files[key])
    missing = sorted(set(reference) - set(ours))
    extra = sorted(set(ours) - set(reference))
    different = sorted(n for n in set(reference) & set(ours) if reference[n] != ours[n])
    print(
        f"\n{key}: {len(reference)} reference registrations, {len(ours)} schemac;"
        f" missing {len(missing)}, extra {len(extra)}, signature mismatches {len(different)}"
    )
    assert not missing, f"{key}: not registered: {missing[:10]}"
    assert not extra, f"{key}: registered but not by torchgen: {extra[:10]}"
    assert not different, [(n, reference[n], ours[n]) for n in different[:5]]

    ref_bodies, ref_others = parse_definitions(reference_files[key])
    our_bodies, our_others = parse_definitions(schemac_files[key])
    body_diff = sorted(n for n in ref_bodies if our_bodies.get(n) != ref_bodies[n])
    ref_structs, our_structs = (
        parse_structs(reference_files[key]),
        parse_structs(schemac_files[key]),
    )
    print(
        f"  wrapper bodies {len(ref_bodies) - len(body_diff)}/{len(ref_bodies)} equal;"
        f" structured classes {len(ref_structs)} vs {len(our_structs)};"
        f" other functions {len(ref_others)} vs {len(our_others)}"
    )
    assert not body_diff, [(n, ref_bodies[n], our_bodies.get(n)) for n in body_diff[:3]]
    assert our_structs == ref_structs
    assert our_others == ref_others


def test_parser_sees_registrations() -> None:
    # Guards the regexes above: a parser that finds nothing would pass every key.
    text = (
        "at::Tensor wrapper_CPU_add_Tensor(const at::Tensor & self) {\n}\n"
        'm.impl("add.Tensor",\nTORCH_FN(wrapper_CPU_add_Tensor));\n'
    )
    assert parse_registrations([text]) == {
        "add.Tensor": ("wrapper_CPU_add_Tensor", "at::Tensor", "const at::Tensor & self")
    }


def test_backend_select_matches(
    torchgen_aten_dir: Path, schemac_module: Module, schemac_profile: ReleaseProfile
) -> None:
    (ours,) = (
        f
        for f in emit_targets(schemac_module, ("schema",), profile=schemac_profile)
        if f.path.endswith("BackendSelect.cpp")
    )
    reference = (torchgen_aten_dir / "RegisterBackendSelect.cpp").read_text()
    heads = re.compile(r"^C10_ALWAYS_INLINE\n(.*) \{$", re.M)
    impls = re.compile(r'm\.impl\("([^"]+)"')
    assert sorted(impls.findall(ours.text)) == sorted(impls.findall(reference))
    assert len(impls.findall(reference)) > 50
    assert sorted(heads.findall(ours.text)) == sorted(heads.findall(reference))


def _function_heads(text: str) -> list[str]:
    heads = re.compile(r"^([A-Za-z:][^\n]* \w+\(.*\)) \{$", re.M)
    # c10::SymIntArrayRef and at::SymIntArrayRef are one type, spelled two ways.
    return sorted(
        h.replace("at::SymIntArrayRef", "c10::SymIntArrayRef") for h in heads.findall(text)
    )


def test_view_copy_kernels_match(
    torchgen_aten_dir: Path, schemac_module: Module, schemac_profile: ReleaseProfile
) -> None:
    (ours,) = (
        f
        for f in emit_targets(schemac_module, ("composite",), profile=schemac_profile)
        if f.path.endswith("ViewCopyKernels.cpp")
    )
    reference = (torchgen_aten_dir / "CompositeViewCopyKernels.cpp").read_text()
    expected = _function_heads(reference)
    assert len(expected) > 400
    assert _function_heads(ours.text) == expected


def test_operators_cpp_matches(torchgen_aten_dir: Path, schemac_module: Module) -> None:
    heads = re.compile(r"^(.* \w+::(?:call|redispatch)\(.*\)) \{$", re.M)
    files = {f.path: f.text for f in operators_files(schemac_module, Templates(PACKAGE))}
    shard_paths = [f"ATen/Operators_{i}.cpp" for i in range(5)]
    assert sorted(files) == sorted([*shard_paths, "ATen/OperatorsEverything.cpp"])
    reference = sorted(heads.findall((torchgen_aten_dir / "OperatorsEverything.cpp").read_text()))
    assert len(reference) > 6000
    assert sorted(heads.findall(files["ATen/OperatorsEverything.cpp"])) == reference
    shards = sorted(h for i in range(5) for h in heads.findall(files[f"ATen/Operators_{i}.cpp"]))
    assert shards == reference
