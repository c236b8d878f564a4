"""ATen's dispatcher registrations and the C++ that goes with them.

One module per output family, each registered as a backend in
:mod:`schemac.backends.registry`:

* :mod:`.targets` -> ``Register<Key>_<n>.cpp`` for the dispatch-key targets,
  built by :mod:`.register_key` from :mod:`.plan` (which wrapper each operator
  gets), :mod:`.wrappers` and :mod:`.structured` (the C++ of each wrapper),
  :mod:`.helpers` and :mod:`.keys` (per-key facts);
* :mod:`.operators` -> ``Operators_<n>.cpp`` (``headers`` target);
* :mod:`.backend_select` -> ``RegisterBackendSelect.cpp`` (``schema`` target);
* :mod:`.view_copy` -> ``CompositeViewCopyKernels.cpp`` (``composite`` target).

:mod:`.translate` passes arguments between signature views.  See
docs/backends.md, "Registration backends".
"""
