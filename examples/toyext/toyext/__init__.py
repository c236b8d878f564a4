"""toyext: an operator library compiled by schemac from ops.yaml.

Importing the package loads the compiled library (which registers every
``torch.ops.toyext`` operator) and the Python fakes of the operators that
have no Meta kernel.  ``toyext.ops`` holds the generated typed functions.
"""

from pathlib import Path

import torch

_here = Path(__file__).parent
_libraries = sorted(_here.glob("_C*.so")) + sorted(_here.glob("_C*.pyd"))
if not _libraries:
    raise ImportError(f"toyext: no compiled library (_C) next to {__file__}; build the package")
torch.ops.load_library(str(_libraries[0]))

from toyext import fakes as fakes  # noqa: E402  (after the library: it names its ops)
from toyext.ops import *  # noqa: E402, F403
