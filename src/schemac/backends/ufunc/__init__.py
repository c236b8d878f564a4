"""The ``ufunc`` target: CPU and CUDA kernels of operators with ``ufunc_inner_loop``.

An operator such as ``add.out`` names elementwise inner loops
(``Generic: add (AllAndComplex, BFloat16, Half)``, ``ScalarOnly: add (Bool)``)
instead of kernels; resolve-dispatch gives it structured ``ufunc_add_CPU`` /
``ufunc_add_CUDA`` kernels, and this target writes them: per operator
``UfuncCPU_<op>.cpp`` (the impl and its dispatch stub), ``UfuncCPUKernel_<op>.cpp``
(the per-dtype TensorIterator loops, compiled with CPU vector flags) and
``UfuncCUDA_<op>.cu``.  See docs/ufunc.md.
"""
