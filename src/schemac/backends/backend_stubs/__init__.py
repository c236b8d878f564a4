"""Out-of-tree backend stubs: torchgen's ``gen_backend_stubs`` job.

From a backend YAML (``schemac compile --backend``, docs/backend_yaml.md) and
the resolved module, three files:

* ``<Backend>NativeFunctions.h``: the class whose static members are the
  kernels the backend writes (:mod:`.header`);
* ``Register<Backend>.cpp`` and ``RegisterAutograd<Backend>.cpp``: wrappers
  and ``TORCH_LIBRARY_IMPL`` registrations (:mod:`.register`), printed by the
  ATen registration machinery (``backends/aten/registrations``) with the
  backend's key traits, plus the out=/in-place wrappers generated from a
  functional kernel (:mod:`.copy_back`).

:mod:`.bind` resolves the YAML's names against the module, :mod:`.plan`
decides each wrapper, :mod:`.impl_check` is ``--impl-path``'s missing-kernel
check and :mod:`.coverage` the ``schemac coverage`` report.
"""
