"""Collecting generated files and committing them to an output directory.

Split in three so that each rule lives in one place: :mod:`.files` (what a
generated file is, which paths are allowed, no path produced twice),
:mod:`.sharding` (stable assignment of items to numbered shard files) and
:mod:`.commit` (atomic write-if-changed, stale-file removal, dry run, depfile).
"""

from schemac.backends.output.commit import (
    MANIFEST_NAME,
    CommitReport,
    commit,
    depfile_text,
    read_manifest,
    write_if_changed,
)
from schemac.backends.output.files import (
    GeneratedFile,
    OutputError,
    OutputSet,
    check_output_path,
    generated_banner,
)
from schemac.backends.output.sharding import EVERYTHING_SUFFIX, ShardedFile, shard_index, sharded

__all__ = [
    "EVERYTHING_SUFFIX",
    "MANIFEST_NAME",
    "CommitReport",
    "GeneratedFile",
    "OutputError",
    "OutputSet",
    "ShardedFile",
    "check_output_path",
    "commit",
    "depfile_text",
    "generated_banner",
    "read_manifest",
    "shard_index",
    "sharded",
    "write_if_changed",
]
