"""Per-file reuse: a backend names a file and the IR it reads before rendering it.

Note [File reuse]
~~~~~~~~~~~~~~~~~
A backend may yield, instead of a :class:`~schemac.backends.output.GeneratedFile`,
a :class:`Deferred` file: its path, the *inputs* its text is made from, and a
``render`` function that makes the text from them.  The driver digests the
inputs (:func:`fingerprint`) into the file's *local key*
(:func:`local_key`: the backend, the render function's qualified name, the
path and that digest) and asks the run's :class:`FileReuse` whether OUT still
holds what the last run rendered for the same key; if so the file is kept,
neither rendered nor opened (the state record says its bytes are intact), and
otherwise it is rendered.

The rules that make this the same as a cold run:

* ``render`` is a module-level function, called as ``render(context, inputs)``
  (the driver refuses a closure or a lambda: it would read what its cell
  holds, which no key covers).  ``inputs`` must hold every value of the
  module the text depends on, module-wide facts included (the list of
  dispatch keys every ``_native.h`` declares, say); ``context`` only what is
  fixed for the whole run by the code, the options and the input files other
  than ``native_functions.yaml`` (the templates, the release profile, caches
  of pure functions such as the view table).  The state's key for the file
  (``compile_record``) adds to the local key everything that fixes
  ``context``: the run key and the digest of every input file but
  ``native_functions.yaml``, the one file whose edits must be covered by
  ``inputs``.
* :func:`fingerprint` digests an IR value the way ``==`` compares it: attrs
  classes by their ``eq`` fields (source positions are not compared, and no
  backend prints one), tuples in order, frozensets sorted, enums by name;
  :class:`~schemac.ir.schema.FunctionSchema` and
  :class:`~schemac.ir.names.OperatorName` by their canonical text, which the
  grammar parses back to an equal value.  A class whose other fields are
  pure functions of a few (a backend's view of a function) names those in a
  ``reuse_fields`` class attribute.  Any other type is a programming error
  (``TypeError``), never a silent guess.

A backend that yields plain files is not affected: its files are rendered on
every run and compared with OUT by the commit.

Note [Unit slices]
~~~~~~~~~~~~~~~~~~
Deferred files and fragments save the rendering of what an edit did not
change, but the emit call still runs: it plans, keys every file and piece,
looks each up and joins the texts, and the commit compares them.  After an
edit of one operator most emit calls cannot print it at all (a
``CompositeImplicitAutograd`` operator appears in no ``RegisterCUDA.cpp``).
So a registry entry may name a *slice* (``BackendEntry.slice``): a
module-level function ``slice(module, options)`` returning every value of
the module the call's files are made from, under the rules of Note [File
reuse] (``options`` gives the target, the run's memo, the release profile:
what the run context fixes).  Before emitting, the driver fingerprints the
slice with the run's :class:`Fingerprints` (the functions and resolutions
are remembered, so a slice of a few hundred of them is a few hundred
digests joined) and asks :meth:`FileReuse.keep_slice`: the unit's *slice
key* is its unit key with the slice's fingerprint in place of
``native_functions.yaml`` (every other file it reads, the run key and the
target stay in).  When the last run recorded the same slice key and the
unit's files are all as it wrote them, the call is not made and its files
are kept, as a kept unit's are (Note [Unit reuse]).

Soundness is the backend's: its files must be a function of its slice and
the run context (code, options, release, every other input file).  A value
read but left out of the slice is a stale file after an edit of it; the
property test (``tests/rebuild/test_incremental.py``) compiles the sliced
targets on random edits against cold runs.  Each slice function says in its
docstring why its emit call reads nothing else.  A backend without a slice
runs after every edit of what it reads, as before.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import attrs

from schemac.backends.output.files import GeneratedFile
from schemac.diagnostics import NO_SPAN, Span
from schemac.digests import hex_of, inner_hex_of
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import Resolution
from schemac.ir.schema import FunctionSchema
from schemac.ir.slots import BLIND_ASPECTS, SourceKeyed


@attrs.frozen
class Deferred:
    """A file a backend can name, with what it reads, before rendering it."""

    path: str
    #: ``render(context, inputs) -> text``: a module-level function.
    render: Callable[[Any, Any], str]
    #: Every module value the text is made from (fingerprinted).
    inputs: object
    #: What the render needs that the run fixes (templates, views; not fingerprinted).
    context: object = attrs.field(default=None, eq=False)
    span: Span = attrs.field(default=NO_SPAN, eq=False)

    def made(self) -> GeneratedFile:
        return GeneratedFile(self.path, self.render(self.context, self.inputs), span=self.span)


@attrs.frozen
class DeferredGroup:
    """Deferred files keyed as one: kept together when none of their inputs changed.

    Note [File groups]
    ~~~~~~~~~~~~~~~~~~
    A backend that defers thousands of files, most of them made from the same
    few values (an operator family's ``_ops.h``, ``.h``, ``_native.h`` and
    ``_meta.h``; a root's ``_dispatch.h`` of every key), paid a key for each
    (~7,600 on torch's headers) after an edit that changes a handful.  A group
    is one key for its files (:meth:`Fingerprints.group_key`): the backend,
    then each file's path, render function and inputs in order, so the key
    covers everything each file's key would (Note [File reuse]) and more.
    Each file is still recorded on its own, with the group's key: a file is
    kept when the last run rendered it under an equal key, meaning the same
    files from the same inputs, and OUT still holds it as written; otherwise it
    is rendered (a file of the group hand-edited or deleted is rendered alone).
    An edit of any input of the group renders every file of it: a few files
    too many (the family's ``_dispatch.h`` of a key that does not declare the
    edited function), each compared with OUT and left alone if unchanged.

    A group is its files' parts side by side (paths, render functions,
    inputs), with one context and span for all, not a tuple of
    :class:`Deferred`: after an edit nearly every group is kept, and a
    :class:`Deferred` built for each of its files (7,574 on torch's headers)
    was then read for its path and inputs only.  :meth:`file` makes one for a
    file that is rendered.
    """

    paths: tuple[str, ...]
    #: ``render(context, inputs) -> text`` of each file: module-level functions.
    renders: tuple[Callable[[Any, Any], str], ...]
    #: Every module value each file's text is made from (fingerprinted).
    inputs: tuple[object, ...]
    #: What the renders need that the run fixes (not fingerprinted).
    context: object = attrs.field(default=None, eq=False)
    span: Span = attrs.field(default=NO_SPAN, eq=False)

    @classmethod
    def of(cls, files: Sequence[Deferred]) -> DeferredGroup:
        """The group of ``files``, which share their context and span."""
        context = files[0].context if files else None
        span = files[0].span if files else NO_SPAN
        if any(f.context is not context or f.span != span for f in files):
            raise ValueError("the files of a group share one context and one span")
        return cls(
            tuple(f.path for f in files),
            tuple(f.render for f in files),
            tuple(f.inputs for f in files),
            context,
            span,
        )

    def file(self, index: int) -> Deferred:
        """The ``index``-th file of the group."""
        return Deferred(
            self.paths[index], self.renders[index], self.inputs[index], self.context, self.span
        )

    @property
    def files(self) -> tuple[Deferred, ...]:
        return tuple(self.file(index) for index in range(len(self.paths)))


def rendered(file: GeneratedFile | Deferred) -> GeneratedFile:
    """``file`` with its text: a deferred one rendered (for callers that keep nothing)."""
    return file.made() if isinstance(file, Deferred) else file


def rendered_files(
    files: Iterable[GeneratedFile | Deferred | DeferredGroup],
) -> Iterator[GeneratedFile]:
    """Each of ``files`` with its text, a group's in order (:func:`rendered`)."""
    for file in files:
        if isinstance(file, DeferredGroup):
            yield from (member.made() for member in file.files)
        else:
            yield rendered(file)


@attrs.frozen(eq=False)
class Blind:
    """A slice (Note [Unit slices]) keyed blind to one aspect of the entries
    (Note [Keys blind to an aspect] in :mod:`schemac.ir.slots`): every value in
    it that has a blind key for ``aspect`` is encoded as that key, every other
    one as usual.  A unit's slice is wrapped so when the registry says the
    unit's files do not depend on that aspect (``BackendEntry.blind_to``)."""

    aspect: str
    value: object


class FragmentStore(Protocol):
    """Where fragments of the last run are found and this run's are left
    (``compile_record``; Note [Fragment reuse])."""

    def fragment(self, target: str, local: str) -> str | None:
        """The text the last run rendered for ``local`` in ``target``'s context, if
        that context is this run's."""
        ...

    def remember(self, target: str, local: str, text: str) -> None:
        """Record a fragment of this run for the next one."""
        ...


class Fragments:
    """Rendering the pieces of an aggregate file through the fragment store.

    Note [Fragment reuse]
    ~~~~~~~~~~~~~~~~~~~~~
    A file made of one piece per operator (a registration shard, the autograd
    kernels, ``Declarations.yaml``, an aggregate header) is rendered again
    after every edit of ``native_functions.yaml``, although only the pieces
    of the edited operators can change.  A backend renders each piece through
    :meth:`text`: ``render(context, inputs)`` under the rules of Note [File
    reuse] (a module-level function; ``inputs`` every module value the piece
    depends on; ``context`` what the run fixes).  The piece's *local key* is
    the render function's qualified name and the fingerprint of ``inputs``;
    the store keeps, per target, the context key the last run's pieces were
    rendered in (the target's unit key without ``native_functions.yaml``) and
    returns a text only when that context is this run's.  So a reused piece
    is the text the same function made from equal inputs in the same context:
    the aggregate is byte-identical to a cold run's, and is then compared with
    OUT and written like any other file.  Without a store (``--dry-run``,
    ``SCHEMAC_NO_STATE``, library callers) every piece is rendered.

    Fragments are for pieces costly enough to beat their fingerprint; the
    fingerprints of a run share their remembered values (the driver hands
    every target's ``Fragments`` one :class:`Fingerprints`: one module, so one
    digest per function however many targets and pieces read it).
    """

    def __init__(
        self,
        store: FragmentStore | None = None,
        target: str = "",
        fingerprints: Fingerprints | None = None,
    ) -> None:
        self._store = store
        self._target = target
        self._fingerprints = Fingerprints() if fingerprints is None else fingerprints
        self._checked: set[object] = set()

    def text(
        self, render: Callable[[Any, Any], str], inputs: object, context: object = None
    ) -> str:
        store = self._store
        if store is None:
            return render(context, inputs)
        if render not in self._checked:
            _check_function(render, "a fragment")
            self._checked.add(render)
        local = self._fingerprints.key([], render, inputs)
        found = store.fragment(self._target, local)
        if found is None:
            found = render(context, inputs)
        store.remember(self._target, local, found)
        return found


class FileReuse(FragmentStore, Protocol):
    """What the driver asks of a run that may keep files and fragments (``compile_record``)."""

    def keep(self, unit: str, path: str, local: str) -> bool:
        """Whether OUT still holds the file ``path`` of ``unit`` (``target/backend``)
        as last rendered with local key ``local``; the answer is remembered for
        the next run's state."""
        ...

    def keep_group(self, unit: str, paths: Sequence[str], local: str) -> list[bool]:
        """For each of ``paths``, the files of a :class:`DeferredGroup` of ``unit``
        keyed ``local`` (Note [File groups]): whether OUT holds it as last rendered
        under the same key.  Remembered for the next run's state, like :meth:`keep`."""
        ...

    def kept_units(self) -> Mapping[str, Sequence[str]]:
        """The emit calls (``target/backend``) of targets still run whose files
        OUT holds as this run would write them, with those files' paths
        (Note [Unit reuse] in :mod:`schemac.rebuild.reuse`)."""
        ...

    def keep_slice(self, unit: str, local: str) -> Sequence[str] | None:
        """The files of ``unit`` (``target/backend``) OUT holds as the last run
        wrote them from a slice of local key ``local`` in the same context, or
        None: then the unit is emitted (Note [Unit slices]).  The key is
        remembered for the next run's state either way."""
        ...

    def slice_unchanged(self, unit: str, local: str) -> bool:
        """Whether :meth:`keep_slice` would keep ``unit``'s files now; records
        nothing (Note [Late passes skipped] in :mod:`schemac.backends.driver`)."""
        ...

    def before_fork(self) -> bool:
        """Read now what each process of a split would read on its own (the
        fragment store and its index), so that a child forked next inherits
        it (Note [Digests shared with the child] in :mod:`schemac.backends.driver`).
        Whether there was a store: without one (a first compile) nothing is reused."""
        ...

    def child_handover(self) -> object | None:
        """In a forked child (Note [Split emission]): what this process's record
        learnt that the parent's must know (the fragments it used, the files it
        read), closed and handed over for :meth:`adopt_handover` (None:
        nothing).  A picklable token; the fragments' texts stay on disk."""
        ...

    def adopt_handover(self, token: object | None) -> None:
        """Take into this run's record what a child's :meth:`child_handover` gave."""
        ...


#: Values read by many files, whose encodings a run remembers (small ones are
#: encoded again: remembering every node would cost more than it saves).
_REMEMBERED = frozenset({NativeFunction, Resolution})

_Encode = Callable[[Any, list[str]], None]


class Fingerprints:
    """:func:`fingerprint` for one run over one module, remembering what it encoded.

    Values are encoded into a list of strings that is hashed once.  The
    encoder of each type is made on first use; a :data:`_REMEMBERED` value
    (or one of a class with ``reuse_fields``) is encoded as the digest of its
    own encoding, kept by id with the value itself so that its id is not
    reused while this object lives.
    """

    def __init__(self, blind_to: str | None = None) -> None:
        #: The position in BLIND_ASPECTS of the aspect keys are blind to, if any
        #: (the fingerprints a :class:`Blind` value is encoded by).
        self._blind = None if blind_to is None else BLIND_ASPECTS.index(blind_to)
        #: Aspect -> the fingerprints encoding :class:`Blind` values of it.
        self._blind_fingerprints: dict[str, Fingerprints] = {}
        #: id -> the encoding of a remembered value; ``_pinned`` keeps each such
        #: value alive, so that its id is not reused while this object lives.
        self._memo: dict[int, str] = {}
        self._pinned: list[object] = []
        self._render_names: dict[Callable[[Any, Any], object], str] = {}
        self._encoders: dict[type, _Encode] = {
            str: _string,
            int: _atom,
            bool: _atom,
            float: _atom,
            type(None): _atom,
            tuple: self._sequence,
            list: self._sequence,
            frozenset: self._set,
            FunctionSchema: _text,
            OperatorName: _text,
            Span: _skip,
            Blind: self._blind_value,
        }

    def remember_all(self, values: Iterable[object]) -> None:
        """Encode each of ``values`` (of :data:`_REMEMBERED` classes or with
        ``reuse_fields``) now, so that a process forked after this call finds
        them remembered (Note [Digests shared with the child] in
        :mod:`schemac.backends.driver`)."""
        parts: list[str] = []
        for value in values:
            self.add(value, parts)
            parts.clear()

    def release(self) -> None:
        """Forget every remembered encoding; use a fresh instance after this.

        The encoders refer back to this object and to their own table (bound
        methods, closures over it): a reference cycle, which would keep every
        pinned value (a run's catalog entries and views) alive until a cyclic
        collection, and a compile runs none (Note [Views dropped with the run]
        in :mod:`schemac.backends.driver`)."""
        for blind in self._blind_fingerprints.values():
            blind.release()
        self._blind_fingerprints.clear()
        self._encoders.clear()
        self._memo.clear()
        self._pinned.clear()

    def of(self, value: object) -> str:
        """The digest of ``value`` as ``==`` sees it (Note [File reuse])."""
        parts: list[str] = []
        self.add(value, parts)
        return _digest(parts)

    def local_key(self, backend: str, file: Deferred) -> str:
        """The file's key within a run context: backend, render function, path, inputs.

        One digest per file: the encoding of the inputs follows the three
        fixed parts directly (it reads back unambiguously, see :func:`_digest`),
        and the families most inputs are made of are remembered, so a file
        costs little more than hashing a few strings."""
        return self.key(
            ["\x01" + backend, f"{len(file.path)}:{file.path}"], file.render, file.inputs
        )

    def group_key(self, backend: str, group: DeferredGroup) -> str:
        """The local key of a :class:`DeferredGroup` (Note [File groups]): the
        backend, then each file's path, render function and inputs.  Each file's
        parts read back unambiguously (a length-prefixed path, a ``\\x01`` name,
        a value's encoding), so two groups share a key only if they name the same
        files made by the same functions from equal inputs."""
        head = ["\x01group", "\x01" + backend]
        append = head.append
        names = self._render_names
        add = self.add
        for path, render, inputs in zip(group.paths, group.renders, group.inputs, strict=True):
            append(f"{len(path)}:{path}")
            name = names.get(render)
            if name is None:
                name = names[render] = f"\x01{render.__module__}.{render.__qualname__}"
            append(name)
            add(inputs, head)
        return _digest(head)

    def key(self, head: list[str], render: Callable[[Any, Any], object], inputs: object) -> str:
        """The digest of the encoded parts ``head``, the render function's qualified
        name and the encoding of ``inputs``: a file's or a fragment's local key
        (or a slice's, with the slice function: Note [Unit slices])."""
        name = self._render_names.get(render)
        if name is None:
            name = self._render_names[render] = f"\x01{render.__module__}.{render.__qualname__}"
        head.append(name)
        self.add(inputs, head)
        return _digest(head)

    def add(self, value: object, out: list[str]) -> None:
        kind = type(value)
        encoder = self._encoders.get(kind)
        if encoder is None:
            encoder = self._encoders[kind] = self._encoder_for(kind)
        encoder(value, out)

    # The encoders below inline the common leaves (strings, None, flags) and
    # look the others' encoders up directly: keys are made by the ten
    # thousand, and a call per node was most of their cost.

    def _sequence(self, value: Any, out: list[str]) -> None:
        append = out.append
        encoders = self._encoders
        append("\x01(")
        for item in value:
            kind = type(item)
            if kind is str:
                append(f"{len(item)}:{item}")
            else:
                encoder = encoders.get(kind)
                if encoder is None:
                    self.add(item, out)
                else:
                    encoder(item, out)
        append("\x01)")

    def _blind_value(self, value: Any, out: list[str]) -> None:
        # A marker naming the aspect, then the value as the blind fingerprints
        # encode it (their own memo: a remembered encoding embeds the keys).
        aspect = value.aspect
        blind = self._blind_fingerprints.get(aspect)
        if blind is None:
            blind = self._blind_fingerprints[aspect] = Fingerprints(aspect)
        out.append(f"\x01blind {aspect}")
        blind.add(value.value, out)

    def _set(self, value: Any, out: list[str]) -> None:
        # Sorted encodings of the items: an item encoded as one part (a string,
        # an enum, an atom: the sets of the IR) as itself, any other as the
        # digest of its parts, so that each item is one part to sort.
        encoded = []
        for item in value:
            if type(item) is str:
                encoded.append(f"{len(item)}:{item}")
                continue
            inner: list[str] = []
            self.add(item, inner)
            encoded.append(inner[0] if len(inner) == 1 else "\x01#" + _digest(inner))
        out.append("\x01{")
        out.extend(sorted(encoded))
        out.append("\x01}")

    def _encoder_for(self, kind: type) -> _Encode:
        name = f"\x01{kind.__module__}.{kind.__qualname__}"
        if issubclass(kind, enum.Enum):
            names = {member: f"{name}.{member.name}" for member in kind}
            return lambda value, out: out.append(names[value])
        if attrs.has(kind):
            return self._attrs_encoder(kind, name)
        if issubclass(kind, tuple) and kind is not tuple:  # a named tuple

            def encode_tuple(value: object, out: list[str]) -> None:
                out.append(name)
                self._sequence(value, out)

            return encode_tuple
        raise TypeError(f"cannot fingerprint a {name} for file reuse")

    def _attrs_encoder(self, kind: type, name: str) -> _Encode:
        declared = getattr(kind, "reuse_fields", None)
        fields = (
            tuple(declared)
            if declared is not None
            else tuple(f.name for f in attrs.fields(kind) if f.eq)
        )
        getter = _fields_getter(fields)
        encoders = self._encoders
        add = self.add

        def encode(value: object, out: list[str]) -> None:
            append = out.append
            append(name)
            for item in getter(value):
                kind = type(item)
                if kind is str:
                    append(f"{len(item)}:{item}")
                elif item is None:
                    append("\x01None")
                elif kind is bool:
                    append("\x01True" if item else "\x01False")
                else:
                    encoder = encoders.get(kind)
                    if encoder is None:
                        add(item, out)
                    else:
                        encoder(item, out)

        if declared is None and kind not in _REMEMBERED:
            return encode
        memo = self._memo
        pinned = self._pinned

        def remembered(value: object, out: list[str]) -> None:
            found = memo.get(id(value))
            if found is None:
                parts: list[str] = []
                encode(value, parts)
                found = memo[id(value)] = "\x01#" + _inner_digest(parts)
                pinned.append(value)
            out.append(found)

        # A value that may carry a source key is encoded as that key when it has
        # one (Note [Functions keyed by their source] in ir/native.py): its root
        # and path as parts of their own, never joined (Note [Derived keys kept
        # as a path] in ir/slots.py).  A path is "" or starts with "+", which no
        # part that may follow does, so the parts still read back unambiguously.
        if not issubclass(kind, SourceKeyed):
            return remembered

        slot = 0 if self._blind is None else self._blind + 1

        def by_source(value: Any, out: list[str]) -> None:
            parts = value.key_parts(slot)
            if parts is None:
                remembered(value, out)
                return
            root, path = parts
            # "@", not "#": a source key never equals a walked encoding's digest.
            out.append("\x01@")
            out.append(root)
            if path:
                out.append(path)

        return by_source


def _fields_getter(fields: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """A function giving an object's ``fields`` as a tuple: one C call for two or more."""
    if len(fields) > 1:
        return operator.attrgetter(*fields)
    if fields:
        single = operator.attrgetter(fields[0])
        return lambda value: (single(value),)
    return lambda value: ()


def _string(value: Any, out: list[str]) -> None:
    out.append(f"{len(value)}:{value}")


def _atom(value: object, out: list[str]) -> None:
    out.append(f"\x01{value!r}")


def _text(value: object, out: list[str]) -> None:
    _string(str(value), out)


def _skip(value: object, out: list[str]) -> None:
    return None


def _inner_digest(parts: list[str]) -> str:
    """:func:`_digest` in 128 bits, for a remembered encoding.

    Note [Remembered encodings kept small]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A run's :class:`Fingerprints` remembers ~23,000 encodings on torch's
    ``-t headers`` (functions, resolutions, views with ``reuse_fields``), alive
    through the whole emission: as ``"\\x01#"`` and a 64-digit digest, or
    ``"\\x01@"`` and a copy of the value's source key, they were ~2.4 MiB at its
    peak.  A walked encoding's digest is only ever hashed again into a key, so
    128 bits (32 digits) are enough; a source key is not kept at all: its
    marker, root and path are appended as parts of their own (Note [Derived
    keys kept as a path] in :mod:`schemac.ir.slots`).  Both change every key,
    which the code digest in the run key does anyway.
    """
    return inner_hex_of("\0".join(parts).encode("utf-8", "surrogatepass"))


def _digest(parts: list[str]) -> str:
    """The digest (:func:`schemac.digests.hex_of`) of ``parts`` joined by
    ``\\0``.  Strings are length-prefixed (``3:abc``); every other part (a
    marker of structure, a type name, a non-string atom, a digest) starts with
    ``\\x01`` and holds no ``\\0``.  So the text is read back unambiguously:
    no string can imitate another value, whatever characters it holds."""
    return hex_of("\0".join(parts).encode("utf-8", "surrogatepass"))


def fingerprint(value: object) -> str:
    """The digest of ``value`` as ``==`` sees it (Note [File reuse])."""
    return Fingerprints().of(value)


def check_render(file: Deferred) -> None:
    """Refuse a render function that could read values no key covers."""
    _check_function(file.render, file.path)


def check_slice(function: Callable[[Any, Any], object], unit: str) -> None:
    """Refuse a slice function that could read values no key covers (Note [Unit slices])."""
    _check_function(function, f"{unit}'s slice")


def _check_function(render: Callable[[Any, Any], object], what: str) -> None:
    if (
        getattr(render, "__closure__", True) is not None
        or "<" in getattr(render, "__qualname__", "<")
        or getattr(render, "__self__", None) is not None
    ):
        raise TypeError(
            f"{what}: a deferred render or a slice must be a module-level function "
            f"(Note [File reuse]), not {render!r}"
        )
