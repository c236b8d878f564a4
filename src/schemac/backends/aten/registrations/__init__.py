"""ATen's dispatcher registrations: ``Register<Key>.cpp`` and their companions.

Each output family has its own module: :mod:`.register_key` (one dispatch
key's wrappers, registrations and ``at::<key>::`` functions), built from
:mod:`.plan` (which wrapper each operator gets), :mod:`.wrappers` and
:mod:`.structured` (the C++ of each wrapper), :mod:`.helpers` and
:mod:`.keys` (per-key facts).  :mod:`.targets` names the ``-t`` targets.
See docs/backends.md, "Registration backends".
"""
