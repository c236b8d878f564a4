"""The ``ufunc`` backend: one CPU, one CPU-kernel and one CUDA file per ufunc operator."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import module_sources
from schemac.backends.ufunc.plan import (
    UfuncPlan,
    loops_by_dtype,
    tensor_inputs,
)
from schemac.backends.ufunc.views import CudaFileView, cpu_kernel_view, cuda_view
from schemac.ir.module import Module


def ufunc_plans(module: Module, options: EmitOptions) -> Iterator[UfuncPlan]:
    """Every structured group whose out= function has inner loops, in module order."""
    views = aten_run_state(module, options).views
    for group in module.groups:
        out = module.function(group.out)
        if not group.structured or not out.ufunc_inner_loop:
            continue
        functional = module.function(group.functional)
        meta = views.structured_meta(functional, out)
        resolution = module.resolution(out.func.name)
        impls = {
            key: views.structured_impl(meta, out, resolution.dispatch[key].name)
            for key in ("CPU", "CUDA")
        }
        tensors = tensor_inputs(functional)
        cpu, cuda = loops_by_dtype(out.ufunc_inner_loop)
        yield UfuncPlan(
            out=out,
            op=out.func.name.name.base,
            meta=meta,
            cpu=impls["CPU"],
            cuda=impls["CUDA"],
            tensors=tensors,
            scalars=tuple(p for p in meta.meta.params if p.name not in tensors),
            cpu_loops=cpu,
            cuda_loops=cuda,
        )


@attrs.frozen
class UfuncBackend:
    name: str = "ufunc"
    description: str = "UfuncCPU_<op>.cpp, UfuncCPUKernel_<op>.cpp, UfuncCUDA_<op>.cu"
    targets: tuple[str, ...] = ("ufunc",)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile]:
        templates = aten_run_state(module, options).templates(__package__ or "")
        sources = module_sources(module)
        for plan in ufunc_plans(module, options):
            span = plan.out.span
            files: tuple[tuple[str, str, object], ...] = (
                ("UfuncCPU.cpp", f"UfuncCPU_{plan.op}.cpp", plan),
                ("UfuncCPUKernel.cpp", f"UfuncCPUKernel_{plan.op}.cpp", cpu_kernel_view(plan)),
                ("UfuncCUDA.cu", f"UfuncCUDA_{plan.op}.cu", cuda_view(plan)),
            )
            for template, name, view in files:
                text = templates.render(f"{template}.mako", view, sources=sources)
                yield GeneratedFile(f"ATen/{name}", text, span=span)


BACKEND = UfuncBackend()

__all__ = ["BACKEND", "CudaFileView", "ufunc_plans"]
