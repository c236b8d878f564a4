"""Mako templates for file skeletons, fed one typed view object.

Every backend keeps its templates as package data in a ``templates/`` folder
next to its modules (``schemac/backends/aten/templates/*.mako``); they ship in
the wheel with the package.  A template lays out a file: the banner, includes,
namespace blocks and loops over the view's items.  The C++ of each item is
printed by Python (:mod:`schemac.backends.cppmodel` and the backends' views),
never assembled in the template.

Two rules keep templates honest:

* ``strict_undefined=True``: a name the template uses but the view lacks is an
  error at render time, not an empty string in the output.
* A template receives exactly one object, ``view``, which must be an attrs
  instance: a typed record whose fields are documented and checked, rather than
  a dictionary of strings assembled at the call site.  The banner
  (``@generated`` line) is passed by the renderer as ``banner``.

Mako syntax to remember when writing C++ templates: a line starting with ``%``
is a control line and ``##`` starts a template comment, so C++'s token-pasting
``##`` must be written ``${'##'}``; ``\\`` at the end of a line joins lines
unless doubled.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

import attrs
import mako
from mako.lookup import TemplateLookup

from schemac.backends.output.files import generated_banner
from schemac.cachedir import cache_subdir, content_key
from schemac.ir.module import Module

TEMPLATE_DIR_NAME = "templates"


def module_sources(module: Module, *, derivatives: bool = False) -> tuple[str, ...]:
    """The input files an output of ``module`` depends on, for its banner.

    Native functions and tags always; derivatives and deprecated signatures
    only for outputs that read them (``derivatives=True``).
    """
    src = module.sources
    files = [src.native_functions, src.tags]
    if derivatives:
        files += [src.derivatives, src.deprecated]
    return tuple(f for f in files if f)


def _compiled_template_dir(directory: Path) -> Path | None:
    """Where Mako keeps the compiled modules of the templates in ``directory``.

    Compiling a backend's templates costs tens of milliseconds per run.  The
    directory name hashes every template's name and text and the Mako and
    Python versions, so an edited template gets a fresh directory.
    """
    pieces: list[str | bytes] = [mako.__version__, sys.version]
    for path in sorted(directory.glob("*.mako")):
        pieces += [path.name, path.read_bytes()]
    base = cache_subdir("templates")
    if base is None:
        return None
    compiled = base / content_key(pieces)
    try:
        compiled.mkdir(exist_ok=True, mode=0o700)
    except OSError:
        return None
    return compiled


def template_dir(package: str) -> Path:
    """The ``templates/`` folder of ``package`` (a backend's package name)."""
    return Path(str(resources.files(package) / TEMPLATE_DIR_NAME))


class Templates:
    """The templates of one backend package; compiled templates are kept per instance."""

    def __init__(self, package: str) -> None:
        directory = template_dir(package)
        if not directory.is_dir():
            raise FileNotFoundError(f"{package} has no {TEMPLATE_DIR_NAME}/ folder at {directory}")
        self.package = package
        self.directory = directory
        compiled = _compiled_template_dir(directory)
        self._lookup = TemplateLookup(
            directories=[str(directory)],
            strict_undefined=True,
            input_encoding="utf-8",
            # The compiled-module directory is keyed by the templates' content,
            # so Mako need not compare modification times.
            filesystem_checks=False,
            module_directory=str(compiled) if compiled is not None else None,
        )

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(p.name for p in self.directory.glob("*.mako")))

    def render(self, name: str, view: object, *, sources: Iterable[str] = ()) -> str:
        """Render template ``name`` with ``view`` and a banner naming ``sources``.

        The banner names the template without its ``.mako`` suffix, i.e. the
        file kind (``RegisterSchema.cpp``).
        """
        if not attrs.has(type(view)):
            raise TypeError(
                f"template {name} must be rendered with an attrs view object,"
                f" not {type(view).__name__}"
            )
        template = self._lookup.get_template(name)
        banner = generated_banner(name.removesuffix(".mako"), sources)
        text: str = template.render_unicode(view=view, banner=banner)
        return text
