"""The python target against torchgen's gen_autograd_python, file by file, per release.

torchgen runs once per session and release (shared by xdist workers);
schemac compiles the same YAML through the backend registry (``-t python``).  For every
binding file the test compares

* the binding functions, by the C++ name PyTorch gives them (``THPVariable_add``);
* in each, the PythonArgParser signature strings, in order;
* the method-table entries;
* and, strictest, the text of each binding function.

PyTorch's templates also hold hand-written bindings (``THPVariable_size``,
``_parse_to``...) and table entries; schemac splices its bindings into the same
templates (read from the installed torch), so those are left out of the
per-binding comparison but counted in the whole-table one
(``test_method_tables_complete``): every table entry and every parser
signature of every file, hand-written ones included.
``python_torch_functions`` is sharded by a different (stable) hash in schemac,
so its three shards are compared as one set.  Run with ``-s`` to see the
per-module match numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from schemac.backends.driver import emit_targets
from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager
from schemac.profiles import ReleaseProfile
from torch_releases import ReferenceRelease, built_once, run_gen_autograd_python

pytestmark = pytest.mark.each_release

_FUNCTION = re.compile(
    r"^// (?P<name>\S+)\nstatic PyObject \* (?P<cname>THPVariable_\w+)\(.*?\n^}\n", re.M | re.S
)
_PARSER = re.compile(r"static PythonArgParser parser\(\{\n(.*?)\n  \}", re.S)
_TABLE_ENTRY = re.compile(r'^\s*(\{"[^"]+", .*nullptr\},)$', re.M)

MODULE_FILES = (
    "python_variable_methods.cpp",
    "python_torch_functions_*.cpp",
    "python_nn_functions.cpp",
    "python_fft_functions.cpp",
    "python_linalg_functions.cpp",
    "python_nested_functions.cpp",
    "python_sparse_functions.cpp",
    "python_special_functions.cpp",
)


@attrs.frozen
class BindingFile:
    functions: dict[str, str]
    parsers: dict[str, list[str]]
    table: list[str]


def _read(paths: list[Path], manual: str) -> BindingFile:
    functions: dict[str, str] = {}
    table: list[str] = []
    for path in sorted(paths):
        text = path.read_text()
        for match in _FUNCTION.finditer(text):
            functions[match.group("cname")] = match.group(0)
        table += [e for e in _TABLE_ENTRY.findall(text) if e not in manual]
    manual_names = set(re.findall(r"static PyObject \* ?(THPVariable_\w+)\(", manual))
    functions = {k: v for k, v in functions.items() if k not in manual_names}
    parsers = {}
    for name, body in functions.items():
        match = _PARSER.search(body)
        parsers[name] = [] if match is None else [s.strip() for s in match.group(1).splitlines()]
    return BindingFile(functions, parsers, sorted(table))


@pytest.fixture(scope="session")
def torchgen_python_dir(
    build_shared_reference: Callable[[str, Callable[[Path], None]], Path],
    torch_release: ReferenceRelease,
) -> Path:
    """The release's gen_autograd_python outputs (a subprocess: its own torchgen, fresh caches)."""

    def build(destination: Path) -> None:
        built_once(destination, lambda staging: run_gen_autograd_python(torch_release, staging))

    return build_shared_reference(f"torchgen-python-{torch_release.version}", build)


@pytest.fixture(scope="session")
def schemac_python_dir(
    torch_release: ReferenceRelease,
    torch_paths: TorchYamlPaths,
    schemac_profile: ReleaseProfile,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    module = load_module(
        torch_paths.native_functions,
        torch_paths.tags,
        torch_paths.derivatives,
        torch_paths.deprecated,
        profile=schemac_profile,
        # The release's own templates, so the files carry the hand-written bindings too.
        host_templates=torch_release.packaged,
    )
    module = PassManager.default().run(PassContext(profile=schemac_profile), module).module
    out = tmp_path_factory.mktemp("schemac_python")
    for file in emit_targets(module, ["python"], profile=schemac_profile):
        path = out / file.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.text)
    return out / "python"


def _template_text(release: ReferenceRelease, pattern: str) -> str:
    name = pattern.replace("_*", "")
    return (release.autograd_dir / "templates" / name).read_text()


@pytest.mark.torch
@pytest.mark.parametrize("pattern", MODULE_FILES)
def test_binding_file_matches_torchgen(
    pattern: str,
    torch_release: ReferenceRelease,
    torchgen_python_dir: Path,
    schemac_python_dir: Path,
) -> None:
    manual = _template_text(torch_release, pattern)
    # torchgen also writes an "Everything" file for sharded outputs; shards only.
    theirs = _read(
        [p for p in torchgen_python_dir.glob(pattern) if "Everything" not in p.name], manual
    )
    ours = _read(list(schemac_python_dir.glob(pattern)), manual)

    identical = sum(1 for k, v in theirs.functions.items() if ours.functions.get(k) == v)
    same_parsers = sum(1 for k, v in theirs.parsers.items() if ours.parsers.get(k) == v)
    print(
        f"\n{pattern}: {len(theirs.functions)} bindings in torchgen, {len(ours.functions)} in "
        f"schemac; parser lists equal {same_parsers}; byte-identical {identical}; "
        f"table entries {len(theirs.table)} vs {len(ours.table)}"
    )
    assert theirs.functions, "the reference produced no bindings: the comparison would be empty"
    assert sorted(ours.functions) == sorted(theirs.functions)
    assert {k: v for k, v in ours.parsers.items() if theirs.parsers[k] != v} == {}
    assert ours.table == theirs.table
    assert identical == len(theirs.functions)


@pytest.mark.torch
def test_return_types_match_torchgen(torchgen_python_dir: Path, schemac_python_dir: Path) -> None:
    getter = re.compile(r"PyTypeObject\* (get_\w+_structseq)\(\)")
    desc = re.compile(r'"(torch\.return_types\.\w+)", nullptr, \w+, (\d+)')
    fields = re.compile(r"PyStructSequence_Field \w+\[\] = \{ (.*?),  \{nullptr\} \}")
    for name in ("python_return_types.h", "python_return_types.cpp"):
        theirs = (torchgen_python_dir / name).read_text()
        ours = (schemac_python_dir / name).read_text()
        assert getter.findall(ours) == getter.findall(theirs)
        assert desc.findall(ours) == desc.findall(theirs)
        assert fields.findall(ours) == fields.findall(theirs)
    registered = re.compile(r'"(\w+)", generated::(get_\w+_structseq)\(\)\)')
    assert registered.findall(ours) == registered.findall(theirs)
    assert len(registered.findall(theirs)) > 50


@pytest.mark.torch
def test_autograd_node_properties_match_torchgen(
    torchgen_python_dir: Path, schemac_python_dir: Path
) -> None:
    """Every backward node class gets a Python type with the same saved-value properties."""
    table = re.compile(
        r"PyGetSetDef (\w+)_properties\[\] = \{(.*?)\{nullptr\} /\* sentinel \*/", re.S
    )
    registered = re.compile(r"<(\w+)>\(module, \1Class, \"\1\", \1_properties\)")

    def read(directory: Path) -> tuple[dict[str, list[str]], list[str]]:
        properties: dict[str, list[str]] = {}
        classes: list[str] = []
        for path in directory.glob("python_functions_[0-9].cpp"):
            text = path.read_text()
            for match in table.finditer(text):
                properties[match.group(1)] = re.findall(r'\(char\*\)"(\w+)"', match.group(2))
            classes += registered.findall(text)
        return properties, sorted(classes)

    theirs, their_classes = read(torchgen_python_dir)
    ours, our_classes = read(schemac_python_dir)
    equal = sum(1 for k, v in theirs.items() if ours.get(k) == v)
    print(
        f"\npython_functions: {len(theirs)} node classes in torchgen, {len(ours)} in schemac; "
        f"property tables equal {equal}"
    )
    assert len(theirs) > 500
    assert our_classes == their_classes
    assert {k: v for k, v in ours.items() if theirs.get(k) != v} == {}
    header = (schemac_python_dir / "python_functions.h").read_text()
    shards = re.findall(
        r"void (initialize_autogenerated_functions_\d+)\(PyObject\* module\);", header
    )
    reference = (torchgen_python_dir / "python_functions.h").read_text()
    assert shards == re.findall(
        r"void (initialize_autogenerated_functions_\d+)\(PyObject\* module\);", reference
    )


_PARSER_START = re.compile(r"PythonArgParser parser\(\s*\{")
#: A C++ string literal, or a brace outside one.
_LITERAL_OR_BRACE = re.compile(r'"((?:[^"\\]|\\.)*)"|\}')
#: A table entry, also one written over two lines (PyTorch's ``_parse_to``).
_ANY_TABLE_ENTRY = re.compile(r'^\s*(\{"[^"]+", [^{}]*?\},)$', re.M | re.S)


def _tables(paths: list[Path]) -> tuple[list[str], list[str]]:
    """Every method-table entry and every parser signature string in ``paths``."""
    entries: list[str] = []
    signatures: list[str] = []
    for path in sorted(paths):
        text = path.read_text()
        entries += [" ".join(e.split()) for e in _ANY_TABLE_ENTRY.findall(text)]
        for start in _PARSER_START.finditer(text):
            # Signatures may hold braces ("IntArrayRef dims={0,1}"): the list
            # ends at the first brace outside a string literal.
            for token in _LITERAL_OR_BRACE.finditer(text, start.end()):
                if token.group(1) is None:
                    break
                signatures.append(token.group(1))
    return entries, signatures


@pytest.mark.torch
def test_method_tables_complete(torchgen_python_dir: Path, schemac_python_dir: Path) -> None:
    """The whole files PyTorch compiles: hand-written entries and all, entry for entry."""
    totals = [0, 0]
    for pattern in MODULE_FILES:
        theirs = [p for p in torchgen_python_dir.glob(pattern) if "Everything" not in p.name]
        their_entries, their_signatures = _tables(theirs)
        our_entries, our_signatures = _tables(list(schemac_python_dir.glob(pattern)))
        if "*" in pattern:  # shards hash differently: compare the union
            their_entries, our_entries = sorted(their_entries), sorted(our_entries)
        assert our_entries == their_entries, pattern
        assert sorted(our_signatures) == sorted(their_signatures), pattern
        totals[0] += len(their_entries)
        totals[1] += len(their_signatures)
    print(f"\nmethod tables: {totals[0]} entries, {totals[1]} parser signatures, all equal")
    assert totals[0] > 1700
    methods = (schemac_python_dir / "python_variable_methods.cpp").read_text()
    for hand_written in ('{"size", ', '{"__add__", ', '{"tolist", ', '{"numpy", '):
        assert hand_written in methods
