"""Emitters of ATen's C++ headers (the ``headers`` target).

One module per family of output files; each turns the :class:`.catalog.Catalog`
into typed view objects that a Mako template in ``templates/`` lays out.
:mod:`.backend` ties them together and is what the backend registry loads.
"""
