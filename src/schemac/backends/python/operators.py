"""The operators each binding file binds, with their signatures grouped and ordered.

This is the view every emitter consumes: for one :class:`BindingModule`, the
operator names it binds (sorted by name, as the files list them), and for each
name its :class:`OperatorBinding` - the raw (signature, function) pairs and
the merged, ordered parser entries.  Computed once per module per run.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from schemac.backends.aten.signatures.defaults import UnsupportedDefault
from schemac.backends.autograd.policy import reference_policy
from schemac.backends.python.deprecated import deprecated_signatures
from schemac.backends.python.errors import (
    ReservedArgumentName,
    UnbindableOverload,
    UnnamedField,
    UnsupportedPythonType,
)
from schemac.backends.python.overloads import OverloadGroup, SignedFunction, group_overloads
from schemac.backends.python.routing import (
    BINDING_MODULES,
    VARIABLE_METHODS,
    BindingModule,
    partition,
)
from schemac.backends.python.signatures import (
    ArgumentMaker,
    ArgumentMemo,
    cpp_function_name,
    python_arguments,
    python_signature,
)
from schemac.backends.python.skips import (
    GENERATED_TAG,
    STILL_BOUND_GENERATED_TAG,
    PythonSkips,
    reference_skips,
)
from schemac.diagnostics import Diagnostic, InputError
from schemac.ir.module import Module
from schemac.ir.names import BaseOperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.types import BaseTy, BaseType, is_like
from schemac.profiles import ReleaseProfile, reference_profile

#: Operators the tracer records through their parts, never as themselves; the
#: autograd backend's tracer kernels follow the same list.
#: (The list is the same in every profiled release, 2.11-2.15; the python
#: backend does not yet take the target's profile, see docs/releases.md.)
UNTRACED_OPERATORS = reference_policy().dont_record_trace


def is_bound(function: NativeFunction, skips: PythonSkips | None = None) -> bool:
    """Whether PyTorch generates a Python binding for this overload (see :mod:`.skips`).

    ``skips``: the target release's rules (the reference release's by default).
    """
    skips = reference_skips() if skips is None else skips
    tags = function.tags
    if (function.generated or GENERATED_TAG in tags) and STILL_BOUND_GENERATED_TAG not in tags:
        return False
    if skips.is_skipped_name(cpp_function_name(function.func)):
        return False
    if str(function.func.name) not in skips.skipped_schema_names:
        return True
    return str(function.func) not in skips.skipped_schemas


def is_traceable(function: NativeFunction) -> bool:
    """Whether the JIT tracer can record a call (it cannot record Storage or non-Tensor results)."""
    func = function.func
    if func.name.name.base in UNTRACED_OPERATORS:
        return False
    # A tensor-like result (Tensor, Tensor?, Tensor[]: spelled starting with "Tensor").
    for ret in func.returns:
        if is_like(ret.type, BaseTy.Tensor):
            break
    else:
        return False
    # A Storage argument prints "Storage" in the schema's text (printed once
    # per schema and kept): one substring test spares nearly every schema the
    # walk over its arguments.
    if "Storage" not in str(func):
        return True
    for arg in func.arguments.flat_all:
        ty = arg.type
        # Same as ``ty == BaseType(BaseTy.Storage)``, without attrs' field-by-field __eq__.
        if isinstance(ty, BaseType) and ty.name is BaseTy.Storage:
            return False
    return True


@attrs.frozen
class OperatorBinding:
    """Everything one ``THPVariable_<name>`` function binds."""

    name: BaseOperatorName
    module: BindingModule
    overloads: tuple[SignedFunction, ...]
    groups: tuple[OverloadGroup, ...]

    # The binding's view, its method-table entry and its forward declaration
    # each spell the name, so it is spelled when the binding is made (slots,
    # not computed-once attributes: a key added to an instance dict after
    # ``__init__`` costs the dict a table of its own, see autograd's OperatorPlan).
    #: ``add``, ``__iand__``: the name Python calls.
    python_name: str = attrs.field(init=False, eq=False, repr=False)
    cpp_name: str = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        name = str(self.name)
        object.__setattr__(self, "python_name", name)
        object.__setattr__(self, "cpp_name", f"THPVariable_{name}")

    @property
    def takes_no_arguments(self) -> bool:
        return len(self.overloads) == 1 and self.overloads[0].signature.arguments_count == 0

    @property
    def max_arguments(self) -> int:
        return max(o.signature.arguments_count for o in self.overloads)

    @property
    def traceable(self) -> bool:
        return all(is_traceable(o.function) for o in self.overloads)


@attrs.frozen
class PythonBindings:
    """All bindings of a module, per output file."""

    methods: tuple[OperatorBinding, ...]
    per_module: tuple[tuple[BindingModule, tuple[OperatorBinding, ...]], ...]
    #: Every function-side (signature, function) pair, for return types.
    function_pairs: tuple[SignedFunction, ...]
    #: The parser arguments the signatures share (this compile's only).
    arguments: ArgumentMemo = attrs.field(factory=ArgumentMemo, eq=False)
    #: The target release spells the torch-function test of argument-less
    #: methods ``has_torch_function`` (profile feature ``python_method_has_torch_function``).
    method_has_torch_function: bool = True
    #: ... and its factory methods test ``tensor_has_dispatch``
    #: (``python_factory_method_checks_dispatch``).
    factory_methods_check_dispatch: bool = True

    def for_module(self, module: BindingModule) -> tuple[OperatorBinding, ...]:
        for candidate, bindings in self.per_module:
            if candidate == module:
                return bindings
        return ()


#: Errors the signature views raise for schemas Python cannot express.
SIGNATURE_ERRORS = (
    UnsupportedPythonType,
    ReservedArgumentName,
    UnnamedField,
    UnbindableOverload,
    UnsupportedDefault,
)


#: What to suggest for each kind of unbindable operator.
_HINTS: dict[type[Exception], str] = {
    UnsupportedPythonType: "PythonArgParser has no form for this type; change the argument type",
    ReservedArgumentName: "Python adds requires_grad itself; rename the argument",
    UnnamedField: "name every return or none of them (a named tuple needs all names)",
    UnbindableOverload: (
        "Python bindings can return Tensor, a tuple of Tensors, Tensor[], Scalar, bool, "
        "int, float, ScalarType, QScheme, Stream or int[]; change the schema"
    ),
    UnsupportedDefault: "write a list default as a list, e.g. [0]",
}


def as_diagnostic(function: NativeFunction, error: Exception) -> Diagnostic:
    return Diagnostic(
        function.span,
        f"cannot generate a Python binding for '{function.func.name}': {error}",
        _HINTS.get(type(error)),
    )


def signed_functions(
    functions: Sequence[NativeFunction], make_arguments: ArgumentMaker = python_arguments
) -> list[SignedFunction]:
    """Each function with its (function-side) Python signature."""
    pairs: list[SignedFunction] = []
    problems: list[Diagnostic] = []
    for f in functions:
        try:
            sig = python_signature(
                f.func,
                category_override=f.category_override,
                method=False,
                make_arguments=make_arguments,
            )
            sig.text()  # spells every parameter: unsupported types fail here, at their entry
        except SIGNATURE_ERRORS as error:
            problems.append(as_diagnostic(f, error))
            continue
        pairs.append(SignedFunction(sig, f))
    if problems:
        raise InputError(problems)
    return pairs


def operator_bindings(
    pairs: Sequence[SignedFunction],
    target: BindingModule,
    everywhere: Sequence[NativeFunction] = (),
    *,
    pruned: bool = False,
) -> tuple[OperatorBinding, ...]:
    """The bindings of ``target``, from the ``pairs`` it binds (see routing.partition)."""
    by_name: dict[BaseOperatorName, list[SignedFunction]] = {}
    for pair in pairs:
        by_name.setdefault(pair.function.func.name.name, []).append(pair)
    bindings = []
    for name, items in sorted(by_name.items(), key=lambda item: str(item[0])):
        groups = tuple(group_overloads(items, everywhere, pruned=pruned))
        if not groups:
            continue  # only unselected-twin out= overloads were left (selective build)
        kept = tuple(items)
        if pruned:
            # Only the overloads that made it into a group are bound.
            used = {id(g.base) for g in groups} | {id(g.out) for g in groups if g.out}
            kept = tuple(item for item in items if id(item.function) in used)
        bindings.append(OperatorBinding(name, target, kept, groups))
    return tuple(bindings)


def _function_of(pair: SignedFunction) -> NativeFunction:
    return pair.function


def python_bindings(module: Module, profile: ReleaseProfile | None = None) -> PythonBindings:
    """``profile``: the target release's (the reference release's by default)."""
    release = reference_profile() if profile is None else profile
    skips = PythonSkips.of(release)
    bound = [f for f in module.functions if is_bound(f, skips)]
    arguments = ArgumentMemo()  # this compile's only
    plain = signed_functions(bound, arguments)
    # A selective build may drop the overload a deprecated signature calls.
    pruned = module.selection is not None
    function_pairs = plain + deprecated_signatures(
        module.deprecated, plain, method=False, pruned=pruned, make_arguments=arguments
    )
    # A method's signature is the function's without self; only methods need it.
    method_pairs = [
        SignedFunction(p.signature.as_method(), p.function)
        for p in plain
        if VARIABLE_METHODS.binds(p.function)
    ]
    method_pairs += deprecated_signatures(
        module.deprecated, plain, method=True, pruned=pruned, make_arguments=arguments
    )
    method_targets = [t for t in BINDING_MODULES if t.method]
    function_targets = [t for t in BINDING_MODULES if not t.method]
    routed = dict(
        zip(
            [*method_targets, *function_targets],
            [
                *partition(method_pairs, _function_of, method_targets),
                *partition(function_pairs, _function_of, function_targets),
            ],
            strict=True,
        )
    )
    per_module = tuple(
        (target, operator_bindings(routed[target], target, bound, pruned=pruned))
        for target in BINDING_MODULES
    )
    methods = dict(per_module)[BINDING_MODULES[0]]
    return PythonBindings(
        methods,
        per_module,
        tuple(function_pairs),
        arguments,
        method_has_torch_function=release.has("python_method_has_torch_function"),
        factory_methods_check_dispatch=release.has("python_factory_method_checks_dispatch"),
    )
