"""Which operators get which autograd-layer kernels, decided once per function.

Three dispatch keys sit above the backends: Autograd (VariableType: record
the backward graph), ADInplaceOrView (bump version counters of mutated
tensors, mark outputs of view operators as views) and Tracer (TorchScript
tracing).  :class:`OperatorPlan` records, for one native function, every
fact the three emitters branch on, so they agree with each other (a function
with an ADInplaceOrView kernel always has an Autograd one too).

The rules follow PyTorch's: a function gets generated Autograd and
ADInplaceOrView kernels when it is not written by hand (policy.MANUAL_AUTOGRAD)
and either dispatches to backends (is abstract) or has a formula; an abstract
function with no formula but with differentiable outputs is registered to
the boxed "not implemented" fallback instead of a generated kernel, unless it
is in one of the policy lists that still want a generated pass-through.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.aten.signatures.naming import cpp_name, unambiguous_name
from schemac.backends.aten.signatures.type_map import argument_type, returns_type
from schemac.backends.autograd.nodes import uses_identifier
from schemac.backends.autograd.policy import AutogradPolicy, reference_policy
from schemac.ir.autograd import (
    DEFAULT_AUTOGRAD_KEY,
    DifferentiabilityInfo,
    ForwardDerivative,
    FunctionAutograd,
)
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.ir.schema import FunctionSchema, Return, SchemaKind
from schemac.ir.types import BaseTy, ListType, Type, is_like

#: Kernels whose debug-build aliasing checks are skipped (by C++ name or wrapper name).
_SKIPS_ALIAS_CHECKS = frozenset(
    [
        "set_",
        "_cudnn_rnn_flatten_weight",
        "_unsafe_masked_index",
        "_unsafe_masked_index_put_accumulate",
    ]
)
_SKIPS_USE_COUNT_CHECKS = frozenset(
    [
        "_embedding_bag",
        "_embedding_bag_forward_only",
        "q_per_channel_scales",
        "q_per_channel_zero_points",
        "lu_unpack",
        "_cudnn_rnn_backward",
        "_cudnn_rnn",
        "dequantize_self",
        "lift",
        "lift_fresh",
        "lift_fresh_copy",
        "_nested_tensor_size",
        "_nested_tensor_strides",
        "_nested_tensor_storage_offsets",
        "_slow_conv2d_forward",
        "slow_conv3d_forward",
        "channel_shuffle",
    ]
)


def return_names(func: FunctionSchema) -> tuple[str, ...]:
    """The C++ names of the returns (``self`` in place, out names for out=)."""
    arg_names = {a.name for a in func.arguments.flat_all}
    names = []
    for i, ret in enumerate(func.returns):
        if func.name.name.inplace:
            names.append("self")
        elif func.arguments.out:
            names.append(func.arguments.out[i].name)
        elif ret.name:
            names.append(f"{ret.name}_return" if ret.name in arg_names else ret.name)
        else:
            names.append("result" if len(func.returns) == 1 else f"result{i}")
    return tuple(names)


def wrapper_name(
    fn: NativeFunction, key: str = DEFAULT_AUTOGRAD_KEY, *, cpp: str | None = None
) -> str:
    """``add_Tensor``, ``add_Tensor_AutogradCUDA``: the kernel's C++ name.

    ``cpp`` is ``cpp_name(fn.func)`` when the caller has it already.
    """
    name = cpp_name(fn.func) if cpp is None else cpp
    if fn.func.name.overload:
        name += f"_{fn.func.name.overload}"
    return name if key == DEFAULT_AUTOGRAD_KEY else f"{name}_{key}"


def registration_key(key: str) -> str:
    """The dispatch key an autograd key's kernels are registered for."""
    return "Autograd" if key == DEFAULT_AUTOGRAD_KEY else key


@attrs.frozen
class OperatorPlan:
    """One function's autograd-layer facts, computed once, when the plan is made.

    The names every kernel family asks for are fields, filled by plan_of.
    The spelling of the kernel's C++ signature (:class:`KernelSignature`) is
    made on first use: only a kernel being printed reads it, and after an
    edit most kernels are not (Note [Autograd pieces]).  The other derived
    facts (``has_derivatives``, ``autograd_keys``...) are computed from those
    in ``__attrs_post_init__``:
    the emitters ask each plan the same questions ~100,000 times in all when
    compiling torch's files, and each is cheap.  They used to be computed on
    first use and kept in the instance's ``__dict__``, but on CPython 3.11 a
    key added to an instance dict after ``__init__`` turns its shared-key
    table into a table of its own: ~1 KiB more per plan, 3 MiB of each
    process of ``-t autograd`` for torch's ~3,100 plans.  A slotted plan with
    every fact filled is ~0.3 KiB.
    """

    fn: NativeFunction
    autograd: FunctionAutograd | None
    is_abstract: bool
    cpp_name: str
    #: ``add.Tensor``: the name the kernels are registered under.
    schema_name: str
    #: The kernel's C++ name for the Default autograd key (``add_Tensor``).
    wrapper: str
    kind: SchemaKind
    #: ``add`` for every variant of add: the operator's base name.
    base: str
    #: The per-operator header name, shared by all variants (the base name).
    root_name: str
    #: The C++ names of the returns (:func:`return_names`).
    result_names: tuple[str, ...]
    #: In-place or out=: the kernels return the mutated arguments.
    modifies_arguments: bool
    #: In-place foreach operators using a per-tensor operator's formulas: that
    #: operator's argument names -> this operator's expression for tensor ``i``.
    element_args: tuple[tuple[str, str], ...] = ()
    #: The target release's lists (manual kernels, views, complex support...).
    policy: AutogradPolicy = attrs.field(factory=reference_policy, eq=False, repr=False)
    #: The run's memo of C++ type spellings (a pure function of its keys).
    spelling: DispatcherSpelling = attrs.field(
        factory=lambda: DispatcherSpelling(), eq=False, repr=False
    )

    #: What a kernel piece's key covers (Note [Autograd pieces] in kernel_texts.py):
    #: every other field is computed from these by :func:`plan_of`, and ``policy``
    #: is the release's, fixed by the run.  As a class with ``reuse_fields`` a
    #: plan is also digested once per run, however many families print it.
    reuse_fields: ClassVar[tuple[str, ...]] = ("fn", "autograd", "is_abstract", "element_args")

    # Derived from the fields above (__attrs_post_init__).
    infos: tuple[DifferentiabilityInfo, ...] = attrs.field(init=False, eq=False, repr=False)
    has_derivatives: bool = attrs.field(init=False, eq=False, repr=False)
    is_inplace_foreach: bool = attrs.field(init=False, eq=False, repr=False)
    #: The argument the output views, for view operators.
    view_of: str | None = attrs.field(init=False, eq=False, repr=False)
    #: Kernels for Autograd and ADInplaceOrView are generated at all.
    has_generated_autograd: bool = attrs.field(init=False, eq=False, repr=False)
    _outputs_without_info: tuple[str, ...] = attrs.field(init=False, eq=False, repr=False)
    #: Registered to the boxed fallback that fails at backward time.
    uses_not_implemented_fallback: bool = attrs.field(init=False, eq=False, repr=False)
    #: Autograd keys this function gets a generated kernel for.
    autograd_keys: tuple[str, ...] = attrs.field(init=False, eq=False, repr=False)
    has_inplace_or_view_kernel: bool = attrs.field(init=False, eq=False, repr=False)
    #: Gets a Tracer kernel (which may still skip recording, see should_record).
    is_traced: bool = attrs.field(init=False, eq=False, repr=False)
    #: Made on first use (:attr:`signature`).
    _signature: KernelSignature | None = attrs.field(init=False, default=None, eq=False, repr=False)

    @property
    def signature(self) -> KernelSignature:
        """The kernel's C++ signature, spelled on first use (a slot, not a dict)."""
        found = self._signature
        if found is None:
            found = kernel_signature(self.fn, self.spelling)
            object.__setattr__(self, "_signature", found)
        return found

    @property
    def param_defns(self) -> tuple[str, ...]:
        """The dispatcher signature's parameters, ``const at::Tensor & self``."""
        return self.signature.param_defns

    @property
    def kernel_returns(self) -> str:
        return self.signature.kernel_returns

    @property
    def param_names(self) -> tuple[str, ...]:
        return self.signature.param_names

    @property
    def kernel_params(self) -> str:
        return self.signature.kernel_params

    @property
    def ops_name(self) -> str:
        return self.signature.ops_name

    def __attrs_post_init__(self) -> None:
        fill = object.__setattr__
        policy = self.policy
        infos = self.autograd.infos if self.autograd is not None else ()
        fill(self, "infos", infos)
        has_derivatives = any(info.has_derivatives for info in infos)
        fill(self, "has_derivatives", has_derivatives)
        fill(
            self,
            "is_inplace_foreach",
            self.kind is SchemaKind.inplace and self.base.startswith("_foreach_"),
        )
        view_of = policy.view_functions.get(self.base)
        if view_of is None and self.base in policy.returns_views_of_input:
            view_of = "self"
        fill(self, "view_of", view_of)
        generated = self.cpp_name not in policy.manual_autograd and (
            self.is_abstract or has_derivatives
        )
        fill(self, "has_generated_autograd", generated)
        outputs = self._differentiable_outputs(None)
        fill(self, "_outputs_without_info", outputs)
        fallback = (
            self.autograd is None
            and str(self.fn.func.name.name) not in policy.reset_grad_accumulator
            and self.base not in policy.dont_require_derivative
            and bool(outputs)
            and self.cpp_name not in _SKIPS_ALIAS_CHECKS
            and self.wrapper not in _SKIPS_USE_COUNT_CHECKS
        )
        fill(self, "uses_not_implemented_fallback", fallback)
        if fallback:
            keys: tuple[str, ...] = ()
        elif not infos:
            keys = (DEFAULT_AUTOGRAD_KEY,)
        else:
            keys = tuple(info.dispatch_key for info in infos)
        fill(self, "autograd_keys", keys)
        fill(
            self,
            "has_inplace_or_view_kernel",
            generated
            and (view_of is not None or (self.modifies_arguments and bool(self.fn.func.returns))),
        )
        fill(self, "is_traced", self.cpp_name not in policy.manual_tracer)

    def differentiable_outputs(self, info: DifferentiabilityInfo | None) -> tuple[str, ...]:
        if info is None:
            return self._outputs_without_info
        return self._differentiable_outputs(info)

    def _differentiable_outputs(self, info: DifferentiabilityInfo | None) -> tuple[str, ...]:
        func = self.fn.func
        names = self.result_names
        if info is not None and info.output_differentiability is not None:
            return tuple(n for n, d in zip(names, info.output_differentiability, strict=False) if d)
        excluded = info.non_differentiable_arg_names if info is not None else ()
        candidates = tuple(
            n
            for n, r in zip(names, func.returns, strict=True)
            if is_like(r.type, BaseTy.Tensor) and n not in excluded
        )
        if info is not None and uses_identifier(info, "grad"):
            return candidates[:1]
        return candidates

    def forward_derivatives(self, key: str) -> tuple[ForwardDerivative, ...]:
        """The forward formulas this function uses under ``key`` (in-place rewritten)."""
        if self.autograd is None:
            return ()
        for k, formulas in self.autograd.forward_derivatives:
            if k == key:
                return formulas
        return ()

    def info_for(self, key: str) -> DifferentiabilityInfo | None:
        return self.autograd.info_for(key) if self.autograd is not None else None


def _element_args(
    module: Module, fn: NativeFunction, autograd: FunctionAutograd | None
) -> tuple[tuple[str, str], ...]:
    """Per-tensor argument mapping of an in-place foreach operator (see OperatorPlan)."""
    func = fn.func
    if (
        autograd is None
        or not func.name.name.inplace
        or not func.name.name.base.startswith("_foreach_")
    ):
        return ()
    info = autograd.info_for(DEFAULT_AUTOGRAD_KEY)
    if info is None or info.node is None or info.node.startswith("Foreach"):
        return ()
    reference = module.find_function(info.operator)
    if reference is None:
        return ()
    pairs = zip(func.arguments.flat_non_out, reference.func.arguments.flat_non_out, strict=False)
    return tuple(
        (ref.name, f"{ours.name}[i]" if isinstance(ours.type, ListType) else ours.name)
        for ours, ref in pairs
    )


class DispatcherSpelling:
    """The dispatcher signature's parameters and return type, spelled once per compile.

    Every autograd-layer kernel takes its operator's dispatcher parameters
    (:func:`~schemac.backends.aten.signatures.dispatcher.dispatcher_signature`:
    schema order, symbolic sizes, no defaults).  torch's ~3,100 operators
    have ~12,000 parameters but only ~100 distinct (type, written to) pairs
    and ~150 distinct return lists, so each C++ type is spelled once.  Entries
    are pure functions of their keys (IR values); one memo lives for one
    compile (operator_plans makes it), never longer.
    """

    def __init__(self) -> None:
        #: C++ type text per (schema type, written to), per conventions.  Keyed
        #: by the type, not the whole argument: ~100 distinct keys, and a type's
        #: hash is cached where an argument's is computed from all its fields.
        self._types: dict[Conventions, dict[tuple[Type, bool], str]] = {}
        self._returns: dict[tuple[tuple[Return, ...], Conventions], str] = {}

    def params(self, func: FunctionSchema, conv: Conventions) -> tuple[str, ...]:
        spelled = self._types.get(conv)
        if spelled is None:
            spelled = self._types[conv] = {}
        defns = []
        for arg in func.arguments.flat_all:
            annotation = arg.annotation
            key = (arg.type, annotation is not None and annotation.is_write)
            cpp = spelled.get(key)
            if cpp is None:
                # The parameter type exactly as dispatcher_signature_of builds it (symbolic).
                cpp = spelled[key] = str(
                    argument_type(key[0], mutable=key[1], symint=True, conv=conv)
                )
            # As C.Param(cpp, arg.name).defn() spells it.
            defns.append(f"{cpp} {arg.name}")
        return tuple(defns)

    def returns(self, func: FunctionSchema, conv: Conventions) -> str:
        key = (func.returns, conv)
        text = self._returns.get(key)
        if text is None:
            text = self._returns[key] = str(returns_type(func.returns, conv))
        return text


@attrs.frozen
class KernelSignature:
    """How every autograd-layer kernel of one function is declared and redispatches."""

    #: The dispatcher signature's parameters, ``const at::Tensor & self``
    #: (see :class:`DispatcherSpelling`), and its return type.
    param_defns: tuple[str, ...]
    kernel_returns: str
    #: The C++ names of the parameters.
    param_names: tuple[str, ...]
    #: The parameter list of every autograd-layer kernel of this function.
    kernel_params: str
    #: ``at::_ops::<op>``: the struct whose ``redispatch`` the kernels call.
    ops_name: str


def kernel_signature(fn: NativeFunction, spelling: DispatcherSpelling) -> KernelSignature:
    func = fn.func
    conv = Conventions.of(fn)
    params = spelling.params(func, conv)
    return KernelSignature(
        param_defns=params,
        kernel_returns=spelling.returns(func, conv),
        param_names=tuple([a.name for a in func.arguments.flat_all]),
        kernel_params=", ".join(["c10::DispatchKeySet ks", *params]),
        ops_name=f"at::_ops::{unambiguous_name(func)}",
    )


def plan_of(
    fn: NativeFunction,
    autograd: FunctionAutograd | None,
    abstract: bool,
    element_args: tuple[tuple[str, str], ...] = (),
    spelling: DispatcherSpelling | None = None,
    policy: AutogradPolicy | None = None,
) -> OperatorPlan:
    if spelling is None:
        spelling = DispatcherSpelling()
    func = fn.func
    cpp = cpp_name(func)
    kind = func.kind()
    base = func.name.name.base
    return OperatorPlan(
        fn=fn,
        autograd=autograd,
        is_abstract=abstract,
        cpp_name=cpp,
        schema_name=str(func.name),
        wrapper=wrapper_name(fn, cpp=cpp),
        kind=kind,
        base=base,
        root_name=base,
        result_names=return_names(func),
        modifies_arguments=kind is SchemaKind.inplace or kind is SchemaKind.out,
        element_args=element_args,
        policy=reference_policy() if policy is None else policy,
        spelling=spelling,
    )


def operator_plans(
    module: Module, policy: AutogradPolicy | None = None
) -> tuple[OperatorPlan, ...]:
    """One plan per native function, sorted by C++ name (stable), as PyTorch orders them.

    ``policy``: the target release's lists (the reference release's by default).
    """
    policy = reference_policy() if policy is None else policy
    plans = []
    spelling = DispatcherSpelling()  # this compile's only
    for fn in module.functions:
        resolution = module.resolutions.get(fn.func.name)
        abstract = resolution.is_abstract if resolution is not None else True
        autograd = module.autograd.for_function(fn.func.name)
        element_args = _element_args(module, fn, autograd)
        plans.append(plan_of(fn, autograd, abstract, element_args, spelling, policy))
    return tuple(sorted(plans, key=lambda p: p.cpp_name))
