"""From parsed Python arguments to one C++ call: the body of one ``case``.

Each parser entry ends in a call of a C++ lambda that releases the GIL and
calls the ATen overload (Note [Dispatch lambdas]): its parameters follow the
C++ API signature of the overload (out arguments first, TensorOptions packed
into ``options``), except that

* a method's ``self`` is always ``const at::Tensor &`` (the Python object
  already holds the tensor);
* mutable tensors are taken *by value* (``at::Tensor``) - the arguments are
  temporaries from ``_r.tensor(i)``, which a non-const reference cannot bind;
  only the unpacked elements of a multi-tensor ``out`` stay references;
* the return type drops references for the same reason.

:func:`dispatch_call` computes this once per (signature, overload) as a
:class:`DispatchCall` view that the binding template prints.  The C++ types
come from the ATen backend's C++ API view, so both backends agree on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import attrs

from schemac.backends.aten.signatures import cxx_types
from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.aten.signatures.cpp_api import has_symint
from schemac.backends.aten.signatures.naming import cpp_name
from schemac.backends.aten.signatures.type_map import argument_type, returns_type
from schemac.backends.python.arguments import PythonArgument
from schemac.backends.python.errors import UnbindableOverload
from schemac.backends.python.operators import is_traceable
from schemac.backends.python.return_types import structseq_key
from schemac.backends.python.signatures import ArgumentMemo, PythonSignature
from schemac.backends.python.unpack import accessor_of
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.schema import Argument, FunctionSchema, Return, SchemaKind
from schemac.ir.types import Type

#: C++ result types ``torch::autograd::utils::wrap`` can convert to Python
#: (torch/csrc/autograd/utils/wrap_outputs.h); anything else would not compile.
WRAPPABLE_RETURNS = frozenset(
    {
        "at::Tensor",
        "::std::tuple<at::Tensor,at::Tensor>",
        "::std::tuple<at::Tensor,at::Tensor,at::Tensor>",
        "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor>",
        "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,at::Tensor>",
        "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,at::Tensor,at::Tensor>",
        "::std::tuple<at::Tensor,at::Tensor,at::Tensor,int64_t>",
        "::std::tuple<at::Tensor,at::Tensor,double,int64_t>",
        "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,int64_t>",
        "::std::tuple<at::Tensor,at::Tensor,double,at::Tensor,int64_t>",
        "::std::tuple<double,int64_t>",
        "::std::tuple<at::Tensor,::std::vector<at::Tensor>>",
        "::std::vector<at::Tensor>",
        "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,c10::SymInt,c10::SymInt,"
        "at::Tensor,at::Tensor,at::Tensor>",
        "at::Scalar",
        "bool",
        "int64_t",
        "void*",
        "void",
        "at::QScheme",
        "double",
        "at::IntArrayRef",
        "at::ScalarType",
        "at::Stream",
    }
)

_OPTIONS_TYPE = str(cxx_types.TENSOR_OPTIONS)

#: The scattered TensorOptions fields and the parser type each must have.
OPTIONS_FIELDS: dict[str, str] = {
    "dtype": "ScalarType?",
    "device": "Device?",
    "layout": "Layout?",
    "pin_memory": "bool?",
    "requires_grad": "bool?",
}


@attrs.frozen
class OptionsInit:
    """``const auto options = TensorOptions().dtype(...)...;`` and the device init."""

    dtype: str
    device: str
    layout: str
    requires_grad: str
    pin_memory: str
    #: Methods skip device initialisation for tensors that never dispatch
    #: (where the release declares the test: ``python_factory_method_checks_dispatch``).
    method: bool
    checks_dispatch: bool = True


@attrs.frozen
class OutTypeCheck:
    """``check_out_type_matches(out, dtype, ...)`` for an out= factory."""

    out: str
    dtype: str
    dtype_is_none: str
    layout: str
    device: str
    device_is_none: str


# A named tuple, not a frozen attrs class: ~2,800 per compile, and a tuple is
# built in one call where a frozen instance sets each of its 13 fields in turn.
class DispatchCall(NamedTuple):
    """Everything case_body.py prints for one overload's C++ call."""

    schema_comment: str
    #: ``auto name = expr;`` lines that must run before the call.
    locals: tuple[tuple[str, str], ...]
    options: OptionsInit | None
    out_check: OutTypeCheck | None
    lambda_name: str
    lambda_params: str
    lambda_return: str
    callee: str
    callee_args: str
    lambda_args: str
    #: ``.set_requires_grad(...)`` on the result, or empty.
    result_suffix: str
    #: ``NamedTuple, `` when the result is a named tuple, else empty.
    structseq_prefix: str
    #: In-place ``_foreach_*`` ops return their (list) first argument.
    returns_first_argument: bool = False

    @property
    def gap_before_lambda(self) -> bool:
        # Layout only: a blank line separates the lambda from multi-line inits.
        return not self.locals or self.options is not None or self.out_check is not None

    @property
    def returns_void(self) -> bool:
        return self.lambda_return == "void"


class CallMemo:
    """C++ spellings that many overloads share, made once per compile.

    torch's ~2,800 dispatch lambdas take ~9,000 parameters of ~1,000
    distinct schema arguments, return one of ~100 distinct return lists and
    read arguments through a few hundred distinct parser arguments.  Each
    entry is a pure function of its key (IR values and the
    :class:`PythonArgument` views made from them), so sharing them changes
    nothing but speed.  One memo lives for one compile (emit.py makes it).
    """

    def __init__(
        self, arguments: ArgumentMemo | None = None, *, factory_methods_check_dispatch: bool = True
    ) -> None:
        #: The release's ``python_factory_method_checks_dispatch``.
        self.factory_methods_check_dispatch = factory_methods_check_dispatch
        #: The compile's parser arguments (python_bindings made them): a schema
        #: argument's C++ type is memoised under the identity of its parser
        #: argument, which stands for its value.
        self.arguments = ArgumentMemo() if arguments is None else arguments
        self._param_types: dict[Conventions, dict[int, tuple[str, str]]] = {}
        self._return_types: dict[tuple[tuple[tuple[str | None, Type], ...], Conventions], str] = {}
        # By identity: parser arguments are shared through signatures.ArgumentMemo,
        # and their attrs __hash__ is a Python-level call.  Each entry keeps its
        # argument alive, so an identity cannot be reused within the memo.
        self._accessors: dict[int, tuple[PythonArgument, str, str]] = {}
        # By identity too: a merged out= entry's two calls share its signature.
        # Only the calls of one binding share a signature (the method and
        # function forms are different signatures), so this memo is emptied
        # after each binding (:meth:`binding_done`): kept for the whole
        # compile it was ~1 MiB of -t python's peak.
        self._parsed: dict[int, dict[str, str]] = {}
        self._parsed_pins: list[PythonSignature] = []
        # One instance per distinct value (there are at most four), so the
        # memos keyed on conventions find them by identity, not attrs __eq__.
        self._conventions: dict[tuple[bool, bool, bool], Conventions] = {}
        # Keyed by the function's identity (a function bound both as torch.*
        # and as a Tensor method is asked twice).
        self._facts: dict[int, _FunctionFacts] = {}
        #: Asks of :meth:`facts` still to come, by function identity (:meth:`expect`).
        self._asks: dict[int, int] = {}
        # What ``_parsed`` and ``_facts`` are keyed on, kept alive so that an
        # identity cannot be reused within the memo (one list slot each, not a
        # pair per entry: ~7,000 on torch's files).
        self._pinned: list[object] = []

    def conventions(self, function: NativeFunction) -> Conventions:
        # Keyed by the fields Conventions.of reads: building and hashing a
        # Conventions per function (attrs' Python-level __hash__) cost more.
        key = (
            function.use_const_ref_for_mutable_tensors,
            function.structured,
            function.structured_delegate is None,
        )
        conv = self._conventions.get(key)
        if conv is None:
            conv = self._conventions[key] = Conventions.of(function)
        return conv

    def expect(self, functions: Iterable[NativeFunction], times: int = 1) -> None:
        """Count the :meth:`facts` asks to come for each of ``functions`` (``times``
        per occurrence): an entry is let go after its last ask.  Kept for the
        whole compile, the facts were ~1 MiB of -t python's peak, though most
        functions are asked twice at most (their Tensor method's binding and
        their function's).  A count off only costs memory or a recomputation."""
        asks = self._asks
        for function in functions:
            asks[id(function)] = asks.get(id(function), 0) + times

    def facts(self, function: NativeFunction) -> _FunctionFacts:
        key = id(function)
        hit = self._facts.get(key)
        if hit is None:
            hit = _function_facts(function, self)
            left = self._asks.get(key, 0) - 1
            if left == 0:
                del self._asks[key]  # the only ask: nothing to keep
                return hit
            self._facts[key] = hit
            self._pinned.append(function)
            if left > 0:
                self._asks[key] = left
            return hit
        remaining = self._asks.get(key)
        if remaining is not None:
            if remaining <= 1:
                del self._facts[key], self._asks[key]
            else:
                self._asks[key] = remaining - 1
        return hit

    def param_types(self, conv: Conventions) -> dict[int, tuple[str, str]]:
        """The C++ API types (``cpp_signature(symint=True)``) spelled so far under ``conv``.

        Keyed by the identity of the argument's PythonArgument (see
        ``arguments``), which stands for its value; each entry is the type and
        the lambda's usual declaration of the argument (``at::Tensor self``).
        """
        types = self._param_types.get(conv)
        if types is None:
            types = self._param_types[conv] = {}
        return types

    def return_type(self, function: NativeFunction, conv: Conventions) -> str:
        # The lambda's return type reads only the returns' names and types.
        # Keyed by those (types are shared objects whose hashes are kept),
        # not by the Return objects: hashing each one the first time is a
        # Python-level call that also allocates the cached hash (~3,000 per
        # compile).
        key = (tuple([(r.name, r.type) for r in function.func.returns]), conv)
        text = self._return_types.get(key)
        if text is None:
            text = self._return_types[key] = _lambda_return(function, conv)
        return text

    def parsed(self, sig: PythonSignature) -> dict[str, str]:
        """Each parser argument's :func:`parsed_expression`, by name.

        The accessor is looked up once per parser argument, the expressions
        once per signature.
        """
        hit = self._parsed.get(id(sig))
        if hit is not None:
            return hit
        accessors = self._accessors
        parsed = {}
        for index, arg in enumerate(sig.arguments()):
            parts = accessors.get(id(arg))
            if parts is None:
                extra = f", {arg.default_init}" if arg.default_init is not None else ""
                parts = accessors[id(arg)] = (arg, f"_r.{accessor_of(arg)}(", f"{extra})")
            parsed[arg.name] = f"{parts[1]}{index}{parts[2]}"
        self._parsed[id(sig)] = parsed
        self._parsed_pins.append(sig)
        return parsed

    def binding_done(self) -> None:
        """Forget :meth:`parsed`'s signatures: no later binding asks for them."""
        self._parsed.clear()
        self._parsed_pins.clear()


# A named tuple for the same reason as DispatchCall (~2,300 per compile).
class _FunctionFacts(NamedTuple):
    """What a dispatch call needs from its overload alone, whatever the signature."""

    cpp_name: str
    conventions: Conventions
    #: ``// aten::<schema>`` (deprecated signatures print their own schema).
    comment: str
    returns: str
    #: In-place ``_foreach_*`` ops return their (list) first argument.
    returns_first_argument: bool
    callee: str
    #: Whether the overload has a method variant (the callee is ``self.<name>``).
    method_variant: bool
    #: :func:`~schemac.backends.python.operators.is_traceable`.
    traceable: bool


def _function_facts(function: NativeFunction, memo: CallMemo) -> _FunctionFacts:
    schema = function.func
    # Printed here for the comment; the callee and traceability tests read it too.
    text = str(schema)
    conv = memo.conventions(function)
    returns = memo.return_type(function, conv)
    returns_first = (
        returns == "void"
        and str(schema.name).startswith("_foreach_")
        and schema.kind() is SchemaKind.inplace
    )
    name = cpp_name(schema)
    # Asked once: variants is a frozenset of enum members, whose hash is a Python call.
    method_variant = Variant.method in function.variants
    return _FunctionFacts(
        cpp_name=name,
        conventions=conv,
        comment=f"// aten::{text}",
        returns=returns,
        returns_first_argument=returns_first,
        callee=_callee(function, name, method_variant),
        method_variant=method_variant,
        traceable=is_traceable(function),
    )


def takes_symint(schema: FunctionSchema) -> bool:
    """:func:`~schemac.backends.aten.signatures.cpp_api.has_symint`, quicker on most schemas.

    A SymInt argument prints ``SymInt`` in the schema's text, which is printed
    once per schema and kept: one substring test rules out nearly every
    schema without visiting its arguments' types.
    """
    return "SymInt" in str(schema) and has_symint(schema)


def _lambda_params(
    sig: PythonSignature, function: NativeFunction, conv: Conventions, memo: CallMemo
) -> tuple[list[str], list[str]]:
    """The dispatch lambda's parameters: their ``type name`` declarations, and their names."""
    schema = sig.deprecated.schema if sig.deprecated is not None else function.func
    args = schema.arguments
    # The parameters of the overload's plain C++ API signature (cpp_api's
    # non-faithful order): out arguments first, then the others in schema
    # order with the TensorOptions quartet packed into one ``options``.
    # Their defaults do not matter here, so the full signature view (which
    # spells every default) is not built.
    ordered: list[Argument | None] = [*args.out, *args.positional]
    if args.tensor_options is None:
        ordered.extend(args.kwarg_only)
    else:
        ordered.extend(args.pre_tensor_options_kwarg_only)
        ordered.append(None)
        ordered.extend(args.post_tensor_options_kwarg_only)
    # Mutable tensors by value, except the elements of a multi-tensor out.
    by_value = {a.name for a in args.out} if len(args.out) > 1 else frozenset()
    spelled = memo.param_types(conv)
    seen = memo.arguments.seen
    method = sig.method
    decls = []
    names = []
    for arg in ordered:
        if arg is None:
            decls.append(f"{_OPTIONS_TYPE} options")
            names.append("options")
            continue
        name = arg.name
        hit = seen.get(id(arg))  # nearly always: python_signature mapped it
        key = id(hit if hit is not None else memo.arguments.of(arg))
        known = spelled.get(key)
        if known is None:
            cpp = str(argument_type(arg.type, mutable=arg.is_write, symint=True, conv=conv))
            # The common declaration (a mutable tensor by value) is spelled once.
            plain = "at::Tensor" if cpp == "at::Tensor &" else cpp
            known = spelled[key] = (cpp, f"{plain} {name}")
        if method and name == "self":
            decls.append("const at::Tensor & self")
        elif name in by_value:
            decls.append(f"{known[0]} {name}")
        else:
            decls.append(known[1])
        names.append(name)
    return decls, names


def _lambda_return(function: NativeFunction, conv: Conventions) -> str:
    plain = tuple(Return(r.name, r.type) for r in function.func.returns)
    text = str(returns_type(plain, conv))
    if text not in WRAPPABLE_RETURNS:
        raise UnbindableOverload(f"{function.func.name} returns {text}, which Python cannot wrap")
    return text


def _callee(function: NativeFunction, plain_name: str, method_variant: bool) -> str:
    """``self.add``, ``at::add_out``, ``torch::empty_symint``.

    ``plain_name`` is :func:`cpp_name` without ``_symint``, already spelled by the caller.
    """
    name = cpp_name(function.func, symint=True) if takes_symint(function.func) else plain_name
    if method_variant:
        return f"self.{name}"
    if Variant.function not in function.variants:
        raise UnbindableOverload(f"{function.func.name} is neither a function nor a method")
    takes_options = function.func.arguments.tensor_options is not None
    # torch:: wraps the ATen factories so that requires_grad is honoured.
    namespace = "torch" if takes_options or function.func.name.name.base.endswith("_like") else "at"
    return f"{namespace}::{name}"


def _callee_args(
    sig: PythonSignature, function: NativeFunction, params: list[str], method_variant: bool
) -> list[str]:
    """The ATen call's arguments; ``params`` are the lambda's parameter names."""
    if sig.deprecated is not None:
        is_out = function.func.is_out_fn
        names = [n for n in sig.deprecated.call_args if n != "out" or is_out]
    else:
        # The C++ API call passes the lambda's parameters through, in order.
        names = params
    if method_variant:
        names = [n for n in names if n != "self"]
    return names


def _check_options_fields(sig: PythonSignature, function: NativeFunction) -> None:
    present = {a.name: str(a.type) for a in sig.tensor_options}
    for name, type_text in present.items():
        if OPTIONS_FIELDS.get(name) != type_text:
            raise UnbindableOverload(
                f"{function.func}: bad TensorOptions field {name}: {type_text}"
            )
    if set(present) != set(OPTIONS_FIELDS):
        raise UnbindableOverload(
            f"{function.func}: incomplete TensorOptions fields {sorted(present)}"
        )


def dispatch_call(
    sig: PythonSignature,
    function: NativeFunction,
    structseq_names: dict[str, str],
    memo: CallMemo | None = None,
) -> DispatchCall:
    if memo is None:
        memo = CallMemo()
    arguments = sig.arguments()
    parsed = memo.parsed(sig)
    takes_options = function.func.arguments.tensor_options is not None
    is_out = function.func.is_out_fn

    locals_: list[tuple[str, str]] = []
    bound: dict[str, str]
    if not takes_options and not is_out and not sig.tensor_options:
        # Nearly every call: each parser argument binds its parsed value,
        # which is what the loop below would do.
        bound = dict(parsed)
    else:
        bound = {}
        # The TensorOptions fields come last; they are bound through ``options``.
        for arg in arguments[: len(arguments) - len(sig.tensor_options)]:
            if takes_options and arg.name == "self":
                locals_.append(("self", parsed[arg.name]))
                bound["self"] = "self"
            elif len(arg.outputs) > 1 and is_out:
                locals_.append(("out", parsed[arg.name]))
                for position, output in enumerate(arg.outputs):
                    bound[output.name] = f"out[{position}]"
            else:
                bound[arg.name] = parsed[arg.name]
    if sig.method:
        bound["self"] = "self"

    options = None
    out_check = None
    if takes_options:
        if is_out:
            raise UnbindableOverload(f"{function.func}: TensorOptions with out arguments")
        _check_options_fields(sig, function)
        options = OptionsInit(
            parsed["dtype"],
            parsed["device"],
            parsed["layout"],
            parsed["requires_grad"],
            parsed["pin_memory"],
            sig.method,
            memo.factory_methods_check_dispatch,
        )
        bound["options"] = "options"
    elif sig.tensor_options:
        option_names = {a.name for a in sig.tensor_options}
        if "dtype" in option_names:
            if not is_out or not {"layout", "device"} <= option_names:
                raise UnbindableOverload(f"{function.func}: dtype without out= to check it against")
            # A single output keeps its schema name ('grad_input'), not 'out'.
            out_name = "out" if sig.output is None else sig.output.name
            index_of = {a.name: i for i, a in enumerate(arguments)}
            out_check = OutTypeCheck(
                parsed[out_name],
                parsed["dtype"],
                f"_r.isNone({index_of['dtype']})",
                parsed["layout"],
                parsed["device"],
                f"_r.isNone({index_of['device']})",
            )
        if "requires_grad" not in option_names:
            raise UnbindableOverload(f"{function.func}: TensorOptions without requires_grad")

    facts = memo.facts(function)
    decls, names = _lambda_params(sig, function, facts.conventions, memo)
    try:
        lambda_args = ", ".join([bound[name] for name in names])
    except KeyError:
        missing = [name for name in names if name not in bound]
        raise UnbindableOverload(f"{function.func}: nothing binds {', '.join(missing)}") from None

    set_requires_grad = bool(sig.tensor_options) and (
        not takes_options or (sig.method and "requires_grad" in parsed)
    )
    typename = structseq_names.get(structseq_key(function)) if structseq_names else None
    if sig.deprecated is not None:
        comment = f"// [deprecated] aten::{sig.deprecated.schema}"
    else:
        comment = facts.comment
    return DispatchCall(
        schema_comment=comment,
        locals=tuple(locals_),
        options=options,
        out_check=out_check,
        lambda_name=f"dispatch_{facts.cpp_name}",
        lambda_params=", ".join(decls),
        lambda_return=facts.returns,
        callee=facts.callee,
        callee_args=", ".join(_callee_args(sig, function, names, facts.method_variant)),
        lambda_args=lambda_args,
        result_suffix=f".set_requires_grad({parsed['requires_grad']})" if set_requires_grad else "",
        structseq_prefix=f"{typename}, " if typename is not None else "",
        returns_first_argument=facts.returns_first_argument,
    )
