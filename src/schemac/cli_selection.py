"""``--select FILE`` for subcommands that run the pass pipeline.

Selective build is one pass (``selective-build``) whose option is the
selection; this module reads the file and puts it into that pass, so a
subcommand only adds the argument and hands its pass manager through
:func:`with_selection`.  A malformed selection file raises InputError, which
the CLI prints like any other input error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import attrs

from schemac.frontend.selection import load_selection
from schemac.passes.manager import PassManager
from schemac.passes.selective_build import SelectiveBuild


def add_select_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--select",
        type=Path,
        metavar="FILE",
        help="selective build: a selected_operators.yaml, a YAML list or a text file of "
        "operator names; keep only those operators (and what they need)",
    )


def with_selection(manager: PassManager, path: Path | None) -> PassManager:
    """``manager`` with the selection of ``path`` (if any) given to selective-build."""
    if path is None:
        return manager
    selection = load_selection(path)
    return PassManager(
        tuple(
            attrs.evolve(p, selection=selection) if isinstance(p, SelectiveBuild) else p
            for p in manager.passes
        )
    )
