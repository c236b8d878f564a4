"""Which inner loop serves each dtype, and what the stub and the loops are called with.

Note [Ufunc loop keys]
    ``ufunc_inner_loop`` keys name *where* a loop may be used.  ``Generic``
    is a loop written once for scalars and ``at::vec::Vectorized`` values
    alike, usable everywhere; ``ScalarOnly`` is scalar code, usable
    everywhere but not vectorised; ``CPUScalar`` / ``CPUVector`` and the
    three ``CUDAFunctor*`` keys name one use each.  A dtype's CPU scalar
    loop is the first of (CPUScalar, ScalarOnly, Generic) that lists it, its
    vector loop the first of (CPUVector, Generic); a CUDA functor the first
    of (its own key, ScalarOnly, Generic).  Dtypes are listed in the order
    the scalar-loop keys name them, each group expanded in the order of
    :data:`DTYPE_GROUPS`.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.signatures.cxx_types import Param
from schemac.backends.aten.signatures.structured import StructuredImpl, StructuredMeta
from schemac.diagnostics import Diagnostic, InputError
from schemac.ir.native import NativeFunction, UfuncInnerLoop
from schemac.ir.types import BaseTy, BaseType

#: Dtype names of ``ufunc_inner_loop`` that stand for several ScalarTypes (the YAML format).
DTYPE_GROUPS: dict[str, tuple[str, ...]] = {
    "All": ("Byte", "Char", "Int", "Long", "Short", "Float", "Double"),
    "AllAndComplex": (
        "Byte", "Char", "Int", "Long", "Short", "Float", "Double", "ComplexFloat", "ComplexDouble",
    ),
    "Floating": ("Float", "Double"),
    "FloatingAndComplex": ("Float", "Double", "ComplexFloat", "ComplexDouble"),
    "Integral": ("Byte", "Char", "Int", "Long", "Short"),
    "Complex": ("ComplexFloat", "ComplexDouble"),
}  # fmt: skip

#: The ScalarTypes a loop may name one by one.
SCALAR_TYPES = frozenset(
    {
        "Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double",
        "ComplexHalf", "ComplexFloat", "ComplexDouble", "Bool", "BFloat16",
    }
)  # fmt: skip

CPU_SCALAR_KEYS = ("CPUScalar", "ScalarOnly", "Generic")
CPU_VECTOR_KEYS = ("CPUVector", "Generic")
#: The CUDA functors, in the order a kernel tries them (a CPU-scalar operand first).
CUDA_FUNCTORS = ("CUDAFunctorOnOther", "CUDAFunctorOnSelf", "CUDAFunctor")

_TENSOR = BaseType(BaseTy.Tensor)


@attrs.frozen
class DtypeLoops:
    dtype: str
    scalar: UfuncInnerLoop
    vector: UfuncInnerLoop | None


@attrs.frozen
class UfuncPlan:
    """One operator's ufunc kernels (for its structured out= function ``out``)."""

    out: NativeFunction
    #: The operator's base name: ``add`` (stub ``add_stub``, header ``ufunc/add.h``).
    op: str
    meta: StructuredMeta
    cpu: StructuredImpl
    cuda: StructuredImpl
    #: The tensor inputs, in order (``self``, ``other``): the loops' operands.
    tensors: tuple[str, ...]
    #: The other inputs (``alpha``): passed to the stub and to every loop.
    scalars: tuple[Param, ...]
    cpu_loops: tuple[DtypeLoops, ...]
    #: dtype -> functor key -> loop, for the dtypes any CUDA functor serves.
    cuda_loops: tuple[tuple[str, tuple[tuple[str, UfuncInnerLoop], ...]], ...]

    @property
    def stub(self) -> str:
        return f"{self.op}_stub"

    @property
    def stub_type(self) -> str:
        return f"{self.op}_fn"

    @property
    def kernel(self) -> str:
        return f"{self.op}_kernel"

    def stub_params(self) -> str:
        return ", ".join(["TensorIteratorBase&", *(str(p.type) for p in self.scalars)])

    def kernel_params(self) -> str:
        return ", ".join(["TensorIteratorBase& iter", *(p.defn() for p in self.scalars)])

    def scalar_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.scalars)


def expand_dtypes(loop: UfuncInnerLoop) -> tuple[str, ...]:
    """The ScalarTypes ``loop`` lists; InputError at the loop for an unknown name."""
    out: list[str] = []
    unknown = []
    for name in loop.supported_dtypes:
        if name in DTYPE_GROUPS:
            out.extend(DTYPE_GROUPS[name])
        elif name in SCALAR_TYPES:
            out.append(name)
        else:
            unknown.append(name)
    if unknown:
        groups = ", ".join([*DTYPE_GROUPS, *sorted(SCALAR_TYPES)])
        raise InputError(
            [
                Diagnostic(
                    loop.span,
                    f"unknown dtype {', '.join(repr(u) for u in unknown)} in ufunc inner loop "
                    f"'{loop.name}'",
                    f"known dtypes: {groups}",
                )
            ]
        )
    return tuple(dict.fromkeys(out))


def _first(
    keys: tuple[str, ...], dtype: str, by_key: dict[str, tuple[UfuncInnerLoop, tuple[str, ...]]]
) -> UfuncInnerLoop | None:
    for key in keys:
        entry = by_key.get(key)
        if entry is not None and dtype in entry[1]:
            return entry[0]
    return None


def loops_by_dtype(
    loops: tuple[UfuncInnerLoop, ...],
) -> tuple[tuple[DtypeLoops, ...], tuple[tuple[str, tuple[tuple[str, UfuncInnerLoop], ...]], ...]]:
    """The CPU loops and the CUDA functors of every dtype (Note [Ufunc loop keys])."""
    by_key = {loop.key: (loop, expand_dtypes(loop)) for loop in loops}
    dtypes: list[str] = []
    for key in CPU_SCALAR_KEYS:
        if key in by_key:
            dtypes.extend(d for d in by_key[key][1] if d not in dtypes)
    for key in CUDA_FUNCTORS:
        if key in by_key:
            dtypes.extend(d for d in by_key[key][1] if d not in dtypes)
    cpu: list[DtypeLoops] = []
    cuda: list[tuple[str, tuple[tuple[str, UfuncInnerLoop], ...]]] = []
    for dtype in dtypes:
        scalar = _first(CPU_SCALAR_KEYS, dtype, by_key)
        if scalar is not None:
            cpu.append(DtypeLoops(dtype, scalar, _first(CPU_VECTOR_KEYS, dtype, by_key)))
        functors = tuple(
            (key, loop)
            for key in CUDA_FUNCTORS
            if (loop := _first((key, "ScalarOnly", "Generic"), dtype, by_key)) is not None
        )
        if functors:
            cuda.append((dtype, functors))
    return tuple(cpu), tuple(cuda)


def tensor_inputs(functional: NativeFunction) -> tuple[str, ...]:
    return tuple(a.name for a in functional.func.arguments.flat_non_out if a.type == _TENSOR)
