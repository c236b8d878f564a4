"""The ``python`` target: C++ source for PyTorch's Python bindings of ATen operators.

PyTorch binds every operator name once: a single ``THPVariable_<name>``
function parses its Python arguments against all overloads' *parser
signatures* (``add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)``)
and dispatches to the matching C++ overload.  The modules here compute those
signatures (:mod:`.signatures`, :mod:`.deprecated`, :mod:`.overloads`), decide
which Python module each operator lands in (:mod:`.routing`, :mod:`.skips`),
bind parsed arguments to C++ calls (:mod:`.dispatch`) and render the files
(:mod:`.emit`).  docs/python.md walks one operator through all of it.
"""
