"""Run the pipeline on small YAML and collect its diagnostics as (line, col, message)."""

from __future__ import annotations

from schemac.diagnostics import PassError
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline


def run(module: Module, stop_after: str | None = None) -> Module:
    return run_pipeline(module, verify=True, stop_after=stop_after).module


def pass_errors(module: Module, stop_after: str | None = None) -> list[tuple[int, int, str]]:
    try:
        run_pipeline(module, verify=True, stop_after=stop_after)
    except PassError as error:
        return [(d.span.line, d.span.column, d.message) for d in error.diagnostics]
    raise AssertionError("the pipeline raised no PassError")
