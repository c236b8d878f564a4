"""The ``declarations`` target: ``Declarations.yaml``, every operator as data.

External binding generators (language bindings, tracing and export tools)
read this file instead of parsing native_functions.yaml themselves: each
operator with its C++ API arguments, its schema-order arguments, its returns
and the dispatch facts a binding needs.  See docs/declarations.md.
"""
