"""The ``extension`` target: an operator library as a torch C++ extension.

ATen's layout (``ATen/Functions.h``, ``TensorBody.h``) cannot serve a library
built outside PyTorch: with ``-I OUT`` those files would shadow torch's own.
This backend writes everything under ``OUT/<ns>/`` instead, reusing the ATen
signature views and registration wrappers, and adds what an extension needs
beyond them: a ``TORCH_LIBRARY`` of its own, autograd nodes registered for the
Autograd key, header-only typed C++ handles and a Python module.  See
docs/extension.md.
"""
