"""The names a derivative formula may use besides its own variables and the helpers.

Formulas are C++ expressions compiled inside PyTorch's autograd library, where
three kinds of free names are in scope: the helpers of
``torch/csrc/autograd/FunctionsManual.h`` (``mul_tensor_backward``,
``wrap_opt_if``...), every ATen operator (unqualified, with an optional
``_symint`` suffix) and a handful of C++ types and constants.  The formula
checker accepts a name from these sets and reports anything else with a
did-you-mean hint, so a typo in derivatives.yaml fails here, with a position,
instead of in a C++ compiler hours later.

The helpers differ from release to release, so they are not listed here: they
come from the target's own headers (:mod:`schemac.frontend.helper_headers`)
or, without them, from its release profile (``autograd_helpers``).  What is
here belongs to C++ itself and does not change.
"""

from __future__ import annotations

#: C++ types that formulas construct or name as template arguments.
CPP_TYPES: frozenset[str] = frozenset(
    {
        "Device",
        "Generator",
        "IntArrayRef",
        "Layout",
        "MemoryFormat",
        "Scalar",
        "ScalarType",
        "SymInt",
        "SymIntArrayRef",
        "Tensor",
        "TensorGeometry",
        "TensorList",
        "TensorOptions",
        "bool",
        "double",
        "float",
        "int",
        "int32_t",
        "int64_t",
        "optional",
        "size_t",
        "string",
        "tuple",
        "uint64_t",
        "vector",
    }
)

#: C++ keywords and constants that may appear as free names.
CPP_WORDS: frozenset[str] = frozenset(
    {
        # Every constant <cmath> defines (POSIX), whichever a formula uses.
        *("M_E", "M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10"),
        *("M_PI", "M_PI_2", "M_PI_4", "M_1_PI", "M_2_PI", "M_2_SQRTPI"),
        *("M_SQRT2", "M_SQRT1_2"),
        "auto",
        "const",
        "false",
        "kCudnnDoubleBackwardMsg",
        "nullptr",
        "return",
        "sizeof",
        "static_cast",
        "this",
        "true",
    }
)
