"""The operators each binding file binds, with their signatures grouped and ordered.

This is the view every emitter consumes: for one :class:`BindingModule`, the
operator names it binds (sorted by name, as the files list them), and for each
name its :class:`OperatorBinding` - the raw (signature, function) pairs and
the merged, ordered parser entries.

Note [Binding sources]
~~~~~~~~~~~~~~~~~~~~~~
An :class:`OperatorBinding` is made in two steps.  :func:`binding_sources`
decides, for the whole module, which overloads each binding binds: the bound
overloads of one name that one file binds, in the module's order, and the
deprecated.yaml entries matched to them (a :class:`BindingSource`).  That
takes no Python signature: whether an overload is bound, where it is routed,
its name and which overload a deprecated entry calls are read off the IR.
:func:`operator_binding` then makes the binding from its source alone: the
signatures (a pure function of each overload and of the file being a method
table, :class:`Signatures`), the deprecated signatures, the grouping and the
ordering.  So a binding, and every text printed from it, is a function of its
source and of the release: the source is what the binding files key a bucket
of bindings by (Note [Fragment buckets]), and the signatures are only made for
the buckets an edit changed.  Errors follow the same rule: whether a source's
signatures, grouping or view fail depends on the source only (the module-wide
list of bound overloads only words the hint of a missing out= twin), so a
bucket rendered before without error renders again without error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attrs

from schemac.backends.aten.signatures.defaults import UnsupportedDefault
from schemac.backends.autograd.policy import reference_policy
from schemac.backends.python.deprecated import (
    DeprecatedUse,
    deprecated_signature,
    deprecated_uses,
)
from schemac.backends.python.errors import (
    ReservedArgumentName,
    UnbindableOverload,
    UnnamedField,
    UnsupportedPythonType,
)
from schemac.backends.python.overloads import OverloadGroup, SignedFunction, group_overloads
from schemac.backends.python.routing import (
    BINDING_MODULES,
    BindingModule,
    partition,
)
from schemac.backends.python.signatures import (
    ArgumentMemo,
    PythonSignature,
    cpp_function_name,
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


class Signatures:
    """The function-side Python signature of each overload, made once per compile.

    A pure function of the overload (its schema and ``category_override``):
    an overload bound both as ``torch.<name>`` and as ``Tensor.<name>`` is
    signed once.  Keyed by the overload's identity; each entry keeps its
    overload alive, so that an identity is not reused while the memo lives.
    """

    def __init__(self, arguments: ArgumentMemo | None = None) -> None:
        #: The parser arguments the signatures share (this compile's only).
        self.arguments = ArgumentMemo() if arguments is None else arguments
        self._made: dict[int, tuple[NativeFunction, PythonSignature]] = {}

    def signed(self, functions: Sequence[NativeFunction]) -> list[SignedFunction]:
        """Each of ``functions`` with its signature; an overload Python cannot
        express is an input error (every such overload of ``functions`` at once)."""
        made = self._made
        pairs: list[SignedFunction] = []
        problems: list[Diagnostic] = []
        for f in functions:
            hit = made.get(id(f))
            if hit is not None:
                pairs.append(SignedFunction(hit[1], f))
                continue
            try:
                sig = python_signature(
                    f.func,
                    category_override=f.category_override,
                    method=False,
                    make_arguments=self.arguments,
                )
                sig.text()  # spells every parameter: unsupported types fail here, at their entry
            except SIGNATURE_ERRORS as error:
                problems.append(as_diagnostic(f, error))
                continue
            made[id(f)] = (f, sig)
            pairs.append(SignedFunction(sig, f))
        if problems:
            raise InputError(problems)
        return pairs


@attrs.frozen
class BindingSource:
    """What one ``THPVariable_<name>`` function is made from (Note [Binding sources])."""

    name: BaseOperatorName
    module: BindingModule
    #: The bound overloads of ``name`` that ``module`` binds, in the module's order.
    functions: tuple[NativeFunction, ...]
    #: The deprecated.yaml entries calling them, in entry order.
    deprecated: tuple[DeprecatedUse, ...] = ()
    #: A selective build (out= overloads without their twin are left unbound).
    pruned: bool = False
    #: ``str(name)``: the name Python calls, which the bucket is chosen by.
    python_name: str = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "python_name", str(self.name))

    @property
    def overload_functions(self) -> tuple[NativeFunction, ...]:
        """The overload of each of the binding's Python signatures: its functions,
        then each deprecated entry's."""
        if not self.deprecated:
            return self.functions
        return self.functions + tuple(use.function for use in self.deprecated)

    def facts_asked(self) -> Iterator[NativeFunction]:
        """The functions whose dispatch facts rendering the binding asks for, one per ask
        (:func:`~schemac.backends.python.bindings.binding_facts_asked`): each of
        :attr:`overload_functions` :data:`FACT_ASKS` times, once as an overload
        and once as the base or out= twin of its parser entry (a selective
        build may leave one unbound, which only keeps its facts longer)."""
        for function in self.overload_functions:
            for _ in range(FACT_ASKS):
                yield function


#: How many times rendering a binding asks for the dispatch facts of each of
#: its overloads (:meth:`BindingSource.facts_asked`).
FACT_ASKS = 2


@attrs.frozen
class PythonBindingSources:
    """Every binding's source, per output file (Note [Binding sources])."""

    per_module: tuple[tuple[BindingModule, tuple[BindingSource, ...]], ...]
    #: Every bound overload, in the module's order.
    bound: tuple[NativeFunction, ...]
    #: deprecated.yaml's entries with the overloads they call, in entry order.
    deprecated: tuple[DeprecatedUse, ...]
    #: The target release spells the torch-function test of argument-less
    #: methods ``has_torch_function`` (profile feature ``python_method_has_torch_function``).
    method_has_torch_function: bool = True
    #: ... and its factory methods test ``tensor_has_dispatch``
    #: (``python_factory_method_checks_dispatch``).
    factory_methods_check_dispatch: bool = True

    def for_module(self, module: BindingModule) -> tuple[BindingSource, ...]:
        for candidate, sources in self.per_module:
            if candidate == module:
                return sources
        return ()

    @property
    def function_side(self) -> tuple[NativeFunction, ...]:
        """The overload of every function-side signature: each bound overload, then
        each deprecated entry's (what torch.return_types is made from)."""
        return self.bound + tuple(use.function for use in self.deprecated)


def _by_name(functions: Sequence[NativeFunction]) -> dict[str, list[NativeFunction]]:
    # Keyed by the name's text, which sorts the bindings as the files list
    # them (and hashes in C, where a BaseOperatorName's attrs hash is a call).
    by_name: dict[str, list[NativeFunction]] = {}
    for function in functions:
        by_name.setdefault(str(function.func.name.name), []).append(function)
    return by_name


def _function_of_use(use: DeprecatedUse) -> NativeFunction:
    return use.function


def _itself(function: NativeFunction) -> NativeFunction:
    return function


def binding_sources(module: Module, profile: ReleaseProfile | None = None) -> PythonBindingSources:
    """``profile``: the target release's (the reference release's by default).

    An unmatched deprecated.yaml entry is an input error here; an overload
    Python cannot express is one when its binding is made.
    """
    release = reference_profile() if profile is None else profile
    skips = PythonSkips.of(release)
    bound = tuple(f for f in module.functions if is_bound(f, skips))
    # A selective build may drop the overload a deprecated signature calls.
    pruned = module.selection is not None
    uses = tuple(deprecated_uses(module.deprecated, bound, pruned=pruned))
    # A deprecated entry is bound wherever the overload it calls is: the
    # method form in Tensor's table, the function form in torch's or a submodule's.
    routed = partition(bound, _itself, BINDING_MODULES)
    routed_uses = partition(uses, _function_of_use, BINDING_MODULES)
    per_module = []
    for target, functions, target_uses in zip(BINDING_MODULES, routed, routed_uses, strict=True):
        uses_by_name: dict[str, list[DeprecatedUse]] = {}
        for use in target_uses:
            uses_by_name.setdefault(str(use.function.func.name.name), []).append(use)
        sources = tuple(
            BindingSource(
                items[0].func.name.name,
                target,
                tuple(items),
                tuple(uses_by_name.get(name, ())),
                pruned,
            )
            for name, items in sorted(_by_name(functions).items())
        )
        per_module.append((target, sources))
    return PythonBindingSources(
        tuple(per_module),
        bound,
        uses,
        method_has_torch_function=release.has("python_method_has_torch_function"),
        factory_methods_check_dispatch=release.has("python_factory_method_checks_dispatch"),
    )


def operator_binding(
    source: BindingSource,
    signatures: Signatures,
    everywhere: Sequence[NativeFunction] = (),
) -> OperatorBinding | None:
    """The binding made from ``source`` (Note [Binding sources]); None when a
    selective build left none of its overloads bindable.

    ``everywhere`` (all bound functions) only words the hint of a missing-twin error.
    """
    method = source.module.method
    pairs = signatures.signed(source.functions)
    if method:
        # A method's signature is the function's without self.
        pairs = [SignedFunction(p.signature.as_method(), p.function) for p in pairs]
    pairs += [
        deprecated_signature(use, method=method, make_arguments=signatures.arguments)
        for use in source.deprecated
    ]
    groups = tuple(group_overloads(pairs, everywhere, pruned=source.pruned))
    if not groups:
        return None  # only unselected-twin out= overloads were left (selective build)
    kept = tuple(pairs)
    if source.pruned:
        # Only the overloads that made it into a group are bound.
        used = {id(g.base) for g in groups} | {id(g.out) for g in groups if g.out}
        kept = tuple(item for item in pairs if id(item.function) in used)
    return OperatorBinding(source.name, source.module, kept, groups)


def python_bindings(module: Module, profile: ReleaseProfile | None = None) -> PythonBindings:
    """Every binding of ``module``, made at once (the binding files make only
    those of the buckets an edit changed: Note [Binding sources]).

    ``profile``: the target release's (the reference release's by default).
    """
    sources = binding_sources(module, profile)
    signatures = Signatures()
    # Every overload Python cannot express is reported at once.
    plain = signatures.signed(sources.bound)
    per_module = tuple(
        (
            target,
            tuple(
                binding
                for binding in (
                    operator_binding(source, signatures, sources.bound) for source in items
                )
                if binding is not None
            ),
        )
        for target, items in sources.per_module
    )
    function_pairs = plain + [
        deprecated_signature(use, method=False, make_arguments=signatures.arguments)
        for use in sources.deprecated
    ]
    return PythonBindings(
        per_module[0][1],
        per_module,
        tuple(function_pairs),
        signatures.arguments,
        method_has_torch_function=sources.method_has_torch_function,
        factory_methods_check_dispatch=sources.factory_methods_check_dispatch,
    )
