"""Python fakes for operators whose output size depends on the data.

A Meta kernel computes output shapes from input shapes alone, which
``nonzero_rows`` cannot do: how many rows survive depends on the values.
Its fake asks for a fresh *unbacked* symbolic size instead, which is how
torch.compile and opcheck trace it (see docs/extension.md).
"""

import torch


@torch.library.register_fake("toyext::nonzero_rows")
def _nonzero_rows_fake(self: torch.Tensor) -> torch.Tensor:
    torch._check(self.dim() == 2, lambda: "toyext::nonzero_rows: expected a matrix")
    rows = torch.library.get_ctx().new_dynamic_size()
    return self.new_empty((rows, self.shape[1]))
