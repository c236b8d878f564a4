"""Parser signatures: how one schema looks to Python.

A schema becomes a :class:`PythonSignature` by three changes (see
docs/python.md for worked examples):

* ``self`` is dropped for methods (the tensor the method is called on) and
  renamed ``input`` for functions (:meth:`PythonArgument.formal`);
* out arguments merge into one optional ``out=None`` parameter
  (:func:`~schemac.backends.python.arguments.out_argument`);
* the TensorOptions quartet is replaced by five scattered keyword arguments
  (``dtype``, ``layout``, ``device``, ``pin_memory``, ``requires_grad``), for
  every factory, ``new_*`` and ``*_like`` function, whether or not the schema
  itself takes TensorOptions - an out= factory still lets Python ask for a
  dtype, which is then checked against ``out``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import attrs

from schemac.backends.aten.signatures.defaults import cpp_default
from schemac.backends.lazy import cached
from schemac.backends.python.arguments import (
    PythonArgument,
    is_tensor_like,
    out_argument,
)
from schemac.backends.python.defaults import python_default
from schemac.backends.python.errors import ReservedArgumentName
from schemac.ir.schema import Argument, FunctionSchema
from schemac.ir.types import BaseTy, BaseType, OptionalType, Type

#: Arguments Python adds on its own; a schema that declares one would clash.
RESERVED_ARGUMENT_NAMES = frozenset({"requires_grad"})

#: What a factory's ``device=None`` means: the current default device.
DEFAULT_DEVICE = "torch::tensors::get_default_device()"


@attrs.frozen
class DeprecatedCall:
    """What a deprecated signature calls: its schema and the ATen call's argument list.

    ``call_args`` names the deprecated schema's arguments, or constants
    (``1``), in the order the ATen overload takes them.
    """

    schema: FunctionSchema
    call_args: tuple[str, ...]


#: Makes the PythonArguments of schema arguments (see :class:`ArgumentMemo`).
ArgumentMaker = Callable[[tuple[Argument, ...]], tuple[PythonArgument, ...]]


# Not slotted: the signature texts below are computed once (see backends/lazy.py).
@attrs.frozen(slots=False)
class PythonSignature:
    #: Note [Fragment reuse]: every ``eq`` field (set below the class), so that a
    #: fingerprint encodes a signature once per run however many overloads,
    #: parser entries and method forms share it.
    reuse_fields: ClassVar[tuple[str, ...]]

    #: The operator's base name as Python sees it (``add``, ``add_``, ``__iadd__``).
    name: str
    input_args: tuple[PythonArgument, ...]
    input_kwargs: tuple[PythonArgument, ...]
    output: PythonArgument | None
    #: The scattered TensorOptions keyword arguments (empty for most operators).
    tensor_options: tuple[PythonArgument, ...]
    method: bool
    #: Set for the signatures of deprecated.yaml.
    deprecated: DeprecatedCall | None = None

    def arguments(
        self, *, skip_outputs: bool = False, skip_tensor_options: bool = False
    ) -> tuple[PythonArgument, ...]:
        """The parser's parameter order: inputs, keywords, out, TensorOptions fields."""
        if not skip_outputs and not skip_tensor_options:
            return self._all_arguments
        items = self.input_args + self.input_kwargs
        if self.output is not None and not skip_outputs:
            items += (self.output,)
        if not skip_tensor_options:
            items += self.tensor_options
        return items

    @property
    def arguments_count(self) -> int:
        return len(self._all_arguments)

    @property
    def output_index(self) -> int:
        return len(self.input_args) + len(self.input_kwargs)

    def text(self, *, skip_outputs: bool = False) -> str:
        """The string handed to PythonArgParser, e.g. ``abs(Tensor input, *, Tensor out=None)``."""
        return self._text_without_outputs if skip_outputs else self._text

    # Counting, dispatching and printing each ask for the full list.
    @cached
    def _all_arguments(self) -> tuple[PythonArgument, ...]:
        items = self.input_args + self.input_kwargs
        if self.output is not None:
            items += (self.output,)
        return items + self.tensor_options

    # Grouping, ordering and printing each ask for the texts; the signature is
    # frozen, so each is spelled once.
    @cached
    def _text(self) -> str:
        return self._spell(skip_outputs=False)

    @cached
    def _text_without_outputs(self) -> str:
        if self.output is None:
            return self._text  # nothing to skip: the same text
        return self._spell(skip_outputs=True)

    def _spell(self, *, skip_outputs: bool) -> str:
        formals = [a.formal(method=self.method) for a in self.arguments(skip_outputs=skip_outputs)]
        if len(formals) > len(self.input_args):
            formals.insert(len(self.input_args), "*")
        text = f"{self.name}({', '.join(formals)})"
        return text + "|deprecated" if self.deprecated is not None else text

    def as_method(self) -> PythonSignature:
        """The ``Tensor.<name>`` form: ``self`` is the tensor the method is called on."""
        # Direct construction: attrs.evolve introspects the fields on every call.
        return PythonSignature(
            self.name,
            tuple(a for a in self.input_args if a.name != "self"),
            self.input_kwargs,
            self.output,
            self.tensor_options,
            True,
            self.deprecated,
        )

    def with_outputs_of(self, out_signature: PythonSignature) -> PythonSignature:
        """The signature that parses both this overload and its out= twin.

        The out= overload's parameters win (they are a superset), but the C++
        out= overload has no TensorOptions, so those come from this one.
        """
        out = out_signature
        if not self.tensor_options and not out.tensor_options:
            # Nearly every merge: the out= signature itself is the merged one,
            # and its texts are already spelled.
            return out
        return PythonSignature(
            out.name,
            out.input_args,
            out.input_kwargs,
            out.output,
            self.tensor_options,
            out.method,
            out.deprecated,
        )


PythonSignature.reuse_fields = tuple(f.name for f in attrs.fields(PythonSignature) if f.eq)


def python_argument(arg: Argument) -> PythonArgument:
    default = None if arg.default is None else python_default(arg.default, arg.type)
    return PythonArgument(arg.name, arg.type, default)


def python_arguments(args: tuple[Argument, ...]) -> tuple[PythonArgument, ...]:
    return tuple(map(python_argument, args))


class ArgumentMemo:
    """:func:`python_argument`, made once per distinct schema argument.

    torch's ~2,400 bound overloads spell ~9,000 arguments but only ~1,000
    distinct ones (``Tensor self``, ``int dim``...).  Sharing one
    PythonArgument per distinct argument also shares what it caches (its
    parser spelling, see PythonArgument.formal).  Arguments are distinct here
    if they differ in name, type, default or in being written (``Tensor(a!)``):
    all that a PythonArgument and the dispatch views keyed on its identity
    (dispatch.CallMemo) read of a schema argument.  The alias set and the
    span are not part of it.  One memo lives for one compile
    (python_bindings makes it), never longer.
    """

    def __init__(self) -> None:
        #: By (name, canonical type identity, default, written?): see __call__.
        self._made: dict[tuple[str, int, str | None, bool], PythonArgument] = {}
        #: One type object per distinct type, by the identity of each type
        #: object seen (each entry keeps its key's object alive).
        self._types: dict[int, tuple[Type, Type]] = {}
        #: By spelling: a type's ``str()`` is canonical (equal types exactly
        #: when equal spellings), and spelling it, unlike a first attrs hash,
        #: leaves no object behind for the cyclic collector to walk.
        self._type_values: dict[str, Type] = {}
        #: Each schema argument object seen so far, by identity (read-only
        #: outside this class): the dispatch views ask again for the same
        #: objects (dispatch.CallMemo), and an int key spares attrs'
        #: Python-level __hash__ and __eq__.  Each argument is kept alive in
        #: ``_pinned`` (one list slot, not a pair per entry: ~15,000 of them),
        #: so an identity cannot be reused.
        self.seen: dict[int, PythonArgument] = {}
        self._pinned: list[Argument] = []

    def _canonical_type(self, ty: Type) -> Type:
        hit = self._types.get(id(ty))
        if hit is None:
            hit = self._types[id(ty)] = (ty, self._type_values.setdefault(str(ty), ty))
        return hit[1]

    def __call__(self, args: tuple[Argument, ...]) -> tuple[PythonArgument, ...]:
        # One call per argument list, not per argument: ~9,000 arguments per
        # compile, so the lookups of :meth:`of` are inlined here.
        seen = self.seen
        made = self._made
        types = self._types
        result = []
        for arg in args:
            hit = seen.get(id(arg))
            if hit is not None:
                result.append(hit)
                continue
            # First sight of this object (nearly every argument).  Hashing
            # the argument itself would run attrs' Python-level __hash__ over
            # all its fields (and keep a hash object per argument); this key
            # hashes in C, and the type's canonical object is looked up once
            # per type object (types are shared: ~1,200 objects, ~50 types).
            ty = arg.type
            canonical = types.get(id(ty))
            annotation = arg.annotation
            key = (
                arg.name,
                id(canonical[1] if canonical is not None else self._canonical_type(ty)),
                arg.default,
                annotation is not None and annotation.is_write,
            )
            python = made.get(key)
            if python is None:
                python = made[key] = python_argument(arg)
            seen[id(arg)] = python
            self._pinned.append(arg)
            result.append(python)
        return tuple(result)

    def of(self, arg: Argument) -> PythonArgument:
        """The one PythonArgument of ``arg``'s name, type, default and writing."""
        return self((arg,))[0]


def cpp_function_name(schema: FunctionSchema) -> str:
    """``add``, ``add_``, ``add_out``: the C++ API name PyTorch's rules key on."""
    base = str(schema.name.name)
    return base + "_out" if schema.is_out_fn else base


def _options_default_init(schema: FunctionSchema, field: str) -> str | None:
    options = schema.arguments.tensor_options
    if options is None:
        return None
    arg: Argument = getattr(options, field)
    if arg.default is None or arg.default == "None":
        return None
    return cpp_default(arg.default, arg.type, symint=False)


def wants_tensor_options(
    schema: FunctionSchema, category_override: str | None
) -> tuple[bool, bool]:
    """(scatter TensorOptions into Python kwargs?, is it a ``new_*``/``*_like`` function?)"""
    return _wants_tensor_options(schema, category_override, str(schema.name.name))


def _wants_tensor_options(
    schema: FunctionSchema, category_override: str | None, base_name: str
) -> tuple[bool, bool]:
    name = base_name + "_out" if schema.is_out_fn else base_name  # cpp_function_name
    is_like_or_new = (
        category_override in ("new", "like") or name.startswith("new_") or name.endswith("_like")
    )
    if category_override == "dummy":
        return False, is_like_or_new
    if is_like_or_new or category_override == "factory":
        return True, is_like_or_new
    # A factory returns a tensor and takes none; the returns are the shorter
    # list, and most schemas end the search at their first argument.
    for ret in schema.returns:
        if is_tensor_like(ret.type):
            break
    else:
        return False, is_like_or_new
    for arg in schema.arguments.flat_non_out:
        if is_tensor_like(arg.type):
            return False, is_like_or_new
    return True, is_like_or_new


def _tensor_options_arguments(
    schema: FunctionSchema, category_override: str | None, base_name: str
) -> tuple[PythonArgument, ...]:
    scatter, like_or_new = _wants_tensor_options(schema, category_override, base_name)
    if not scatter:
        return ()

    def init(field: str) -> str | None:
        # new_*/like functions take their defaults from the source tensor at run time.
        return None if like_or_new else _options_default_init(schema, field)

    device_init = None if like_or_new else (init("device") or DEFAULT_DEVICE)
    optional_bool = OptionalType(BaseType(BaseTy.bool))
    return (
        PythonArgument("dtype", OptionalType(BaseType(BaseTy.ScalarType)), "None", init("dtype")),
        PythonArgument("layout", OptionalType(BaseType(BaseTy.Layout)), "None", init("layout")),
        PythonArgument("device", OptionalType(BaseType(BaseTy.Device)), "None", device_init),
        PythonArgument("pin_memory", optional_bool, "False"),
        PythonArgument("requires_grad", optional_bool, "False"),
    )


def python_signature(
    schema: FunctionSchema,
    *,
    category_override: str | None,
    method: bool,
    deprecated: DeprecatedCall | None = None,
    make_arguments: ArgumentMaker = python_arguments,
) -> PythonSignature:
    args = schema.arguments
    for arg in args.flat_all:
        if arg.name in RESERVED_ARGUMENT_NAMES:
            raise ReservedArgumentName(arg.name)
    positional = args.positional
    if method and args.self_arg is not None:
        positional = args.pre_self_positional + args.post_self_positional
    keywords = args.pre_tensor_options_kwarg_only + args.post_tensor_options_kwarg_only
    name = str(schema.name.name)
    return PythonSignature(
        name=name,
        input_args=make_arguments(positional),
        input_kwargs=make_arguments(keywords),
        output=out_argument(make_arguments(args.out)) if args.out else None,
        tensor_options=_tensor_options_arguments(schema, category_override, name),
        method=method,
        deprecated=deprecated,
    )
