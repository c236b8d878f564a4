## Types that the defaults of the at:: C++ API name (MemoryFormat, Scalar,
## Reduction); everything else is only declared, via ATen_fwd.h.
#include <c10/core/MemoryFormat.h>
#include <c10/core/Scalar.h>
#include <ATen/core/Reduction.h>
