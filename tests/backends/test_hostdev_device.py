"""The hostdev example device, built with schemac's registrations and run in real torch.

The extension (examples/hostdev: allocator, guard, hooks, kernels, and the
Register*.cpp schemac generates from its backend.yaml) is compiled once per
pytest run and shared by the xdist workers; each test process loads it and
checks the device against CPU results.  The device tests run in a child
Python process: loading a PrivateUse1 backend and renaming it is
process-wide and cannot be undone, so the test runner itself stays clean.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.torch

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hostdev"


def _build(destination: Path) -> None:
    staging = destination.with_name(destination.name + ".partial")
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE), "MAX_JOBS": os.environ.get("MAX_JOBS", "2")}
    code = f"import hostdev; print(hostdev.build({str(staging)!r}))"
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    staging.rename(destination)


def _inputs_digest() -> str:
    """The example's files and the generator's code: the shared build outlives the run."""
    src = Path(__file__).resolve().parents[2] / "src" / "schemac" / "backends"
    files = [*EXAMPLE.rglob("*.*"), *(src / "backend_stubs").rglob("*.*")]
    files += (src / "aten" / "registrations").glob("*.py")
    digest = hashlib.sha256()
    for path in sorted(p for p in files if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="module")
def hostdev_library(build_shared_reference) -> Path:  # type: ignore[no-untyped-def]
    built: Path = build_shared_reference(f"hostdev-extension-{_inputs_digest()}", _build)
    return built / "objects" / "hostdev_ext.so"


def run_on_device(library: Path, body: str) -> str:
    prelude = f"import torch, hostdev\nhostdev.load({str(library)!r})\nd = 'hostdev'\n"
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE)}
    result = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(body)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-6000:]
    return result.stdout


def test_tensors_on_the_device_equal_cpu(hostdev_library: Path) -> None:
    out = run_on_device(
        hostdev_library,
        """
        e = torch.empty(3, device=d)
        assert e.device.type == "hostdev" and e.shape == (3,)
        a = torch.tensor([1.5, -2.0, 3.0, -0.25])
        b = torch.tensor([0.5, 4.0, -1.0, 2.0])
        ad, bd = a.to(d), b.to(d)
        assert ad.device.type == "hostdev" and torch.equal(ad.cpu(), a)
        assert torch.equal((ad + bd).cpu(), a + b)
        assert torch.equal(torch.add(ad, bd, alpha=2).cpu(), torch.add(a, b, alpha=2))
        assert torch.equal((ad * bd).cpu(), a * b)
        assert torch.equal(ad.abs().cpu(), a.abs())
        c = a.to(d)
        c.abs_()
        assert torch.equal(c.cpu(), a.abs())
        o = torch.empty(0, device=d)
        torch.abs(ad, out=o)
        assert o.shape == (4,) and torch.equal(o.cpu(), a.abs())
        m = torch.arange(6.0).to(d)
        assert torch.equal(m.view(2, 3).cpu(), torch.arange(6.0).view(2, 3))
        assert m.view(3, 2).untyped_storage().data_ptr() == m.untyped_storage().data_ptr()
        r = torch.ones(2, device=d)
        r.resize_(5)
        assert r.shape == (5,) and torch.equal(r[:2].cpu(), torch.ones(2))
        assert torch.equal(m.view(2, 3).sum(dim=1).cpu(), torch.arange(6.0).view(2, 3).sum(dim=1))
        assert ad.sum().item() == a.sum().item()
        print("ok")
        """,
    )
    assert out.strip() == "ok"


def test_gradcheck_through_autograd_privateuse1(hostdev_library: Path) -> None:
    """tanh is registered to AutogradPrivateUse1: the device's own backward formula."""
    out = run_on_device(
        hostdev_library,
        """
        x = torch.randn(5, dtype=torch.double, requires_grad=True)
        assert torch.autograd.gradcheck(lambda t: torch.tanh(t.to(d)).cpu(), (x,))
        y = torch.tanh(x.detach().to(d).requires_grad_())
        # The device's node, not ATen's TanhBackward0.
        assert y.grad_fn.name() == "torch::autograd::CppNode<hostdev::(anonymous namespace)::Tanh>"
        print("ok")
        """,
    )
    assert out.strip() == "ok"


def test_torch_compile_aot_eager(hostdev_library: Path) -> None:
    out = run_on_device(
        hostdev_library,
        """
        def f(u, v):
            return (u * v + u).abs().sum()
        u, v = torch.randn(8).to(d), torch.randn(8).to(d)
        compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
        assert torch.equal(compiled(u, v).cpu(), f(u, v).cpu())
        print("ok")
        """,
    )
    assert out.strip() == "ok"
