"""The loaded functions of a part of ``native_functions.yaml``, remembered from one run to the next.

Note [Loaded parts remembered]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An edit of one operator changes one part of ``native_functions.yaml``
(Note [Lists composed in parts] in :mod:`.yaml_parts`), yet composing and
loading the ~20 others again was ~0.2 s of every edit's serial prefix.  So a
compile that keeps a state beside OUT hands the loader a :class:`PartMemo`,
and each part is either recalled from it or loaded and, when clean, offered
to it.  A part's key (:func:`part_key`) is a digest of everything loading it
reads: its text, the line breaks before it and the file's name (the spans
its functions carry), and the tags its entries may use (tags.yaml decides
which tag is an error).  The parser has no options, and what else could
change the result -- schemac's code, Python, libyaml -- is in the run key
the memo's file is stored under.

Only a part that loaded without any diagnostic is remembered: errors make
the run fail, and a warning must show on every run.  Recalled functions are
checked for duplicate definitions against the others as loaded ones are (the
only check that reaches across parts).  Only files whose entries are keyed
(Note [Functions keyed by their source] in :mod:`schemac.ir.native`) are
remembered, since the keys travel with the functions; a text composed whole
is loaded as before.

``derivatives.yaml`` is remembered the same way (its entries carry no source
keys), with one more check on the way back: its entries name operators of
``native_functions.yaml``, which may have changed since, so a part is
recalled only if each of its entries still names one (as loading checks);
otherwise it is loaded, and reports what loading reports.  Neither file is
recalled after an error in the files loaded before it (tags.yaml, then
native_functions.yaml): the entries of failed definitions are then treated
apart, which a recalled part would not know.

A remembered part is a pickle of its functions and their source keys.  The
unpickler makes nothing but the IR's classes, spans and a few builtins
(:class:`_IrUnpickler`), so a damaged or planted memo cannot run code; the
store also checks each part's bytes against their digest.  Unpickling goes
through the IR classes' ``__init__`` (Note [IR classes without __getattr__]
in :mod:`schemac.ir.slots`), so the views every function carries are
computed and checked again: ~0.5 of loading the part, not ~0.05.
"""

from __future__ import annotations

import io
import operator
import pickle
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar

import attrs

from schemac.diagnostics import DiagnosticSink
from schemac.digests import hex_of
from schemac.frontend.yaml_parts import YamlPart
from schemac.ir.derivatives import DerivativeEntry
from schemac.ir.native import NativeFunction, set_loaded_key
from schemac.ir.schema import FunctionSchema, remember_text
from schemac.ir.slots import BLIND_ASPECTS

T = TypeVar("T")

#: Bump when what a part's pickle holds changes shape.
PART_FORMAT = "loaded-part 2"

#: Globals a remembered part may name (module, qualified name), besides
#: the classes of ``schemac.ir`` and ``schemac.diagnostics``.
_BUILTINS = frozenset({("builtins", "frozenset"), ("builtins", "set"), ("builtins", "tuple")})
#: The one function of the IR a loaded part may call: it gives an unpickled
#: schema the text it printed as (Note [Schemas that print as written]).
_SCHEMA_TEXT = ("schemac.ir.schema", "remember_text")
_IR_PACKAGE = "schemac.ir."
_SPANS_MODULE = "schemac.diagnostics"


class PartMemo(Protocol):
    """Where the parts of the last run are, and where this run's go."""

    def recall(self, key: str) -> bytes | None:
        """The bytes remembered under ``key`` (checked against their digest), or None."""

    def remember(self, key: str, data: Callable[[], bytes | None]) -> None:
        """Keep what ``data()`` gives (if not None) under ``key`` for the next run,
        if this one succeeds.  Called when the memo is saved, after the run's
        output is committed: the cost of pickling is not on the way to it, and
        the bytes are not held through the run's peak of memory."""


def part_key(
    kind: str, file: str, lines_before: int, text: str, tags: frozenset[str] | None = None
) -> str:
    """The key of a part of a ``kind`` of file: everything its load reads
    (Note [Loaded parts remembered])."""
    tag_words = "*" if tags is None else "\0".join(sorted(tags))
    head = f"{PART_FORMAT}\0{kind}\0{file}\0{lines_before}\0{tag_words}\0"
    return hex_of((head + text).encode("utf-8", "surrogatepass"))


def load_parts(
    parts: Iterable[YamlPart],
    memo: PartMemo | None,
    key_of: Callable[[YamlPart], str],
    recalled: Callable[[bytes], Sequence[T] | None],
    admit: Callable[[T], None],
    load: Callable[[YamlPart], None],
    loaded: list[T],
    pickled: Callable[[Sequence[T]], bytes | None],
    sink: DiagnosticSink,
) -> None:
    """Each part in order, recalled from ``memo`` (its values ``admit``-ted
    one by one) or, if it is not there or ``recalled`` refuses it, ``load``-ed
    into ``loaded``; a part that loaded without a diagnostic in ``sink`` is
    offered to the memo, pickled later by ``pickled`` (Note [Loaded parts
    remembered]).  Without a memo every part is loaded."""
    for part in parts:
        key = None
        if memo is not None:
            key = key_of(part)
            data = memo.recall(key)
            values = None if data is None else recalled(data)
            if values is not None:
                for value in values:
                    admit(value)
                continue
        loaded_before = len(loaded)
        mark = sink.mark()
        load(part)
        if memo is not None and key is not None and sink.mark() == mark:
            memo.remember(key, partial(pickled, loaded[loaded_before:]))


def pickled_part(functions: Sequence[NativeFunction]) -> bytes | None:
    """``functions`` with their source keys and blind keys, to remember; None if
    one has no source key."""
    keys = tuple(function.source_key for function in functions)
    if None in keys:
        return None
    blind = tuple(function.blind_keys for function in functions)
    return _pickled((tuple(functions), keys, blind))


def unpickled_part(data: bytes) -> tuple[NativeFunction, ...] | None:
    """The functions :func:`pickled_part` kept, keyed again; None if ``data`` is not such a part."""
    found = _unpickled(data)
    if not isinstance(found, tuple) or len(found) != 3:
        return None
    functions, keys, blind = found
    if (
        not isinstance(functions, tuple)
        or not isinstance(keys, tuple)
        or not isinstance(blind, tuple)
        or not len(functions) == len(keys) == len(blind)
        or not all(type(function) is NativeFunction for function in functions)
        or not all(type(key) is str for key in keys)
        or not all(_blind_keys(keys) for keys in blind)
    ):
        return None
    for function, key, blind_keys in zip(functions, keys, blind, strict=True):
        set_loaded_key(function, key, blind_keys)
    return functions


def _blind_keys(keys: object) -> bool:
    """Whether ``keys`` is what :attr:`~schemac.ir.slots.SourceKeyed.blind_keys` may hold."""
    return keys is None or (
        isinstance(keys, tuple)
        and len(keys) == len(BLIND_ASPECTS)
        and all(type(key) is str for key in keys)
    )


def pickled_entries(entries: Sequence[DerivativeEntry]) -> bytes:
    """A part of derivatives.yaml's entries, to remember."""
    return _pickled(tuple(entries))


def unpickled_entries(data: bytes) -> tuple[DerivativeEntry, ...] | None:
    """The entries :func:`pickled_entries` kept; None if ``data`` is not such a part."""
    entries = _unpickled(data)
    if not isinstance(entries, tuple) or not all(
        type(entry) is DerivativeEntry for entry in entries
    ):
        return None
    return entries


def _pickled(value: object) -> bytes:
    stream = io.BytesIO()
    pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _REDUCERS
    pickler.dump(value)
    return stream.getvalue()


def _unpickled(data: bytes) -> object:
    try:
        return _IrUnpickler(io.BytesIO(data)).load()
    except Exception:  # whatever a damaged memo raises: the part is loaded instead
        return None


_Reduced = tuple[Any, tuple[Any, ...]]


class _Reducers(dict[type, Callable[[Any], _Reduced]]):
    """How each class is pickled, found on first sight of the class.

    An attrs class whose fields are all given positionally to ``__init__`` is
    pickled as its class and the values of those fields (read by one
    ``operator.attrgetter`` call), so unpickling is one call of ``__init__``.
    attrs' own pickling of a slotted class goes through Python-level
    ``__getstate__`` and ``__setstate__`` methods (``object.__setattr__`` per
    field after ``__new__``), and the IR's :class:`~schemac.ir.slots.Views`
    classes' ``__reduce__`` looks their fields up on every call: with these,
    dumping a part costs ~0.6 and loading it ~0.4 of what they did.  Fields
    ``__init__`` does not take (cached spellings) are computed by it again.
    Anything else keeps its own ``__reduce_ex__``.
    """

    def __missing__(self, cls: type) -> Callable[[Any], _Reduced]:
        if issubclass(cls, type):
            # A class (an enum's, whose metaclass is not ``type``): pickled by name.
            raise KeyError(cls)
        if cls is FunctionSchema:
            reducer = _schema_reducer()
        elif attrs.has(cls):
            reducer = _fields_reducer(cls)
        elif issubclass(cls, tuple) and hasattr(cls, "_fields"):
            # A named tuple (spans, ~28,000 of them): one call instead of
            # ``__reduce_ex__`` and ``__getnewargs__``.
            reducer = partial(_named_tuple_reduction, cls)
        else:
            reducer = None
        if reducer is None:
            reducer = _own_reduction
        self[cls] = reducer
        return reducer


def _fields_reducer(cls: type) -> Callable[[Any], _Reduced] | None:
    fields = attrs.fields(cls)
    if any(field.kw_only for field in fields):
        return None
    names = [field.name for field in fields if field.init]
    if not names:
        return None
    if len(names) == 1:
        read_one = operator.attrgetter(names[0])
        return lambda value: (cls, (read_one(value),))
    read = operator.attrgetter(*names)
    return lambda value: (cls, read(value))


def _schema_reducer() -> Callable[[Any], _Reduced] | None:
    """A schema as its fields, and its printed text when it has one (Note [Schemas
    that print as written] in :mod:`schemac.ir.schema`): a recalled schema then
    prints without walking its arguments, as a parsed one does, in each process
    that prints it (~3,700 schemas, ~20 ms a process on torch's files).  The
    unpickler hands the text to :func:`~schemac.ir.schema.remember_text`."""
    fields = _fields_reducer(FunctionSchema)
    if fields is None:
        return None

    def reduce(schema: FunctionSchema) -> Any:
        text = schema.remembered_text
        if text is None:
            return fields(schema)
        cls, values = fields(schema)
        return cls, values, text, None, None, remember_text

    return reduce


def _named_tuple_reduction(cls: type, value: tuple[Any, ...]) -> _Reduced:
    return cls, tuple(value)


def _own_reduction(value: Any) -> _Reduced:
    return value.__reduce_ex__(pickle.HIGHEST_PROTOCOL)  # type: ignore[no-any-return]


_REDUCERS = _Reducers()


class _IrUnpickler(pickle.Unpickler):
    """An unpickler that calls nothing but the IR's classes (and spans') and :data:`_BUILTINS`."""

    def find_class(self, module: str, name: str) -> object:
        if (module, name) in _BUILTINS or (module, name) == _SCHEMA_TEXT:
            return super().find_class(module, name)
        if module.startswith(_IR_PACKAGE) or module == _SPANS_MODULE:
            found = super().find_class(module, name)
            if isinstance(found, type):  # not a function of those modules
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a loaded part")
