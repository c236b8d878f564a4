"""Function schemas: the typed, position-carrying form of a ``func:`` string.

``str(schema)`` is the canonical text, identical to what PyTorch prints for the
same schema, so ``parse_schema(str(s)) == s`` for every schema.  Source spans
are carried on every node but excluded from equality and hashing: two schemas
spelled the same way in different files are the same schema.

The rules a schema must obey beyond the grammar (out arguments match returns,
in-place operators return ``self``, ...) are checked when a :class:`FunctionSchema`
is built, whoever builds it: the parser or a pass that synthesises variants.
Every violation becomes a :class:`~schemac.diagnostics.SchemaSemanticError`
pointing at the offending part of the schema.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Iterator
from typing import cast

import attrs

from schemac.diagnostics import NO_SPAN, Diagnostic, SchemaSemanticError, Span
from schemac.ir.names import OperatorName
from schemac.ir.slots import Views
from schemac.ir.types import TENSOR, BaseTy, BaseType, ListType, OptionalType, Type

_SPAN = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)

#: Argument types that may carry an alias annotation, as spelled canonically.
ANNOTATABLE_TYPES = frozenset({"Tensor", "Tensor?", "Tensor[]"})


@attrs.frozen(cache_hash=True)
class Annotation:
    """An alias annotation such as ``a``, ``a!``, ``a|b`` or ``a -> *``."""

    alias_set: tuple[str, ...]
    is_write: bool = False
    alias_set_after: tuple[str, ...] = ()
    span: Span = _SPAN

    def __str__(self) -> str:
        text = "|".join(self.alias_set) + ("!" if self.is_write else "")
        if self.alias_set_after:
            text += " -> " + "|".join(self.alias_set_after)
        return text


def _annotated_type_text(ty: Type, annotation: Annotation | None) -> str:
    text = str(ty)
    if annotation is None:
        return text
    return text.replace("Tensor", f"Tensor({annotation})", 1)


@attrs.frozen(cache_hash=True)
class Argument:
    name: str
    type: Type
    #: The default exactly as written (``1``, ``None``, ``"mean"``, ``[0,1]``).
    default: str | None = None
    annotation: Annotation | None = None
    span: Span = _SPAN

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        return self.text(self.default)

    def text(self, default: str | None) -> str:
        """The argument as a schema spells it, with ``default`` as its default."""
        text = f"{_annotated_type_text(self.type, self.annotation)} {self.name}"
        return f"{text}={default}" if default is not None else text


@attrs.frozen(cache_hash=True)
class Return:
    name: str | None
    type: Type
    annotation: Annotation | None = None
    span: Span = _SPAN

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        text = _annotated_type_text(self.type, self.annotation)
        return f"{text} {self.name}" if self.name is not None else text


#: The four kwarg-only arguments that together form a TensorOptions, in order.
TENSOR_OPTIONS_FIELDS: tuple[tuple[str, BaseTy], ...] = (
    ("dtype", BaseTy.ScalarType),
    ("layout", BaseTy.Layout),
    ("device", BaseTy.Device),
    ("pin_memory", BaseTy.bool),
)


@attrs.frozen
class TensorOptionsArguments:
    dtype: Argument
    layout: Argument
    device: Argument
    pin_memory: Argument

    def all(self) -> tuple[Argument, Argument, Argument, Argument]:
        return (self.dtype, self.layout, self.device, self.pin_memory)


#: Each TensorOptions field's name and the two types it may have (``T``, ``T?``), built once.
_OPTIONS_FIELD_TYPES: tuple[tuple[str, tuple[Type, Type]], ...] = tuple(
    (name, (BaseType(base), OptionalType(BaseType(base)))) for name, base in TENSOR_OPTIONS_FIELDS
)


def _options_start(kw: tuple[Argument, ...]) -> int | None:
    """Where the first TensorOptions quartet starts among keyword-only arguments, if any."""
    fields = len(TENSOR_OPTIONS_FIELDS)
    for start in range(len(kw) - fields + 1):
        if _is_options_window(kw[start : start + fields]):
            return start
    return None


def _is_options_window(window: tuple[Argument, ...]) -> bool:
    return all(
        arg.name == name and arg.type in types
        for arg, (name, types) in zip(window, _OPTIONS_FIELD_TYPES, strict=True)
    )


def _self_index(positional: tuple[Argument, ...]) -> int | None:
    for index, arg in enumerate(positional):
        if arg.name == "self":
            return index
    return None


def _after(positional: tuple[Argument, ...], self_index: int | None) -> tuple[Argument, ...]:
    """The positional arguments after ``self`` (all of them if there is none)."""
    return positional if self_index is None else positional[self_index + 1 :]


#: Keyword-only arguments before the TensorOptions quartet, the quartet, those after.
_OptionsSplit = tuple[tuple[Argument, ...], TensorOptionsArguments | None, tuple[Argument, ...]]


def _options_split(kw: tuple[Argument, ...]) -> _OptionsSplit:
    # Most argument lists are too short to hold the quartet: no window to try.
    if len(kw) < len(TENSOR_OPTIONS_FIELDS):
        return kw, None, ()
    start = _options_start(kw)
    if start is None:
        return kw, None, ()
    end = start + len(TENSOR_OPTIONS_FIELDS)
    return kw[:start], TensorOptionsArguments(*kw[start:end]), kw[end:]


class _ArgumentsViews(Views):
    """The slots of an argument list's views (Note [IR classes without __getattr__])."""

    __slots__ = (
        "flat_all",
        "flat_non_out",
        "post_self_positional",
        "post_tensor_options_kwarg_only",
        "pre_tensor_options_kwarg_only",
        "self_index",
        "tensor_options",
    )
    self_index: int | None
    post_self_positional: tuple[Argument, ...]
    pre_tensor_options_kwarg_only: tuple[Argument, ...]
    tensor_options: TensorOptionsArguments | None
    post_tensor_options_kwarg_only: tuple[Argument, ...]
    flat_non_out: tuple[Argument, ...]
    flat_all: tuple[Argument, ...]


@attrs.frozen(cache_hash=True)
class Arguments(_ArgumentsViews):
    """The argument list, split the way every consumer needs it.

    ``positional`` are the arguments before ``*``; ``kwarg_only`` those after it
    that are not outputs; ``out`` the trailing mutable keyword-only arguments
    (the out= arguments).  ``self`` and the TensorOptions quartet are views over
    these, computed once, when the list is made.
    """

    positional: tuple[Argument, ...] = ()
    kwarg_only: tuple[Argument, ...] = ()
    out: tuple[Argument, ...] = ()

    def __attrs_post_init__(self) -> None:
        # Note [Computed-once views filled at construction]
        # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
        # Views that nearly every instance is asked for are put in their
        # slots here, where they cost one assignment, and are then read as
        # plain slots (no Python call, unlike a property: passes and backends
        # read these views ~40,000 times).  The slots are a base class's, not
        # cached properties' (Note [IR classes without __getattr__] in
        # schemac.ir.slots); a copy or an unpickled instance is made by
        # __init__, so it has them too.
        fill = object.__setattr__
        positional = self.positional
        kwarg_only = self.kwarg_only
        index = _self_index(positional)
        fill(self, "self_index", index)
        fill(self, "post_self_positional", _after(positional, index))
        pre, options, post = _options_split(kwarg_only)
        fill(self, "pre_tensor_options_kwarg_only", pre)
        fill(self, "tensor_options", options)
        fill(self, "post_tensor_options_kwarg_only", post)
        flat_non_out = positional + kwarg_only
        fill(self, "flat_non_out", flat_non_out)
        fill(self, "flat_all", flat_non_out + self.out)

    # -- views (see the note above) -----------------------------------------
    @property
    def self_arg(self) -> Argument | None:
        index = self.self_index
        return None if index is None else self.positional[index]

    @property
    def pre_self_positional(self) -> tuple[Argument, ...]:
        index = self.self_index
        return () if index is None else self.positional[:index]

    def __iter__(self) -> Iterator[Argument]:
        return iter(self.flat_all)

    def __str__(self) -> str:
        return self.text(str)

    def text(self, spell: Callable[[Argument], str]) -> str:
        """The list as a schema spells it, each argument spelt by ``spell``."""
        items = [spell(a) for a in self.positional]
        if self.kwarg_only or self.out:
            items.append("*")
        items.extend(spell(a) for a in self.kwarg_only + self.out)
        return ", ".join(items)


class SchemaKind(enum.Enum):
    functional = "functional"
    inplace = "inplace"
    out = "out"
    mutable = "mutable"
    scratch = "scratch"


SCRATCH_PREFIX = "_scratch_"


class _SchemaViews(Views):
    """The slots of a schema's computed values (Note [IR classes without __getattr__])."""

    __slots__ = ("_family_key", "_kind", "_text", "is_out_fn")
    _kind: SchemaKind
    is_out_fn: bool
    _text: str
    _family_key: Hashable


@attrs.frozen(cache_hash=True)
class FunctionSchema(_SchemaViews):
    name: OperatorName
    arguments: Arguments
    returns: tuple[Return, ...]
    span: Span = _SPAN
    #: Span of the operator name inside the schema text.
    name_span: Span = _SPAN

    def __attrs_post_init__(self) -> None:
        if not _obeys_rules_trivially(self):
            problems = list(_schema_rule_violations(self))
            if problems:
                raise SchemaSemanticError(problems)
        # Note [Computed-once views filled at construction]: the kind is asked
        # of nearly every schema made.
        object.__setattr__(self, "_kind", _schema_kind(self))
        object.__setattr__(self, "is_out_fn", bool(self.arguments.out))

    def __str__(self) -> str:
        # Printed once per instance: backends print the same schema for
        # several files (comments, schema strings, registrations), ~2,300
        # times for the python bindings alone.  The parser usually knows the
        # text already; see remember_text.
        try:
            return self._text
        except AttributeError:
            text = schema_text(self)
            object.__setattr__(self, "_text", text)
            return text

    @property
    def remembered_text(self) -> str | None:
        """The printed text if it is known already (parsed, or printed once), else None."""
        try:
            return self._text
        except AttributeError:
            return None

    # -- classification ------------------------------------------------------
    # is_out_fn and _kind are filled at construction (see
    # __attrs_post_init__): asked ~15,000 and ~4 times a schema.

    @property
    def is_mutable(self) -> bool:
        return any(a.is_write for a in self.arguments.flat_all)

    @property
    def is_functional_fn(self) -> bool:
        return "functional" in self.name.overload

    def kind(self) -> SchemaKind:
        return self._kind

    @property
    def family_key(self) -> Hashable:
        """:func:`family_key`, computed once.

        Synthesis and grouping both bucket every function by it.
        """
        try:
            return self._family_key
        except AttributeError:
            key = family_key(self)
            object.__setattr__(self, "_family_key", key)
            return key

    def schema_order_arguments(self) -> tuple[Argument, ...]:
        return self.arguments.flat_all

    def aliased_return_names(self) -> tuple[str | None, ...]:
        """For each return, the name of the argument it aliases, if any."""
        names: list[str | None] = []
        for ret in self.returns:
            aliased = [
                a.name
                for a in self.arguments.flat_all
                if a.annotation is not None and a.annotation == ret.annotation
            ]
            names.append(aliased[0] if len(aliased) == 1 else None)
        return tuple(names)

    def with_name(self, name: OperatorName) -> FunctionSchema:
        return attrs.evolve(self, name=name)


def _schema_kind(schema: FunctionSchema) -> SchemaKind:
    if schema.name.name.inplace:
        return SchemaKind.inplace
    outs = schema.arguments.out
    if outs:
        for a in outs:
            if a.name.startswith(SCRATCH_PREFIX):
                return SchemaKind.scratch
        return SchemaKind.out
    # A plain loop (every schema's kind is asked for): is_write, inlined.
    for a in schema.arguments.post_self_positional:
        if a.annotation is not None and a.annotation.is_write:
            return SchemaKind.mutable
    return SchemaKind.functional


def family_key(schema: FunctionSchema) -> Hashable:
    r"""A key equal for two schemas exactly when their default
    :func:`~schemac.ir.signature.signature_key`\ s are.

    Made of tuples of strings instead of IR objects, which are dearer to build
    and far dearer to hash: a tuple does not keep its hash, and each type in it
    would be hashed through a Python-level ``__hash__`` on every dict look-up
    (the passes look each function's key up about six times).  Each part
    mirrors :func:`~schemac.ir.signature.signature_key`'s: an argument without its annotation
    compares as its (name, type, default), a return without its name as its
    type, and the operator name as its base and dunder flag.  Types are
    spelled, which partitions them as comparing would: two types the grammar
    can write are equal exactly when they print alike.

    Computed for every function by two passes, so written as loops that read
    each argument once; most schemas mutate nothing, and for them the extra
    returns (mutated inputs that are not returned) are not looked for.
    """
    args = schema.arguments
    name = schema.name
    mutates = bool(args.out)
    positional = []
    for a in args.positional:
        positional.append((a.name, a.type.spelling, a.default))
        if not mutates and a.annotation is not None and a.annotation.is_write:
            mutates = True
    # Note [bernoulli.p signature] (schemac.ir.signature)
    if name.overload == "p" and str(name) == "bernoulli.p":
        positional = [(n, t, "0.5") if n == "p" else (n, t, d) for n, t, d in positional]
    kwarg_only = args.kwarg_only
    if len(kwarg_only) >= len(TENSOR_OPTIONS_FIELDS) and args.tensor_options is not None:
        kwarg_only = args.pre_tensor_options_kwarg_only + args.post_tensor_options_kwarg_only
    kwargs = tuple([(a.name, a.type.spelling, a.default) for a in kwarg_only])
    returns = [r.type.spelling for r in schema.returns]
    if mutates:
        returned = [r.annotation for r in schema.returns]
        self_arg = args.self_arg
        written = (self_arg,) if self_arg is not None else ()
        for a in written + args.out + args.post_self_positional:
            if a.is_write and a.annotation not in returned:
                returns.append(a.type.spelling)
    return (name.name.base, name.name.dunder, tuple(positional), kwargs, tuple(returns))


def view_twin_base(base: str) -> str:
    """The base name of the view a functional ``_copy`` twin pairs with, by name:
    ``expand_copy`` with ``expand``, ``slice_scatter`` with ``slice_inverse``;
    any other base name as it is.  Derivative matching and view grouping pair
    a view with its twin by :func:`view_twin_key`."""
    if base.endswith("_copy"):
        return base.replace("_copy", "")
    if base.endswith("_scatter"):
        return base.replace("scatter", "inverse")
    return base


def view_twin_key(key: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
    """A :func:`family_key` with its base name mapped by :func:`view_twin_base`:
    equal for a view and its functional ``_copy`` twin."""
    base = cast(str, key[0])
    twin = view_twin_base(base)
    return key if twin == base else (twin, *key[1:])


def schema_text(schema: FunctionSchema) -> str:
    """The canonical text of ``schema``, printed from its parts (what ``str()`` gives)."""
    return f"{schema.name}({schema.arguments}) -> {returns_text(schema.returns)}"


def schema_text_blind_to_defaults(schema: FunctionSchema) -> str:
    """:func:`schema_text` with each default value replaced by ``?``: equal for two
    schemas only if they differ in nothing but default values (whether an
    argument has a default still shows).  Note [Keys blind to an aspect] in
    :mod:`schemac.ir.slots`."""
    arguments = schema.arguments.text(_blind_argument_text)
    return f"{schema.name}({arguments}) -> {returns_text(schema.returns)}"


def _blind_argument_text(argument: Argument) -> str:
    return argument.text(None if argument.default is None else "?")


def returns_text(returns: tuple[Return, ...]) -> str:
    """A return list as a schema spells it: ``()``, ``Tensor`` or ``(Tensor a, Tensor b)``."""
    if len(returns) == 1:
        return str(returns[0])
    return "(" + ", ".join(map(str, returns)) + ")"


def remember_text(schema: FunctionSchema, text: str) -> None:
    """Make ``text`` the schema's printed form, to be returned by ``str(schema)``.

    Note [Schemas that print as written]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Printing a schema walks every argument, type and annotation (~5 us), and
    backends print nearly every schema of the files they were given.  But a
    schema read from a file was written in canonical form (the grammar accepts
    nothing else), so the parser, which checks that each piece it cut the text
    into prints as written, hands the text over instead and the walk never
    happens.  ``text`` must equal :func:`schema_text` of ``schema``; the
    parser's property tests check that it does.
    """
    object.__setattr__(schema, "_text", text)


def _error(span: Span, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(span, message, hint)


def _same_alias(a: Annotation | None, b: Annotation | None) -> bool:
    return a is not None and a == b


def _obeys_rules_trivially(schema: FunctionSchema) -> bool:
    """True only for a schema none of the rules below objects to, decided without walking them.

    Schemas are built ~6,000 times per compile and nearly all have one of four
    shapes, each checked here against every rule of
    :func:`_schema_rule_violations` (False just means "walk the rules"):

    - nothing written (no ``!`` annotation, out argument or in-place name), and
      only Tensor, Tensor? and Tensor[] values annotated (views such as
      ``Tensor(a) self -> Tensor(a)``): the operator is functional, so only
      "TensorOptions twice" can fire, and it is tested as that rule tests it;
    - out=: only the out arguments are annotated, each a written ``Tensor``
      (none a scratch buffer) returned in order with its annotation;
    - in-place: only ``self`` is annotated, a written ``Tensor`` returned
      alone, or a written ``Tensor?`` / ``Tensor[]`` (``_foreach_add_``)
      with nothing returned.

    The last two are not functional, so they must have no TensorOptions and no
    "functional" overload name.
    """
    args = schema.arguments
    outs = args.out
    inplace = schema.name.name.inplace
    returns = schema.returns
    # Fewer keyword-only arguments than the quartet has: no TensorOptions, and
    # no need to look for them (most schemas).
    no_options = len(args.kwarg_only) < _OPTIONS_COUNT or args.tensor_options is None
    if not outs and not inplace:
        if not (
            _only_read(args.positional) and _only_read(args.kwarg_only) and _only_read(returns)
        ):
            return False
        # "TensorOptions twice", tested on the rest as that rule tests it, but
        # without building an Arguments for the rest.
        return no_options or _options_start(args.post_tensor_options_kwarg_only) is None
    if not no_options or "functional" in schema.name.overload:
        return False
    if not _unannotated(args.kwarg_only):
        return False
    if not inplace:
        if not _unannotated(args.positional) or len(outs) != len(returns):
            return False
        for out, ret in zip(outs, returns, strict=True):
            annotation = out.annotation
            if (
                annotation is None
                or not annotation.is_write
                or ret.annotation != annotation
                or out.type != TENSOR
                or ret.type != TENSOR
                or out.name.startswith(SCRATCH_PREFIX)
            ):
                return False
        return True
    if outs:
        return False
    index = args.self_index
    if index is None:
        return False
    positional = args.positional
    self_arg = positional[index]
    annotation = self_arg.annotation
    if (
        annotation is None
        or not annotation.is_write
        or not _unannotated(positional[:index])
        or not _unannotated(positional[index + 1 :])
    ):
        return False
    if self_arg.type == TENSOR:
        return (
            len(returns) == 1 and returns[0].annotation == annotation and returns[0].type == TENSOR
        )
    return not returns and self_arg.type.spelling in ANNOTATABLE_TYPES


_OPTIONS_COUNT = len(TENSOR_OPTIONS_FIELDS)


def _unannotated(items: tuple[Argument, ...] | tuple[Return, ...]) -> bool:
    # A plain loop: about twice as fast as all() over a generator, ~15,000 calls per load.
    for item in items:  # noqa: SIM110
        if item.annotation is not None:
            return False
    return True


def _only_read(items: tuple[Argument, ...] | tuple[Return, ...]) -> bool:
    """No item is written, and only items of a type that may be annotated are."""
    for item in items:
        annotation = item.annotation
        if annotation is not None and (
            annotation.is_write or item.type.spelling not in ANNOTATABLE_TYPES
        ):
            return False
    return True


def _schema_rule_violations(schema: FunctionSchema) -> Iterator[Diagnostic]:
    """The rules of the schema language that the grammar cannot express.

    They are the rules PyTorch's own schema model enforces, so a schema that
    passes here is one PyTorch accepts; see docs/yaml-format.md for each rule.

    Note [Mutating operators may return nothing]
        torchgen insists that an in-place or out= operator taking a plain
        ``Tensor`` returns it (for method chaining).  PyTorch's dispatcher has
        no such rule, and custom-operator libraries must not return the
        aliases: torch.compile's functionalization refuses a non-ATen
        operator whose output carries an alias annotation.  So ``-> ()`` is
        accepted for both kinds; a return list, when given, must still be
        exactly the outputs (or ``self``).
    """
    args = schema.arguments
    outs = args.out
    returns = schema.returns

    for arg in args.flat_all:
        if arg.annotation is not None and str(arg.type) not in ANNOTATABLE_TYPES:
            yield _error(
                arg.span,
                f"alias annotation on argument '{arg.name}' of type '{arg.type}'",
                "only Tensor, Tensor? and Tensor[] arguments can carry an alias annotation",
            )
    for ret in returns:
        if ret.annotation is not None and str(ret.type) not in ANNOTATABLE_TYPES:
            yield _error(
                ret.span,
                f"alias annotation on a return of type '{ret.type}'",
                "only Tensor, Tensor? and Tensor[] returns can carry an alias annotation",
            )

    # Counts may differ (a list out= returns nothing); that has its own rule.
    for arg, ret in zip(outs, returns, strict=False):
        if arg.annotation != ret.annotation:
            yield _error(
                ret.span,
                f"return '{ret}' does not alias out argument '{arg.name}'",
                "the i-th return of an out= operator must carry the i-th out argument's annotation",
            )

    for arg in args.post_self_positional:
        if arg.is_write and any(arg.annotation == r.annotation for r in returns):
            yield _error(
                arg.span,
                f"mutable positional argument '{arg.name}' is also returned",
                "mutable positional arguments must not be returned",
            )

    for arg in args.pre_self_positional:
        if arg.is_write:
            yield _error(
                arg.span,
                f"mutable argument '{arg.name}' before 'self' is not supported",
            )

    mutable_returns = [r for r in returns if r.is_write]
    immutable_returns = [r for r in returns if not r.is_write]
    if mutable_returns and immutable_returns:
        yield _error(
            schema.span,
            "returns mix mutable and immutable values",
            "return either only aliased mutable values or only fresh values",
        )
    out_and_self = list(outs) + [a for a in args.positional if a.name == "self"]
    for ret in mutable_returns:
        if not any(_same_alias(ret.annotation, a.annotation) for a in out_and_self):
            yield _error(
                ret.span,
                f"mutable return '{ret}' aliases neither an out argument nor 'self'",
                "did you forget to mark an out argument as keyword-only (after '*')?",
            )

    if outs:
        if any(a.type != TENSOR for a in outs):
            if returns:
                yield _error(
                    schema.span,
                    "an out= operator with non-Tensor out arguments must return ()",
                )
        else:
            real_outs = [a for a in outs if not a.name.startswith(SCRATCH_PREFIX)]
            # Returning nothing is how PyTorch's custom operators write out=
            # (torch.compile refuses a custom operator whose output aliases an
            # input); see Note [Mutating operators may return nothing].
            if returns and len(real_outs) != len(returns):
                yield _error(
                    schema.span,
                    f"{len(real_outs)} out arguments but {len(returns)} returns",
                    "return every Tensor out argument, in order",
                )

    if schema.name.name.inplace:
        if outs:
            yield _error(schema.name_span, "an operator cannot be both in-place and out=")
        self_arg = args.self_arg
        if self_arg is None or not self_arg.is_write:
            yield _error(
                schema.name_span,
                f"in-place operator '{schema.name}' needs a mutable 'self' argument",
                "annotate it as Tensor(a!) self",
            )
        elif self_arg.type == TENSOR:
            if returns and (len(returns) != 1 or returns[0].annotation != self_arg.annotation):
                yield _error(
                    schema.name_span,
                    f"in-place operator '{schema.name}' must return self",
                    f"return {_annotated_type_text(TENSOR, self_arg.annotation)}",
                )
        elif returns:
            yield _error(
                schema.name_span,
                f"in-place operator '{schema.name}' with a non-Tensor self must return ()",
            )

    kind_is_functional = (
        not schema.name.name.inplace
        and not outs
        and not any(a.is_write for a in args.post_self_positional)
    )
    rest = args.post_tensor_options_kwarg_only
    if args.tensor_options is not None and Arguments(kwarg_only=rest).tensor_options is not None:
        yield _error(
            schema.span,
            "the TensorOptions arguments (dtype, layout, device, pin_memory) appear twice",
        )
    if args.tensor_options is not None and not kind_is_functional:
        yield _error(
            schema.span,
            "TensorOptions arguments (dtype, layout, device, pin_memory) are only "
            "allowed on functional operators",
        )
    if schema.is_functional_fn and not kind_is_functional:
        yield _error(
            schema.name_span,
            f"overload name '{schema.name.overload}' contains 'functional' but the "
            "operator is not functional",
            "'functional' is reserved for functional twins; choose another overload name",
        )


def is_tensor_list(ty: Type) -> bool:
    return isinstance(ty, ListType) and ty.elem == TENSOR
