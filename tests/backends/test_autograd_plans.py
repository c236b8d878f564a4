"""The autograd backend's operator plans agree with the signatures they shortcut.

operator_plans spells each kernel's parameters from a per-compile memo keyed
by (schema type, written to) rather than building the dispatcher signature,
and fills the names every kernel family asks for eagerly.  Over all of
torch's operators, both must equal what the general-purpose code gives; so
must the kernel families' sharding, which hashes each root name once.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schemac.backends.aten.signatures.dispatcher import dispatcher_signature
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.autograd.kernel_shards import _by_root_shard
from schemac.backends.autograd.operators import operator_plans, return_names
from schemac.backends.output.sharding import sharded
from schemac.ir.module import Module
from schemac.ir.schema import SchemaKind


def test_plan_parameters_are_the_dispatcher_signatures(schemac_module: Module) -> None:
    plans = operator_plans(schemac_module)
    assert len(plans) == len(schemac_module.functions)
    for plan in plans:
        signature = dispatcher_signature(plan.fn)
        assert plan.param_defns == tuple(p.defn() for p in signature.params), plan.schema_name
        assert plan.kernel_returns == str(signature.returns), plan.schema_name
        assert plan.kernel_params == ", ".join(
            ["c10::DispatchKeySet ks", *(p.defn() for p in signature.params)]
        )


def test_plan_names_are_the_schemas(schemac_module: Module) -> None:
    for plan in operator_plans(schemac_module):
        func = plan.fn.func
        assert plan.base == plan.root_name == func.name.name.base
        assert plan.param_names == tuple(a.name for a in func.arguments.flat_all)
        assert plan.result_names == return_names(func)
        assert plan.ops_name == f"at::_ops::{unambiguous_name(func)}"
        assert plan.modifies_arguments == (plan.kind in (SchemaKind.inplace, SchemaKind.out))


@settings(max_examples=60, deadline=None)
@given(picks=st.lists(st.integers(min_value=0, max_value=10_000)), shards=st.integers(1, 12))
def test_shards_by_root_are_the_generic_sharding(
    schemac_module: Module, picks: list[int], shards: int
) -> None:
    plans = operator_plans(schemac_module)
    chosen = tuple(plans[i % len(plans)] for i in picks)
    expected = sharded(chosen, lambda p: p.root_name, shards)
    assert _by_root_shard(chosen, shards) == expected


def test_shards_by_root_of_all_plans(schemac_module: Module) -> None:
    plans = operator_plans(schemac_module)
    assert _by_root_shard(plans, 10) == sharded(plans, lambda p: p.root_name, 10)
