"""The ATen backend: C++ headers, registrations and kernels' signatures.

``signatures`` holds the views (how one operator looks in each C++ API);
the emitter packages beside it (``headers``, registrations) only consume them.
"""
