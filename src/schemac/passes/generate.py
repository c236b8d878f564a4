"""``autogen-variants``: synthesise the out= and functional variants ``autogen:`` asks for.

Functionalization and the grouping of operators into families both want every
family to have a functional and an out= member.  When the file lacks them,
this pass builds them from the family's other members:

- an out= variant when some member's ``autogen:`` names an out= operator and
  the family has none: from the in-place variant, ``self`` becomes the out
  argument; from a functional or mutable one, each Tensor-like return becomes
  an out argument (``out``, or ``out0``, ``out1``, ...) with a fresh alias;
- a functional variant when the family has (or now has) an out= variant but
  no functional one: the normalised signature with mutated inputs turned into
  returns named ``<arg>_out``; ``_functional`` is added to the name when the
  source was a mutable variant, so the two cannot be confused by overload.

Each synthesised function gets a CompositeExplicitAutograd kernel named after
it (``<name>_<overload>`` for out=, plus ``_symint`` when the source takes
SymInts), the ``generated`` tag and ``generated=True``; it reuses its source's
span, so diagnostics about it point at the entry that caused it.

Families that are not synthesised: view operators, operators without a
dispatcher entry (``manual_cpp_binding``) and non-``core`` families whose
every member is CompositeImplicitAutograd.  A family that cannot get an out=
variant (no Tensor-like return, not in-place) is an error unless it is one of
the known exceptions listed in the pass's options.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import ClassVar

import attrs

from schemac.diagnostics import DiagnosticSink, PassError, SchemacError
from schemac.ir.dispatch import COMPOSITE_EXPLICIT
from schemac.ir.frozen import FrozenMap
from schemac.ir.module import Module
from schemac.ir.names import BaseOperatorName, OperatorName
from schemac.ir.native import DeviceCheck, NativeFunction, Variant
from schemac.ir.resolved import Kernel, Resolution
from schemac.ir.schema import (
    Annotation,
    Argument,
    Arguments,
    FunctionSchema,
    Return,
    SchemaKind,
)
from schemac.ir.signature import signature, signature_arguments
from schemac.ir.slots import derive_source_key
from schemac.ir.types import TENSOR, BaseTy, Type, is_like
from schemac.passes.base import Pass, PassContext
from schemac.passes.families import bucket_by_signature
from schemac.passes.function_checks import any_of_base, first_span
from schemac.passes.resolve import default_kernel_name

#: Tags a synthesised function inherits from the function it is built from.
INHERITED_TAGS = ("nondeterministic_seeded", "view_copy", "pt2_compliant_tag")


def _names(*names: str) -> frozenset[str]:
    return frozenset(names)


@attrs.frozen
class GenerateVariants(Pass):
    name: ClassVar[str] = "autogen-variants"
    summary: ClassVar[str] = "synthesise the out= and functional variants that autogen: asks for"
    requires: ClassVar[tuple[str, ...]] = ("resolved-dispatch", "implicit-tags")
    provides: ClassVar[tuple[str, ...]] = ("generated-variants",)

    #: out= operators allowed to have no other variant (their functional twin
    #: exists under a signature that does not match).
    lone_out_ops: frozenset[str] = _names(
        "adaptive_avg_pool3d_backward.grad_input", "_slow_conv2d_backward.grad_input"
    )
    #: In-place operators whose family is left alone (schema does not group).
    ungroupable_inplace_ops: frozenset[str] = _names("polygamma_")
    #: Operators that cannot get an out= variant and are known not to need one
    #: (no Tensor-like return).
    no_out_variant_ops: frozenset[str] = _names(
        "_cummax_helper",
        "_cummin_helper",
        "_assert_async",
        "_assert_async.msg",
        "_assert_tensor_metadata",
        "_cslt_sparse_mm_search",
        "_assert_scalar",
        "_dimI",
        "_dimV",
        "_has_same_storage_numel",
        "_linalg_check_errors",
        "_local_scalar_dense",
        "_nested_tensor_from_mask_left_aligned",
        "_nnz",
        "_use_cudnn_ctc_loss",
        "_use_cudnn_ctc_loss.Tensor",
        "_use_miopen_ctc_loss",
        "_use_miopen_ctc_loss.Tensor",
        "_validate_compressed_sparse_indices",
        "allclose",
        "dense_dim",
        "equal",
        "is_coalesced",
        "is_pinned",
        "is_same_size",
        "is_set_to",
        "q_per_channel_axis",
        "q_scale",
        "q_zero_point",
        "qscheme",
        "record_stream",
        "sparse_dim",
        "sym_constrain_range",
        "sym_constrain_range_for_size",
        "_nested_tensor_storage_offsets",
        "_chunk_grad_outputs_efficient_attention",
        "_fused_sdp_choice",
        "_print",
        "_sink_tokens",
        "_nested_get_ragged_idx",
    )

    def run(self, ctx: PassContext, module: Module) -> Module:
        sink = DiagnosticSink()
        families = bucket_by_signature(module.functions, sink)
        sink.raise_if_any(PassError)
        new: list[tuple[NativeFunction, Resolution]] = []
        for members in families.values():
            self._complete_family(members, module, new, sink)
        sink.raise_if_any(PassError)
        if not new:
            return module
        index = _report_name_clashes(module, new, sink)
        sink.raise_if_any(PassError)
        functions = module.functions + tuple(f for f, _ in new)
        # The pairs as stored (items() would look every key up again).
        resolutions = FrozenMap(
            module.resolutions.items_ + tuple([(f.func.name, r) for f, r in new])
        )
        if index is None:
            return attrs.evolve(module, functions=functions, resolutions=resolutions)
        # The clash check indexed the new functions by name: later passes and
        # backends look functions up in that index instead of building it again.
        return module.evolve_indexed(index, functions=functions, resolutions=resolutions)

    def _complete_family(
        self,
        members: dict[SchemaKind, NativeFunction],
        module: Module,
        new: list[tuple[NativeFunction, Resolution]],
        sink: DiagnosticSink,
    ) -> None:
        fs = list(members.values())
        if _skipped_family(fs, module):
            return
        # Read by identity in one walk: every dict look-up would hash a
        # SchemaKind in Python (Enum.__hash__), five per family.
        out = inplace = mutable = functional = None
        for kind, f in members.items():
            if kind is SchemaKind.out:
                out = f
            elif kind is SchemaKind.inplace:
                inplace = f
            elif kind is SchemaKind.mutable:
                mutable = f
            elif kind is SchemaKind.functional:
                functional = f
        if out is not None and len(members) == 1:
            if str(out.name) not in self.lone_out_ops:
                sink.error(
                    out.span_of("func"),
                    f"out= operator '{out.name}' has no functional or in-place variant",
                    "add the functional operator it computes into",
                )
            return
        if inplace is not None and str(inplace.name) in self.ungroupable_inplace_ops:
            return

        source = mutable or inplace or out or functional or members[SchemaKind.functional]
        can_have_out = source.func.kind() is SchemaKind.inplace or any(
            _tensor_like(r.type) for r in source.func.returns
        )
        if out is None and not can_have_out and str(source.name) not in self.no_out_variant_ops:
            sink.error(
                source.span_of("func"),
                f"cannot synthesise an out= variant of '{source.name}': it returns no Tensor",
                "return a Tensor, or list the operator among the pass's known exceptions",
            )
        wants_out = any("out" in str(name) for name in source.autogen)
        if out is None and can_have_out and wants_out:
            schema = _build(out_variant_schema, source, "out=", sink)
            if schema is None:
                return
            synthesised = _synthesise(source, schema, module, "out=")
            new.append(synthesised)
            out = synthesised[0]
        if functional is None and out is not None:
            schema = _build(functional_variant_schema, source, "functional", sink)
            if schema is not None:
                new.append(_synthesise(source, schema, module, "functional"))


def _skipped_family(fs: list[NativeFunction], module: Module) -> bool:
    """Families that get no synthesised variants.

    All manually bound; or with a view (``set_`` aside); or implicit-only and
    not core.  Plain loops, cheapest tests first: every family is asked.
    """
    manual = True
    core = False
    for f in fs:
        if f.is_view_op and str(f.func.name.name) != "set_":
            return True
        manual = manual and f.manual_cpp_binding
        core = core or "core" in f.tags
    if manual:
        return True
    if core:
        return False
    resolutions = module.resolutions
    for f in fs:  # noqa: SIM110 - a plain loop: any() over a generator costs more
        if not resolutions[f.func.name].has_composite_implicit_autograd_kernel:
            return False
    return True


def _report_name_clashes(
    module: Module, new: list[tuple[NativeFunction, Resolution]], sink: DiagnosticSink
) -> dict[OperatorName, NativeFunction] | None:
    """A synthesised variant may not take the name of an operator outside its family.

    That happens when the written operator's signature differs from its
    siblings' (so it is not in their family): the pass would add a second
    operator of the same name, which no later stage can tell apart.

    Returns the new functions' name index (see :meth:`Module.evolve_indexed`)
    when the written names are unique, as the loader ensures; None otherwise.
    """
    taken = {f.func.name: f for f in module.functions}
    # Unique names: this last-wins index is also the module's first-wins one.
    unique = len(taken) == len(module.functions)
    for function, _ in new:
        clash = taken.setdefault(function.func.name, function)
        if clash is not function:
            sink.error(
                clash.span_of("func"),
                f"'{function.name}' is not in the family of its namesakes (its signature "
                f"differs), so the variant they need would be a second '{function.name}'",
                "give it the same arguments as its in-place/out= variants, or rename it",
            )
    return taken if unique else None


def _build(
    make: Callable[[FunctionSchema], FunctionSchema],
    source: NativeFunction,
    what: str,
    sink: DiagnosticSink,
) -> FunctionSchema | None:
    """The synthesised schema, or None after reporting why it is not a valid one."""
    try:
        schema = make(source.func)
    except SchemacError as error:
        reasons = "; ".join(d.message for d in error.diagnostics)
        sink.error(
            first_span(source, "autogen", "func"),
            f"cannot synthesise the {what} variant of '{source.name}': {reasons}",
            "write the variant in the file instead of listing it in 'autogen'",
        )
        return None
    # An input named like the out argument the variant adds ('float out=0.0').
    names = [a.name for a in schema.arguments.flat_all]
    if len(set(names)) == len(names):
        return schema  # the usual case, decided without counting each name
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        sink.error(
            first_span(source, "autogen", "func"),
            f"cannot synthesise the {what} variant of '{source.name}': it would have two "
            f"arguments named '{twice[0]}'",
            f"rename the argument '{twice[0]}' of '{source.name}'",
        )
        return None
    return schema


def is_view_op(f: NativeFunction) -> bool:
    """Whether ``f`` returns an alias of an input (or is an in-place view)."""
    return f.is_view_op


def _tensor_like(ty: Type) -> bool:
    return is_like(ty, BaseTy.Tensor)


def _out_overload(overload: str) -> str:
    return f"{overload}_out" if overload else "out"


def out_variant_schema(func: FunctionSchema) -> FunctionSchema:
    """The out= schema of an in-place, mutable or functional schema."""
    kind = func.kind()
    name = func.name.with_overload(_out_overload(func.name.overload))
    args = func.arguments
    if kind is SchemaKind.inplace:
        self_index = args.self_index
        assert self_index is not None  # an in-place schema always has a mutable self
        self_arg = args.positional[self_index]
        positional = list(args.positional)
        positional[self_index] = attrs.evolve(self_arg, annotation=None)
        out_arg = Argument("out", self_arg.type, annotation=self_arg.annotation)
        new_args = Arguments(tuple(positional), args.kwarg_only, (out_arg,))
        return FunctionSchema(name, new_args, func.returns)
    returns, outs = _outs_for_returns(func)
    base_args = args if kind is SchemaKind.mutable else signature_arguments(args)
    new_args = Arguments(base_args.positional, base_args.kwarg_only, outs)
    return FunctionSchema(name, new_args, returns)


def _outs_for_returns(func: FunctionSchema) -> tuple[tuple[Return, ...], tuple[Argument, ...]]:
    used = {
        alias for a in func.arguments.flat_all if a.annotation for alias in a.annotation.alias_set
    }
    fresh = [c for c in string.ascii_lowercase if c not in used]
    all_tensors = all(r.type == TENSOR for r in func.returns)
    single = len(func.returns) == 1
    returns: list[Return] = []
    outs: list[Argument] = []
    for i, ret in enumerate(func.returns):
        if not _tensor_like(ret.type):
            returns.append(ret)
            continue
        annotation = Annotation((fresh[i],), is_write=True)
        outs.append(Argument("out" if single else f"out{i}", ret.type, annotation=annotation))
        if all_tensors:
            returns.append(Return(None, ret.type, annotation))
    return tuple(returns), tuple(outs)


def functional_variant_schema(func: FunctionSchema) -> FunctionSchema:
    base = func.name.name
    name = OperatorName(
        BaseOperatorName(
            base.base,
            dunder=base.dunder,
            functional_overload=func.kind() is SchemaKind.mutable,
            namespace=base.namespace,
        ),
        func.name.overload,
    )
    return signature(func, keep_return_names=True).with_name(name)


#: Built once: a synthesised function is bound as a function only.
_FUNCTION_ONLY = frozenset({Variant.function})


def _synthesise(
    source: NativeFunction, func: FunctionSchema, module: Module, what: str
) -> tuple[NativeFunction, Resolution]:
    """The ``what`` variant (``out=``, ``functional``) of ``source``, whose schema is ``func``."""
    kernel = func.name.unambiguous_name if func.is_out_fn else default_kernel_name(func)
    if any_of_base(source.func.arguments.flat_non_out, BaseTy.SymInt):
        kernel += "_symint"
    tags = ["generated", *(t for t in source.tags if t in INHERITED_TAGS)]
    # The kind tags exist only where tags.yaml defines them (2.13 on); a
    # module without tags.yaml gets them (the torch it builds against has them).
    defined = {t.name for t in module.tags}
    if func.is_out_fn and (not defined or "out" in defined):
        tags.append("out")
    if func.name.name.inplace and (not defined or "inplace" in defined):
        tags.append("inplace")
    function = NativeFunction(
        func=func,
        namespace=source.namespace,
        span=source.span,
        variants=_FUNCTION_ONLY,
        device_guard=False,
        device_check=DeviceCheck.NoCheck,
        use_const_ref_for_mutable_tensors=source.use_const_ref_for_mutable_tensors,
        tags=tuple(dict.fromkeys(tags)),
        generated=True,
        field_spans=source.field_spans,
    )
    resolution = Resolution(
        FrozenMap(((COMPOSITE_EXPLICIT, Kernel(kernel)),)),
        is_abstract=module.resolutions[source.func.name].is_abstract,
    )
    # Note [Functions keyed by their source]: both are made from the source
    # function alone (its schema, tags, flags and resolution, which is itself
    # made from the function) and from what the run fixes (the tags tags.yaml
    # defines), so a keyed source keys them.
    derive_source_key(source, function, f"autogen {what}")
    derive_source_key(source, resolution, f"autogen {what} resolution")
    return function, resolution
