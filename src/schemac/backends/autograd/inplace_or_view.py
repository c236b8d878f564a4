"""ADInplaceOrViewType_<n>.cpp: version counters and view metadata.

The ADInplaceOrView key runs before the backend for every operator that
mutates its arguments (in-place and out=) or returns a view.  A mutating
kernel bumps the version counter of each mutated output after the
redispatch, so a SavedVariable holding the old value notices at backward
time.  A view kernel wraps the result with ``as_view`` so autograd knows its
base; when the view cannot be replayed with ``as_strided`` it also records a
:mod:`ViewFunc <.view_funcs>` (forward replay) and the functional inverse
(``FunctionalInverses::<op>_inverse``, reverse replay).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.autograd.calls import Redispatch, redispatch
from schemac.backends.autograd.kernel_shards import KernelFamily, kernel_shard_files
from schemac.backends.autograd.operators import OperatorPlan
from schemac.backends.autograd.view_funcs import view_func_name
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates
from schemac.ir.autograd import DEFAULT_AUTOGRAD_KEY
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType

NUM_SHARDS = 2

_LISTS_OF_SIZES = (ListType(BaseType(BaseTy.int)), ListType(BaseType(BaseTy.SymInt)))
KEYSET = "ks & c10::after_ADInplaceOrView_keyset"


@attrs.frozen
class InplaceOrViewKernel:
    name: str
    schema_name: str
    call: Redispatch
    namespace: str
    #: Mutated outputs whose version counters are bumped.
    bumped: tuple[str, ...] = ()
    #: For views: the base argument, else None.
    base: str | None = None
    multi_output: bool = False
    metadata_change: bool = False
    view_func: str | None = None
    view_func_args: str = ""
    #: Copies of by-reference arguments made before the reverse lambda captures them.
    materialize: tuple[str, ...] = ()
    inverse: str | None = None
    differentiable: bool = True


def _kernel(plan: OperatorPlan) -> InplaceOrViewKernel:
    fn = plan.fn
    name = plan.wrapper
    call = redispatch(plan, name, KEYSET)
    if plan.modifies_arguments:
        return InplaceOrViewKernel(
            name, plan.schema_name, call, fn.namespace, bumped=call.result_names
        )
    multi = isinstance(fn.func.returns[0].type, ListType)
    if not plan.differentiable_outputs(plan.info_for(DEFAULT_AUTOGRAD_KEY)):
        # Not differentiable (sparse .indices()): a view for aliasing only.
        return InplaceOrViewKernel(
            name, plan.schema_name, call, fn.namespace, base=plan.view_of, differentiable=False
        )
    rest = fn.func.arguments.flat_all[1:]
    args = [a.name for a in rest] + ["view_idx"] * multi
    # The reverse function is a lambda kept by the view: it captures by value,
    # so views into the caller's memory (IntArrayRef) are copied first.
    materialize = []
    captured = []
    for arg in rest:
        if arg.type in _LISTS_OF_SIZES:
            materialize.append(f"auto {arg.name}_vec = {arg.name}.vec();")
            captured.append(f"{arg.name}_vec")
        elif arg.type == OptionalType(BaseType(BaseTy.int)):
            materialize.append(f"auto {arg.name}_val = {arg.name}.value_or(0);")
            captured.append(f"{arg.name}_val")
        else:
            captured.append(arg.name)
    inverse_args = ["view_idx"] * multi + captured
    inverse = (
        f"at::functionalization::FunctionalInverses::{unambiguous_name(fn.func)}_inverse("
        f"{plan.view_of}, input_view, at::functionalization::InverseReturnMode::AlwaysView"
        f"{''.join(', ' + a for a in inverse_args)})"
    )
    return InplaceOrViewKernel(
        name,
        plan.schema_name,
        call,
        fn.namespace,
        base=plan.view_of,
        multi_output=multi,
        metadata_change=plan.cpp_name in plan.policy.view_functions_with_metadata_change,
        view_func=f"torch::autograd::generated::{view_func_name(fn)}",
        view_func_args=", ".join(args),
        materialize=tuple(materialize),
        inverse=inverse,
    )


def inplace_or_view_plans(plans: tuple[OperatorPlan, ...]) -> tuple[OperatorPlan, ...]:
    return tuple(p for p in plans if p.has_inplace_or_view_kernel)


INPLACE_OR_VIEW_FILES = KernelFamily(
    stem="ADInplaceOrViewType",
    shards=NUM_SHARDS,
    cpp_namespace="ADInplaceOrView",
    kernel_of=_kernel,
    kernels_template="_inplace_or_view_kernels.mako",
    file_template="ADInplaceOrViewType.cpp.mako",
)


def inplace_or_view_files(
    templates: Templates,
    plans: tuple[OperatorPlan, ...],
    sources: Provenance,
    directory: str,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile]:
    """``fragments``: where the kernels are printed (Note [Autograd pieces])."""
    chosen = inplace_or_view_plans(plans)
    return kernel_shard_files(
        INPLACE_OR_VIEW_FILES, templates, chosen, sources, directory, fragments
    )
