"""The example library (examples/toyext) built as a torch extension and checked in torch.

The library is built once per test run, for every xdist worker (a file lock,
``shared_reference_dir``), the way its users build it: ``pip install
--no-build-isolation`` of examples/toyext, whose setup.py runs schemac.  The
C++ API test (extension/cpp_api_test.cpp) is a second, tiny library built
with ``torch.utils.cpp_extension.load`` against the generated headers.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "toyext"
CPP_TEST = Path(__file__).parent / "extension" / "cpp_api_test.cpp"
#: Compile jobs: the machine is shared, and the build is one of many tests.
BUILD_ENV = {"MAX_JOBS": "2", "SCHEMAC_UNITY_BUILD": "1", "CFLAGS": "-O1 -g0"}

_BUILD_CPP_TEST = """
import sys
from torch.utils import cpp_extension
cpp_extension.load(
    name="toyext_cpp_test", sources=[sys.argv[1]], extra_include_paths=[sys.argv[2]],
    build_directory=sys.argv[3], is_python_module=False, verbose=False,
)
"""


def _run(command: list[str], **kwargs: Any) -> None:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{command[:4]} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")


def _popen(command: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs
    )


def _wait(process: subprocess.Popen[str]) -> None:
    output, _ = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"{process.args!r} failed:\n{output[-6000:]}")


def _build(destination: Path) -> None:
    staging = destination.with_name(destination.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    source = staging / "src"
    ignore = shutil.ignore_patterns("build", "*.egg-info", "_C*.so", "ops.py", "ops.pyi")
    shutil.copytree(EXAMPLE, source, ignore=ignore)
    env = {**os.environ, **BUILD_ENV}
    generated = staging / "generated"
    schemac = [sys.executable, "-m", "schemac", "compile", str(EXAMPLE / "ops.yaml"), "--torch"]
    derivatives = ["--derivatives", str(EXAMPLE / "derivatives.yaml")]
    _wait(_popen([*schemac, *derivatives, "-t", "extension", "-o", str(generated)]))
    pip = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps"]
    package = _popen([*pip, "--no-index", "--target", str(staging / "site"), str(source)], env=env)
    (staging / "cpp-test").mkdir()
    build = [str(CPP_TEST), str(generated), str(staging / "cpp-test")]
    # The two builds run side by side: each is mostly one long compile.
    cpp_test = _popen([sys.executable, "-c", _BUILD_CPP_TEST, *build], env=env)
    _wait(package)
    _wait(cpp_test)
    staging.rename(destination)


def _inputs_digest() -> str:
    """What the build depends on: the example, the C++ test and the backend's sources."""
    files = [
        *sorted(p for p in EXAMPLE.rglob("*") if p.is_file() and "build" not in p.parts),
        CPP_TEST,
        *sorted((ROOT / "src" / "schemac").rglob("*.py")),
        *sorted((ROOT / "src" / "schemac").rglob("*.mako")),
    ]
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="session")
def built(build_shared_reference: Callable[[str, Callable[[Path], None]], Path]) -> Path:
    # Keyed by the inputs: the shared directory outlives the session.
    return build_shared_reference(f"toyext-extension-{_inputs_digest()}", _build)


@pytest.fixture(scope="session")
def toyext(built: Path) -> ModuleType:
    sys.path.insert(0, str(built / "site"))
    import toyext as module

    return module


def _double(*shape: int, grad: bool = False) -> Any:
    return torch.randn(*shape, dtype=torch.float64, requires_grad=grad)


def test_fresh_interpreter_imports_the_package_and_calls_an_op(built: Path) -> None:
    code = (
        "import torch, toyext\n"
        "x = torch.ones(2, 3)\n"
        "print(toyext.blend(x, 3 * x, weight=0.5).sum().item())\n"
        "print(torch.ops.toyext.scale(x, 2.0).sum().item())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(built / "site")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=built
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["12.0", "12.0"]


def test_every_operator_from_python_equals_plain_pytorch(toyext: ModuleType) -> None:
    x, y = _double(3, 4), _double(3, 4)
    close = torch.testing.assert_close
    close(toyext.blend(x, y, weight=0.25), x * 0.75 + y * 0.25)
    close(toyext.scale(x, 2.0), x * 2)
    z = x.clone()
    assert toyext.scale_(z, 3.0) is None
    close(z, x * 3)
    out = torch.empty(0, dtype=torch.float64)
    toyext.scale_out(x, 4.0, out=out)
    close(out, x * 4)
    close(toyext.scale_twice(x, 2.0), x * 4)
    close(toyext.clamp_range(x, -0.5, 0.5), x.clamp(-0.5, 0.5))
    toyext.clamp_range_out(x, low=-0.2, out=out)
    close(out, x.clamp(-0.2, 1.0))
    view = toyext.swap_last(x)
    assert view._base is x or view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    close(view, x.mT)
    close(toyext.swap_last_copy(x), x.mT)
    values, indices = toyext.max_dim(x, 1)
    want_values, want_indices = x.max(1)
    close(values, want_values)
    close(indices, want_indices)
    grad = torch.zeros_like(x).scatter(1, indices.unsqueeze(1), values.unsqueeze(1))
    close(toyext.max_dim_backward(values, indices, 1, [3, 4]), grad)
    close(toyext.weighted_sum([x, y], [0.5, 2.0], y), x * 0.5 + y * 3.0)
    close(toyext.weighted_sum([x], [3.0]), x * 3)
    close(toyext.sum_dims(x, [0, 1]), x.sum())
    close(toyext.sum_dims(x, [1], keepdim=True), x.sum(1, keepdim=True))
    close(toyext.repeat_rows(x, 2), x.repeat(2, 1))
    rows = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    close(toyext.nonzero_rows(rows), rows[1:])
    close(toyext.round_to(x, decimals=1), x.round(decimals=1))


def test_every_operator_from_the_typed_cpp_api(built: Path, toyext: ModuleType) -> None:
    libraries = list((built / "cpp-test").glob("toyext_cpp_test*.so"))
    assert len(libraries) == 1
    torch.ops.load_library(str(libraries[0]))
    assert torch.ops.toyext_cpp_test.run() == 16  # every operator overload


def test_a_kernel_registered_only_for_cpu_and_meta() -> None:
    assert torch._C._dispatch_has_kernel_for_dispatch_key("toyext::blend", "CPU")
    assert torch._C._dispatch_has_kernel_for_dispatch_key("toyext::blend", "Meta")
    assert not torch._C._dispatch_has_kernel_for_dispatch_key("toyext::blend", "CUDA")


# -- opcheck ------------------------------------------------------------------

#: Every test opcheck has.
ALL_TESTS = (
    "test_schema",
    "test_autograd_registration",
    "test_faketensor",
    "test_aot_dispatch_dynamic",
)
#: A custom view cannot be functionalized (torch.compile refuses it, and the
#: compiler warns about it); an operator without a derivative cannot be traced
#: through a backward that needs one.  Both are checked eagerly.
EAGER = ("test_schema", "test_autograd_registration", "test_faketensor")


def _samples(grad: bool) -> list[tuple[str, tuple[Any, ...], dict[str, Any], tuple[str, ...]]]:
    def t(*shape: int) -> Any:
        return _double(*shape, grad=grad)

    rows = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]], dtype=torch.float64)
    samples = [
        ("blend.default", (t(3, 4), t(3, 4)), {"weight": 0.3}, ALL_TESTS),
        ("scale.default", (t(3, 4), 2.0), {}, ALL_TESTS),
        ("scale_twice.default", (t(3, 4), 2.0), {}, ALL_TESTS),
        ("clamp_range.default", (t(3, 4), -0.5, 0.5), {}, ALL_TESTS),
        ("max_dim.default", (t(3, 4), 1), {}, ALL_TESTS),
        ("max_dim_backward.default", (t(3), torch.tensor([0, 2, 1]), 1, [3, 4]), {}, ALL_TESTS),
        ("weighted_sum.default", ([t(3, 4), t(3, 4)], [0.5, 2.0]), {"bias": t(3, 4)}, ALL_TESTS),
        ("sum_dims.default", (t(3, 4), [1]), {"keepdim": True}, ALL_TESTS),
        ("repeat_rows.default", (t(3, 4), 2), {}, ALL_TESTS),
        ("swap_last.default", (t(3, 4),), {}, EAGER),
        ("swap_last_copy.default", (t(3, 4),), {}, ALL_TESTS),
        ("round_to.default", (t(3, 4),), {"decimals": 1}, EAGER if grad else ALL_TESTS),
        ("nonzero_rows.default", (rows.requires_grad_(grad),), {}, EAGER if grad else ALL_TESTS),
    ]
    if not grad:
        # Mutating operators write into tensors that do not require grad.
        out = torch.empty(3, 4, dtype=torch.float64)
        samples += [
            ("scale_.default", (t(3, 4), 2.0), {}, ALL_TESTS),
            ("scale.out", (t(3, 4), 2.0), {"out": out}, ALL_TESTS),
            ("clamp_range.out", (t(3, 4),), {"out": out.clone()}, ALL_TESTS),
        ]
    return samples


@pytest.mark.parametrize("grad", [False, True], ids=["no-grad", "requires-grad"])
def test_opcheck_every_operator_and_overload(toyext: ModuleType, grad: bool) -> None:
    checked = set()
    failures = {}
    for name, args, kwargs, tests in _samples(grad):
        base, overload = name.split(".")
        op = getattr(getattr(torch.ops.toyext, base), overload)
        result = torch.library.opcheck(op, args, kwargs, test_utils=tests, raise_exception=False)
        bad = {test: status for test, status in result.items() if status != "SUCCESS"}
        if bad:
            failures[name] = bad
        checked.add(name)
    assert not failures
    # Every overload of every operator the library defines (from the YAML).
    bases = {line.split("::")[1].split("(")[0].split(".")[0] for line in _yaml_functions()}
    overloads = {
        f"{base}.{overload}"
        for base in bases
        for overload in getattr(torch.ops.toyext, base).overloads()
    }
    if not grad:
        assert checked == overloads


def _yaml_functions() -> list[str]:
    lines = (EXAMPLE / "ops.yaml").read_text().splitlines()
    return [line for line in lines if line.startswith("- func: toyext::")]


# -- autograd -----------------------------------------------------------------


def test_gradcheck_and_gradgradcheck_in_float64(toyext: ModuleType) -> None:
    from torch.autograd import gradcheck, gradgradcheck

    x, y = _double(3, 4, grad=True), _double(3, 4, grad=True)
    functions = {
        "blend": (lambda a, b: toyext.blend(a, b, weight=0.3), (x, y)),
        "scale": (lambda a: toyext.scale(a, 2.5), (x,)),
        "scale_": (lambda a: _inplace_scaled(toyext, a), (x,)),
        "scale_twice": (lambda a: toyext.scale_twice(a, -1.5), (x,)),
        "clamp_range": (lambda a: toyext.clamp_range(a, -0.5, 0.5), (x,)),
        "swap_last": (lambda a: toyext.swap_last(a), (x,)),
        "swap_last_copy": (lambda a: toyext.swap_last_copy(a), (x,)),
        "max_dim": (lambda a: toyext.max_dim(a, 1)[0], (x,)),
        "weighted_sum": (lambda a, b: toyext.weighted_sum([a, b], [0.5, 2.0], b), (x, y)),
        "sum_dims": (lambda a: toyext.sum_dims(a, [0]), (x,)),
        "repeat_rows": (lambda a: toyext.repeat_rows(a, 3), (x,)),
    }
    for name, (function, inputs) in functions.items():
        assert gradcheck(function, inputs), name
        assert gradgradcheck(function, inputs), name


def test_forward_mode_formulas_and_refusals(toyext: ModuleType) -> None:
    from torch.autograd import gradcheck

    x, y = _double(3, 4, grad=True), _double(3, 4, grad=True)
    forward = {"check_forward_ad": True, "check_backward_ad": False, "check_batched_grad": False}
    assert gradcheck(lambda a, b: toyext.blend(a, b, weight=0.3), (x, y), **forward)
    assert gradcheck(lambda a: toyext.scale(a, 2.5), (x,), **forward)  # auto_linear
    assert gradcheck(lambda a: toyext.clamp_range(a, -0.5, 0.5), (x,), **forward)
    import torch.autograd.forward_ad as fwad

    with fwad.dual_level(), pytest.raises(NotImplementedError, match="forward AD with max_dim"):
        toyext.max_dim(fwad.make_dual(x.detach(), torch.ones(3, 4, dtype=torch.float64)), 1)


def _inplace_scaled(toyext: ModuleType, a: Any) -> Any:
    b = a * 1  # not a leaf: in-place on it is allowed and differentiable
    toyext.scale_(b, 2.0)
    return b


def test_non_differentiable_outputs_and_missing_formulas(toyext: ModuleType) -> None:
    x = _double(3, 4, grad=True)
    values, indices = toyext.max_dim(x, 1)
    assert values.requires_grad and values.grad_fn.name() == "toyext::MaxDimBackward0"
    assert not indices.requires_grad
    with pytest.raises(RuntimeError, match="nonzero_rows"):
        toyext.nonzero_rows(x).sum().backward()  # not_implemented("nonzero_rows")
    rounded = toyext.round_to(x)  # no derivatives.yaml entry
    with pytest.raises(RuntimeError, match="not implemented"):
        rounded.sum().backward()
    with pytest.raises(RuntimeError, match="out="):
        toyext.scale_out(x, 2.0, out=torch.empty(3, 4, dtype=torch.float64))


# -- torch.compile -------------------------------------------------------------


def test_compile_fullgraph_dynamic_equals_eager(toyext: ModuleType) -> None:
    def f(a: Any, b: Any) -> Any:
        mixed = toyext.clamp_range(toyext.blend(a, b, weight=0.3), -1.0, 1.0)
        values, _ = toyext.max_dim(mixed, 1)
        rows = toyext.repeat_rows(mixed, 2)
        total = toyext.weighted_sum([values, values], [0.5, 0.25])
        structured = toyext.scale_twice(toyext.scale(a, 2.0), 0.5)  # structured meta + impl
        return (
            total.sum()
            + toyext.sum_dims(rows, [0, 1])
            + toyext.swap_last_copy(b).sum()
            + (structured * b).sum()
        )

    torch._dynamo.reset()
    with torch._dynamo.config.patch(only_allow_pt2_compliant_ops=True):
        compiled = torch.compile(f, fullgraph=True, dynamic=True)
        for rows in (3, 5):
            a, b = _double(rows, 4, grad=True), _double(rows, 4, grad=True)
            a2, b2 = (t.detach().clone().requires_grad_() for t in (a, b))
            eager = f(a, b)
            eager.backward()
            got = compiled(a2, b2)
            got.backward()
            torch.testing.assert_close(got, eager)
            torch.testing.assert_close(a2.grad, a.grad)
            torch.testing.assert_close(b2.grad, b.grad)
        # The view is not pt2_compliant_tag (the compile warned about it): refused.
        torch._dynamo.reset()
        refused = torch.compile(lambda a: toyext.swap_last(a).sum(), fullgraph=True)
        with pytest.raises(Exception, match="non-PT2-compliant"):
            refused(_double(3, 4))
