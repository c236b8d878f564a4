"""The ``autograd`` target: backward nodes, autograd/tracer kernels, view funcs.

One module per output family (``functions`` for Functions.h/.cpp,
``variable_type``, ``inplace_or_view``, ``trace_type``, ``view_funcs``,
``factories``), each reading only the resolved IR: the derivative-matching
pass's :class:`~schemac.ir.autograd.AutogradTable` and the ATen signature
views.  See docs/autograd.md.
"""
