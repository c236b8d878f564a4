"""``-t autograd`` against torchgen's gen_autograd, once per reference release.

torchgen runs once per session (shared by xdist workers through a lock file,
like ``torchgen_aten_dir``), with its working directory in the temp dir.
Compared, per family:

* Functions.h: every backward node struct: name, base class, data members
  (type and name), and the order of the structs;
* Functions.cpp: per node, the gradient formulas as substituted, the slots
  they are copied to, the ``grad_input_mask`` entries, the gradient aliases,
  ``any_grad_defined`` and the slot ranges;
* the operators registered for the Autograd keys (VariableType), the
  ADInplaceOrView key and the Tracer key, and whether each Autograd
  registration is a generated kernel or the not-implemented fallback;
* ViewFuncs.h: the view-func classes and their captured members;
* the backward node class(es) each Autograd kernel creates (``NotImplemented``
  included), kernel by kernel, and what each kernel saves in its node, under
  which ``should_compute_output`` guards, its forward-mode formulas and the
  tangents/primals they bind, its
  ``check_no_requires_grad`` / complex / out= checks, and the node it fires
  the node-creation hooks on (releases with ``node_creation_hooks``);
* what each ADInplaceOrView kernel does: version bumps, view base, view
  func and reverse function with their arguments, differentiability, creation
  meta;
* what each Tracer kernel records: graph symbols, input names, outputs and
  the ``ensureUniqueIfOutOfPlaced`` check;
* the torch:: factory wrappers of variable_factories.h.

The target is equality: every reference fact present and nothing extra.  The
per-family counts are printed (``pytest -s``) as a record of the match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sized
from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile
from torch_releases import ReferenceRelease, built_once, run_gen_autograd

pytestmark = [pytest.mark.torch, pytest.mark.each_release]

_STRUCT = re.compile(r"^struct TORCH_API (\w+) : public (\w+) \{$(.*?)^\};", re.M | re.S)
_MEMBER = re.compile(r"^  ([\w:<>, ]+?) (\w+)(?: = [^;]*)?;$", re.M)
_VIEW_FUNC = re.compile(
    r"^struct (\w+) : public torch::autograd::ViewFunc \{$(.*?)^\};", re.M | re.S
)
_LIBRARY_BLOCK = re.compile(r"^TORCH_LIBRARY_IMPL\(aten, (\w+), m\) \{$(.*?)^\}", re.M | re.S)
_IMPL = re.compile(r'm\.impl\("([^"]+)",\s*(TORCH_FN\([\w:]+\)|[\w:]+\(\))')


@pytest.fixture(scope="session")
def torchgen_autograd_dir(
    build_shared_reference: Callable[[str, Callable[[Path], None]], Path],
    torch_release: ReferenceRelease,
) -> Iterator[Path]:
    """The release's gen_autograd outputs, generated once for all workers."""

    def build(destination: Path) -> None:
        built_once(destination, lambda staging: run_gen_autograd(torch_release, staging))

    yield build_shared_reference(f"torchgen-autograd-{torch_release.version}", build)


@pytest.fixture(scope="module")
def schemac_autograd(schemac_module: Module, schemac_profile: ReleaseProfile) -> dict[str, str]:
    """schemac's autograd files by name (without the ``autograd/`` directory)."""
    files = {
        f.path: f.text for f in emit_targets(schemac_module, ["autograd"], profile=schemac_profile)
    }
    assert all(p.startswith("autograd/") for p in files)
    return {p.removeprefix("autograd/"): text for p, text in files.items()}


def node_structs(text: str) -> dict[str, tuple[str, tuple[tuple[str, str], ...]]]:
    """node name -> (base class, sorted (type, name) data members)."""
    result = {}
    for match in _STRUCT.finditer(text):
        members = tuple(sorted((t.strip(), n) for t, n in _MEMBER.findall(match.group(3))))
        result[match.group(1)] = (match.group(2), members)
    return result


def view_funcs(text: str) -> dict[str, tuple[str, ...]]:
    """view-func class -> its private data members, in declaration order."""
    result = {}
    for match in _VIEW_FUNC.finditer(text):
        private = re.split(r"^\s*private:\s*$", match.group(2), flags=re.M)[-1]
        result[match.group(1)] = tuple(
            line.strip() for line in private.splitlines() if line.strip()
        )
    return result


def registrations(shards: list[str]) -> set[tuple[str, str, str]]:
    """(dispatch key, operator, kernel|fallback) of every ``m.impl`` in the shards."""
    result = set()
    for text in shards:
        for block in _LIBRARY_BLOCK.finditer(text):
            for name, target in _IMPL.findall(block.group(2)):
                kind = "fallback" if "NotImplemented" in target else "kernel"
                result.add((block.group(1), name, kind))
    return result


def _shards(files: dict[str, str], stem: str) -> list[str]:
    pattern = re.compile(rf"{stem}_\d+\.cpp")
    return [text for name, text in sorted(files.items()) if pattern.fullmatch(name)]


def _reference_files(directory: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in directory.iterdir() if p.is_file()}


def _report(family: str, reference: Sized, ours: Sized) -> None:
    print(f"[autograd conformance] {family}: reference {len(reference)}, schemac {len(ours)}")


def _assert_same_facts(
    family: str, reference: Mapping[str, object], ours: Mapping[str, object], *, at_least: int
) -> None:
    """Each kernel's facts equal, none missing, none extra (``at_least`` guards the extractor)."""
    _report(family, reference, ours)
    assert len(reference) > at_least
    different = {k for k in set(reference) | set(ours) if reference.get(k) != ours.get(k)}
    assert sorted(different) == []


def test_same_file_set(torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]) -> None:
    reference = {p.name for p in torchgen_autograd_dir.iterdir() if p.is_file()}
    assert reference == set(schemac_autograd)


def test_backward_node_structs(
    torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]
) -> None:
    reference_text = (torchgen_autograd_dir / "Functions.h").read_text()
    reference = node_structs(reference_text)
    ours = node_structs(schemac_autograd["Functions.h"])
    _report("Functions.h node structs", reference, ours)
    assert len(reference) > 600
    assert sorted(set(reference) - set(ours)) == []
    assert sorted(set(ours) - set(reference)) == []
    different = {k: (reference[k], ours[k]) for k in reference if reference[k] != ours[k]}
    assert different == {}
    order = [m.group(1) for m in _STRUCT.finditer(reference_text)]
    assert [m.group(1) for m in _STRUCT.finditer(schemac_autograd["Functions.h"])] == order


@pytest.mark.parametrize("stem", ["VariableType", "ADInplaceOrViewType", "TraceType"])
def test_registered_operators(
    stem: str, torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]
) -> None:
    reference = registrations(_shards(_reference_files(torchgen_autograd_dir), stem))
    ours = registrations(_shards(schemac_autograd, stem))
    _report(f"{stem} registrations", reference, ours)
    assert len(reference) > 1000
    assert sorted(reference - ours) == []
    assert sorted(ours - reference) == []


def test_autograd_keys_in_use(
    torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]
) -> None:
    keys = {key for key, _, _ in registrations(_shards(schemac_autograd, "VariableType"))}
    reference = registrations(_shards(_reference_files(torchgen_autograd_dir), "VariableType"))
    assert keys == {key for key, _, _ in reference}
    assert "AutogradNestedTensor" in keys


def test_view_func_classes(torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]) -> None:
    reference = view_funcs((torchgen_autograd_dir / "ViewFuncs.h").read_text())
    ours = view_funcs(schemac_autograd["ViewFuncs.h"])
    _report("ViewFuncs.h classes", reference, ours)
    assert len(reference) > 30
    assert reference == ours


def _factory_heads(text: str) -> list[str]:
    return [
        line.removesuffix(" {")
        for line in text.splitlines()
        if line.startswith("inline at::Tensor ") and line.endswith(") {")
    ]


def test_variable_factories(torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]) -> None:
    reference = _factory_heads((torchgen_autograd_dir / "variable_factories.h").read_text())
    ours = _factory_heads(schemac_autograd["variable_factories.h"])
    _report("variable_factories.h wrappers", set(reference), set(ours))
    assert len(reference) > 100
    assert ours == reference


_KERNEL = re.compile(r"^\S.*? (\w+)\(c10::DispatchKeySet ks.*?^\}", re.M | re.S)


def nodes_per_kernel(shards: list[str]) -> dict[str, tuple[str, ...]]:
    """Autograd kernel name -> the node classes it creates."""
    result = {}
    for text in shards:
        for match in _KERNEL.finditer(text):
            nodes = sorted(set(re.findall(r"make_intrusive<(\w+)>", match.group(0))))
            result[match.group(1)] = tuple(nodes)
    return result


def test_nodes_created_by_each_autograd_kernel(
    torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]
) -> None:
    reference = nodes_per_kernel(_shards(_reference_files(torchgen_autograd_dir), "VariableType"))
    ours = nodes_per_kernel(_shards(schemac_autograd, "VariableType"))
    _report("Autograd kernels (node classes created)", reference, ours)
    assert len(reference) > 1500
    different = {k: (reference.get(k), ours.get(k)) for k in set(reference) | set(ours)}
    assert {k: v for k, v in different.items() if v[0] != v[1]} == {}


def trace_records(shards: list[str]) -> dict[str, tuple[object, ...]]:
    """Tracer kernel -> (symbols, sorted input names, outputs, uniqueness checks)."""
    result: dict[str, tuple[object, ...]] = {}
    for text in shards:
        for match in _KERNEL.finditer(text):
            body = match.group(0)
            result[match.group(1)] = (
                tuple(sorted(set(re.findall(r'"(\w+::\w+)"', body)))),
                tuple(sorted(re.findall(r'addInputs\(node, "(\w+)"', body))),
                tuple(re.findall(r"addOutput\(node, (\w+)\)", body)),
                tuple(re.findall(r'ensureUniqueIfOutOfPlaced\("(\w+)", (\w+)\)', body)),
            )
    return result


def test_what_each_tracer_kernel_records(
    torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]
) -> None:
    reference = trace_records(_shards(_reference_files(torchgen_autograd_dir), "TraceType"))
    ours = trace_records(_shards(schemac_autograd, "TraceType"))
    _assert_same_facts("Tracer kernels (symbols, inputs, outputs)", reference, ours, at_least=3000)


def inplace_or_view_facts(shards: list[str]) -> dict[str, tuple[object, ...]]:
    result: dict[str, tuple[object, ...]] = {}
    for text in shards:
        for match in _KERNEL.finditer(text):
            body = match.group(0)
            result[match.group(1)] = (
                tuple(re.findall(r"increment_version\((\w+)\)", body)),
                tuple(re.findall(r"as_view\((?:/\* base \*/ )?(\w+)", body)),
                tuple(re.findall(r"make_unique<([\w:]+)>\(([^)]*)\)", body)),
                tuple(re.findall(r"is_bw_differentiable \*/ (\w+)", body)),
                tuple(re.findall(r"CreationMeta::(\w+) :", body)),
                tuple(re.findall(r"if \((true|false) \|\|", body)),
                tuple(re.findall(r"FunctionalInverses::(\w+)\(([^;]*)\);", body)),
            )
    return result


def test_what_each_inplace_or_view_kernel_does(
    torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]
) -> None:
    reference = inplace_or_view_facts(
        _shards(_reference_files(torchgen_autograd_dir), "ADInplaceOrViewType")
    )
    ours = inplace_or_view_facts(_shards(schemac_autograd, "ADInplaceOrViewType"))
    _assert_same_facts("ADInplaceOrView kernels (versions, views)", reference, ours, at_least=1000)


_APPLY = re.compile(r"^static variable_list (\w+)_apply_functional\((.*?)^\}", re.M | re.S)


def apply_facts(text: str) -> dict[str, tuple[object, ...]]:
    """node -> what its gradient function computes and where the results go."""
    result: dict[str, tuple[object, ...]] = {}
    for match in _APPLY.finditer(text):
        body = match.group(2)
        result[match.group(1)] = (
            tuple(re.findall(r"auto grad_result = (.*);", body))
            + tuple(re.findall(r"grad_result\.emplace_back\((.*)\);", body)),
            tuple(re.findall(r"copy_range\(grad_inputs, (\w+), ([^;]*)\);", body)),
            tuple(re.findall(r"needs_input_grad\[(\d+)\],", body)),
            tuple(re.findall(r"const auto& (\w+) = grads\[(\d+)\];", body)),
            "any_grad_defined = " in body,
            tuple(re.findall(r"auto (\w+)_ix = gen.range\((\w+)\);", body)),
        )
    return result


def test_backward_formulas_of_each_node(
    torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]
) -> None:
    reference = apply_facts((torchgen_autograd_dir / "Functions.cpp").read_text())
    ours = apply_facts(schemac_autograd["Functions.cpp"])
    _assert_same_facts("Functions.cpp gradient functions", reference, ours, at_least=600)


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text).replace("::std::", "std::")


def autograd_kernel_facts(shards: list[str]) -> dict[str, tuple[object, ...]]:
    result: dict[str, tuple[object, ...]] = {}
    for text in shards:
        for match in _KERNEL.finditer(text):
            body = match.group(0)
            result[match.group(1)] = (
                tuple(sorted(_flat(x) for x in re.findall(r"grad_fn->(\w+ = [^;]*);", body))),
                tuple(
                    sorted(
                        _flat(x)
                        for x in re.findall(
                            r"if \((grad_fn->should_compute_output[^{]*)\) \{", body
                        )
                    )
                ),
                tuple(
                    _flat(x) for x in re.findall(r"_new_fw_grad_opts?(?:\[i\])? = ([^;]*);", body)
                ),
                body.count("_set_fw_grad("),
                tuple(
                    sorted(set(re.findall(r"auto (\w+)_t_raw = toNonOptFwGrad\(([^)]*)\)", body)))
                ),
                tuple(sorted(set(re.findall(r"auto (\w+)_p = toNonOptPrimal\(([^)]*)\)", body)))),
                tuple(re.findall(r"check_no_requires_grad\(([^;]*)\);", body)),
                tuple(re.findall(r"throw_error_for_complex_autograd\(([^;]*)\);", body)),
                tuple(sorted(set(re.findall(r'throw_error_out_requires_grad\("(\w+)"\)', body)))),
                "reset_grad_accumulator(self);" in body,
                _fired_hooks(body),
                _history(body),
            )
    return result


def _history(body: str) -> tuple[str, ...]:
    """How a kernel that creates a node attaches it: ``set`` or ``rebase`` history."""
    if "make_intrusive<" not in body:
        return ()
    return tuple(sorted(set(re.findall(r"(set|rebase)_history\(", body))))


def _fired_hooks(body: str) -> tuple[str, ...]:
    """Which node a kernel that creates one fires the node-creation hooks on:
    the node it created, or the one ``rebase_history`` attached (in-place).

    Per-element (``grad_fns[i]``) and single nodes count alike.  torchgen also
    fires on the always-null node of out= kernels, which create none: that
    call does nothing and is not compared.
    """
    if "make_intrusive<" not in body:
        return ()
    fired = re.findall(r"fire_node_creation_hooks\((\w+)", body)
    return tuple(sorted({"rebased" if "rebased" in name else "created" for name in fired}))


def test_what_each_autograd_kernel_saves_and_checks(
    torchgen_autograd_dir: Path, schemac_autograd: dict[str, str]
) -> None:
    reference = autograd_kernel_facts(
        _shards(_reference_files(torchgen_autograd_dir), "VariableType")
    )
    ours = autograd_kernel_facts(_shards(schemac_autograd, "VariableType"))
    _assert_same_facts(
        "Autograd kernels (saves, guards, forward AD, checks)", reference, ours, at_least=1500
    )
