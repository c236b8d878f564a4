"""What the ufunc file templates print: per dtype, the loop calls; per CUDA key, a functor.

The C++ of one call is assembled here from names only (operands, scalar
parameters, the loop's name); the templates lay the cases and files out.
"""

from __future__ import annotations

import attrs

from schemac.backends.ufunc.plan import DtypeLoops, UfuncPlan
from schemac.ir.native import UfuncInnerLoop

VECTOR = "at::vec::Vectorized<scalar_t>"


def _call(loop: UfuncInnerLoop, operands: tuple[str, ...], scalars: tuple[str, ...]) -> str:
    return f"ufunc::{loop.name}({', '.join((*operands, *scalars))})"


@attrs.frozen
class CpuCase:
    """One ``AT_DISPATCH_CASE`` of the CPU kernel."""

    dtype: str
    #: ``auto _s_alpha = alpha.to<scalar_t>();`` and, vectorised, the ``_v_`` twin.
    locals: tuple[str, ...]
    #: ``[=](scalar_t self, scalar_t other) { return ufunc::add(...); }`` and the vector one.
    lambdas: tuple[str, ...]

    @property
    def runner(self) -> str:
        return "cpu_kernel_vec" if len(self.lambdas) == 2 else "cpu_kernel"


def cpu_case(plan: UfuncPlan, loops: DtypeLoops) -> CpuCase:
    scalars = plan.scalar_names()
    locals_ = [f"auto _s_{s} = {s}.to<scalar_t>();" for s in scalars]
    operands = plan.tensors
    scalar_params = ", ".join(f"scalar_t {t}" for t in operands)
    lambdas = [
        f"[=]({scalar_params}) {{ return "
        f"{_call(loops.scalar, operands, tuple(f'_s_{s}' for s in scalars))}; }}"
    ]
    if loops.vector is not None:
        locals_ += [f"auto _v_{s} = {VECTOR}(_s_{s});" for s in scalars]
        vector_params = ", ".join(f"{VECTOR} {t}" for t in operands)
        lambdas.append(
            f"[=]({vector_params}) {{ return "
            f"{_call(loops.vector, operands, tuple(f'_v_{s}' for s in scalars))}; }}"
        )
    return CpuCase(loops.dtype, tuple(locals_), tuple(lambdas))


@attrs.frozen
class CpuKernelView:
    plan: UfuncPlan
    cases: tuple[CpuCase, ...]


def cpu_kernel_view(plan: UfuncPlan) -> CpuKernelView:
    return CpuKernelView(plan, tuple(cpu_case(plan, loops) for loops in plan.cpu_loops))


@attrs.frozen
class Functor:
    """``template <typename scalar_t> struct <key>_<loop> { ... }`` of the CUDA file."""

    name: str
    #: ``opmath_t other_;`` members, in constructor order.
    members: tuple[str, ...]
    constructor_params: str
    initializers: str
    #: The device operator's parameters (the tensors the functor is applied to).
    operands: str
    call: str


@attrs.frozen
class CudaCase:
    dtype: str
    #: ``(cpu-scalar operand index, functor type, constructor arguments)`` tried in order.
    scalar_operand_branches: tuple[tuple[int, str, str], ...]
    #: ``CUDAFunctor_add<scalar_t>(...)``, the general case; None if the dtype has none.
    general: str | None


@attrs.frozen
class CudaFileView:
    plan: UfuncPlan
    functors: tuple[Functor, ...]
    cases: tuple[CudaCase, ...]


def _functor_name(key: str, loop: UfuncInnerLoop) -> str:
    return f"{key}_{loop.name}"


def _functor(plan: UfuncPlan, key: str, loop: UfuncInnerLoop) -> Functor:
    tensors = plan.tensors
    # OnSelf: applied to self, the other tensor is a captured CPU scalar; OnOther: the reverse.
    captured = {
        "CUDAFunctorOnSelf": tensors[1:2],
        "CUDAFunctorOnOther": tensors[:1],
        "CUDAFunctor": (),
    }[key]
    fields = (*captured, *plan.scalar_names())
    applied = tuple(t for t in tensors if t not in captured)
    arguments = tuple(
        f"{t}_" if t in fields else f"static_cast<opmath_t>({t})" for t in tensors
    ) + tuple(f"{s}_" for s in plan.scalar_names())
    return Functor(
        name=_functor_name(key, loop),
        members=tuple(f"opmath_t {f}_;" for f in fields),
        constructor_params=", ".join(f"opmath_t {f}" for f in fields),
        initializers=", ".join(f"{f}_({f})" for f in fields),
        operands=", ".join(f"scalar_t {t}" for t in applied),
        call=f"ufunc::{loop.name}({', '.join(arguments)})",
    )


def cuda_view(plan: UfuncPlan) -> CudaFileView:
    functors: dict[str, Functor] = {}
    cases: list[CudaCase] = []
    two_operands = len(plan.tensors) == 2
    scalars = ", ".join(f"({s}).to<opmath_t>()" for s in plan.scalar_names())
    for dtype, keyed in plan.cuda_loops:
        branches: list[tuple[int, str, str]] = []
        general = None
        for key, loop in keyed:
            if key != "CUDAFunctor" and not two_operands:
                continue
            functor = _functor(plan, key, loop)
            functors.setdefault(functor.name, functor)
            if key == "CUDAFunctor":
                general = f"{functor.name}<scalar_t>({scalars})"
                continue
            # Operand 0 is the output; a CPU-scalar self is operand 1, other operand 2.
            operand = 1 if key == "CUDAFunctorOnOther" else 2
            arguments = ", ".join(
                a for a in (f"iter.scalar_value<opmath_t>({operand})", scalars) if a
            )
            branches.append((operand, f"{functor.name}<scalar_t>", arguments))
        cases.append(CudaCase(dtype, tuple(branches), general))
    ordered = sorted(functors.values(), key=lambda f: _FUNCTOR_ORDER.index(f.name.split("_")[0]))
    return CudaFileView(plan, tuple(ordered), tuple(cases))


#: The order the functor structs are defined in the file.
_FUNCTOR_ORDER = ("CUDAFunctorOnSelf", "CUDAFunctorOnOther", "CUDAFunctor")
