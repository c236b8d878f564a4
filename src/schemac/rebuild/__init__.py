"""Knowing, in milliseconds, that a compile would change nothing.

Note [Up-to-date check]
~~~~~~~~~~~~~~~~~~~~~~~
A successful ``schemac compile`` records in ``OUT/.schemac-state``
(:mod:`.state`) what it was run with and what it wrote: a *run key* hashing
schemac's version and code, the Python and library versions, the torch it
would find, the working directory and the whole command line
(:mod:`.fingerprint`); the digest of every file it read (the YAML files, a
selection file, torch's files: whatever the run opened, :mod:`.inputs`); and
the size, mtime, ctime and inode of every file it wrote.  The next run with
the same key re-hashes the inputs and ``stat``\\ s the outputs; if all match,
OUT already holds exactly what the compile would write, and the run stops
there (:func:`.noop.up_to_date`), before the front end, the passes, the
backends, Lark or Mako are imported.

Why this is safe:

* Same key and same input bytes means the same compile: schemac's output is a
  pure function of its code, its libraries, its options and the bytes it
  reads (tests/backends/test_compile_cli.py checks byte-identity across
  processes and hash seeds).
* An output whose size, mtime, ctime or inode changed was touched by someone
  and is not trusted: the run goes the full way, which compares every file with
  what it should be and rewrites the differing ones.  ctime cannot be set from
  user space, so a hand edit that restores the mtime is still seen; a file
  replaced by another gets a new inode.
* A file written in the same clock tick as the check that recorded it could
  change again without changing its times (file times come from a coarse
  clock): such "racy" files (git's term) also have their digest recorded and
  are hashed on every check (:mod:`.state`).
* A state that is truncated, edited or from another state format or schemac
  fails its checksum or its key and is ignored.  It only ever *skips* work; a
  missing or distrusted state costs a full run, never a wrong output.

Digests are BLAKE2b's (:mod:`schemac.digests`, which keeps OpenSSL out of
the process).  This package imports only the standard library,
:mod:`schemac.version` and :mod:`schemac.digests`.
"""
