"""Reusing a target's files after an edit that target does not read.

Note [Target reuse]
~~~~~~~~~~~~~~~~~~~
Each registry entry says which of the module's input files its output
depends on (``BackendEntry.reads``): the ATen backends read
``native_functions.yaml`` and ``tags.yaml``, the autograd ones
``derivatives.yaml`` too, the Python bindings ``deprecated.yaml``.  A
target's *unit key* hashes the run key (Note [Up-to-date check]), the
target's name and the digest of every input the last run read except the
module's input files none of the target's backends reads.  When a compile
finds, in OUT's state, the same unit key for a target and every file that
target wrote still as recorded, the target is not emitted again: its files
stay as they are, and the compile runs only the passes and backends of the
other targets.  So after an edit of a derivative formula ``-t all`` redoes
the autograd and python targets and leaves the ATen ones (most of the run)
alone.

Why this is the same as a cold run: a target's bytes are a pure function of
the code, the options and the inputs it reads (backends read nothing they
do not declare; a registry entry that declares nothing reads everything),
and which other targets are compiled beside it changes only which passes
run, never the facts it reads.  ``tests/rebuild/test_incremental.py``
compares incremental and cold output on random edits of torch's YAML.

Note [Unit reuse]
~~~~~~~~~~~~~~~~~
The same holds for each emit call of a target, a *unit* (``target/backend``,
``registry.fragment_unit``): the state keeps a unit key per unit (over the
files that backend reads) and records which unit wrote each file.  A target
all of whose units are unchanged is reused as above; of the others, each
unchanged unit whose files are all still as recorded is skipped by the
driver, which keeps its files (``FileReuse.kept_units``) as it keeps a
deferred file: added to the output set without text, so that paths are
checked as in a cold run, listed in the manifest and counted as unchanged.
So after an edit of a derivative formula the ``python`` target runs its
autograd-node getters (they read derivatives.yaml) and keeps its bindings
(which do not).  The passes still run for the whole target: a unit reads
the facts its target's passes provide, and a skipped unit's passes cost
little beside its emission.
"""

from __future__ import annotations

from schemac.digests import hasher, hex_of
from schemac.rebuild.fragments import Segment, Trust
from schemac.rebuild.inputs import file_digest
from schemac.rebuild.state import output_intact, read_state

# Not typing.TYPE_CHECKING: see schemac/__init__.py.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence


class Previous:
    """What OUT's state says the last compile (with the same run key) read and wrote."""

    def __init__(self, text: str, settled_before: int | None = None) -> None:
        #: path -> digest of each file it read.
        self.inputs: dict[str, str] = {}
        #: unit (``target/backend``) -> unit key.
        self.units: dict[str, str] = {}
        #: unit -> its slice key (Note [Unit slices] in ``schemac.backends.reuse``).
        self.slices: dict[str, str] = {}
        #: unit -> (out record, path in OUT) of each file it wrote.
        self.outputs: dict[str, list[tuple[str, str]]] = {}
        #: path in OUT -> (unit, file key, out record) of each deferred file.
        self.file_keys: dict[str, tuple[str, str, str]] = {}
        #: The segments of OUT/.schemac-fragments (Note [Fragment segments]).
        self.fragments: list[Segment] = []
        vouched: tuple[int, int, int, int] | None = None
        for line in text.split("\n")[1:-1]:
            record, _, path = line.partition("\t")
            fields = record.split(" ")
            if fields[0] == "in" and len(fields) == 2:
                self.inputs[path] = fields[1]
            elif fields[0] == "unit" and len(fields) == 3:
                self.units[fields[1]] = fields[2]
            elif fields[0] == "slice" and len(fields) == 3:
                self.slices[fields[1]] = fields[2]
            elif fields[0] == "frag" and len(fields) in (3, 4) and fields[2].isdigit():
                tail = fields[3:] == ["tail"]
                self.fragments.append(Segment(fields[1], int(fields[2]), tail=tail))
            elif fields[0] == "fctx" and len(fields) == 3 and self.fragments:
                last = self.fragments[-1]
                contexts = (*last.contexts, (fields[1], fields[2]))
                self.fragments[-1] = Segment(last.digest, last.size, contexts, last.tail)
            elif fields[0] == "fstat" and len(fields) == 5 and all(f.isdigit() for f in fields[1:]):
                size, mtime, ctime, inode = map(int, fields[1:])
                vouched = (size, mtime, ctime, inode)
            elif fields[0] == "out" and len(fields) == 8 and fields[6] != "-":
                self.outputs.setdefault(fields[6], []).append((record, path))
                if fields[7] != "-":
                    self.file_keys[path] = (fields[6], fields[7], record)

        #: What the state says of the fragments' base (Note [A settled base goes unhashed]).
        self.trust = Trust(vouched, settled_before)

    def records(self) -> dict[str, str]:
        """path in OUT -> its ``out`` record, for every generated file."""
        return {path: record for pairs in self.outputs.values() for record, path in pairs}


def read_previous(out_dir: str, key: Callable[[], str]) -> Previous | None:
    found = read_state(out_dir, key)
    return None if found is None else Previous(*found)


def unit_key(run_key: str, unit: str, digests: Mapping[str, str], unread: Collection[str]) -> str:
    """The unit key of ``unit`` (a target, or ``target/backend``): see Note
    [Target reuse] and Note [Unit reuse].

    ``digests``: path -> digest of every input; ``unread``: the paths of the
    module's input files the unit's backends do not read.
    """
    digest = hasher(f"{run_key}\0{unit}\0".encode())
    for path in sorted(digests):
        if path not in unread:
            digest.update(f"{path}\0{digests[path]}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def file_key(context: str, path: str, local: str) -> str:
    """A deferred file's key in the state: its target's context key (every input
    but the files its inputs cover, :func:`unit_key`), its path and the local key
    its backend computed (Note [File reuse] in ``schemac.backends.reuse``)."""
    data = f"{context}\0{path}\0{local}".encode("utf-8", "surrogateescape")
    return hex_of(data)


def file_intact(previous: Previous, out_dir: str, unit: str, path: str, key: str) -> bool:
    """Whether OUT holds ``path`` as the last run wrote it for ``unit`` with file key ``key``."""
    found = previous.file_keys.get(path)
    if found is None or found[0] != unit or found[1] != key:
        return False
    return output_intact(out_dir, found[2], path)


def files_intact(
    previous: Previous, out_dir: str, unit: str, paths: Sequence[str], key: str
) -> list[bool]:
    """:func:`file_intact` of each of ``paths``, all of one key (the files of a
    group, Note [File groups] in ``schemac.backends.reuse``): one call for the
    thousands of files an edit keeps."""
    file_keys = previous.file_keys
    intact = []
    for path in paths:
        found = file_keys.get(path)
        intact.append(
            found is not None
            and found[0] == unit
            and found[1] == key
            and output_intact(out_dir, found[2], path)
        )
    return intact


def slice_key(context: str, local: str) -> str:
    """A unit's slice key (Note [Unit slices] in ``schemac.backends.reuse``): its
    unit key without ``native_functions.yaml`` (``context``, :func:`unit_key`)
    and the local key of its slice's fingerprint."""
    return hex_of(f"{context}\0slice\0{local}".encode())


def current_digests(paths: Collection[str]) -> dict[str, str] | None:
    """The digest of each file now; None if one cannot be read."""
    digests: dict[str, str] = {}
    for path in paths:
        digest = file_digest(path)
        if digest is None:
            return None
        digests[path] = digest
    return digests


def reusable_files(
    previous: Previous, out_dir: str, unit: str, key: str, *, sliced: bool = False
) -> list[str] | None:
    """The paths ``unit`` wrote last time if they may stay as they are, else None.

    ``key``: the unit key, or with ``sliced`` its slice key (:func:`slice_key`)."""
    if (previous.slices if sliced else previous.units).get(unit) != key:
        return None
    # A unit that wrote nothing (the backend stubs without a backend YAML)
    # writes nothing again: its key covers what it reads.
    records = previous.outputs.get(unit, [])
    if not all(output_intact(out_dir, record, path) for record, path in records):
        return None
    return [path for _, path in records]
