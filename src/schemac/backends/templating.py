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

Note [Compiled template bundles]
    Mako turns a template into a Python module.  Compiling the templates of a
    backend costs tens of milliseconds, and importing Mako's generated
    modules from source costs more again when bytecode is not written
    (``PYTHONDONTWRITEBYTECODE``).  So the code objects of all templates of
    one ``templates/`` folder are kept in one marshalled file in schemac's
    cache (:mod:`schemac.cachedir`), named by a hash of every template's
    name and text and of the Mako and Python versions: loading a backend's
    templates is one read and one ``marshal.loads``.  The templates are
    then ordinary Mako templates (:class:`mako.template.ModuleTemplate`)
    whose ``<%include>`` goes through :meth:`Templates.get_template`.

Note [Rendering a template's body directly]
    ``Template.render_context`` makes a ``self`` namespace for the render
    (a ``TemplateNamespace`` with its own dictionaries), asks whether the
    module inherits and whether an error handler is set, and only then calls
    the module's ``render_body``: about 9 us of the ~20 us of a per-operator
    header, and -t headers renders 7,600 of them (~0.06 s of user time).
    None of that changes the text of a template that neither inherits
    (``<%inherit>``), declares namespaces (``<%namespace>``) nor names
    ``self``, ``local``, ``next`` or ``parent``, rendered without an error
    handler: its body reads only ``view`` and ``banner`` from the context
    and writes to its buffer.  Such a template (:func:`_renders_directly`,
    decided once from its compiled code) has its body called with the
    context, which Mako's own ``<%include>`` and ``% for`` machinery read
    exactly as under ``render_context``; any other goes through Mako's
    entry point.  A body that named one of those four without the
    namespace would fail (``strict_undefined``), never print something else.
"""

from __future__ import annotations

import importlib
import marshal
import os
import re
import sys
import tempfile
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from schemac.backends.output.files import Provenance, generated_banner
from schemac.cachedir import cache_subdir, content_key
from schemac.ir.module import Module

TEMPLATE_DIR_NAME = "templates"

#: Bumped when the layout of a compiled bundle changes.
_BUNDLE_FORMAT = "schemac-template-bundle-3"


def _lazy_importlib_metadata() -> None:
    """Make ``importlib.metadata`` load on first use instead of when Mako imports it.

    ``mako.compat`` imports it at module level for its plugin loader, which
    schemac never uses; loading it pulls in ``email``, ``zipfile`` and
    ``csv`` (~25 ms of every compile).  :class:`importlib.util.LazyLoader`
    gives everyone the real module, executed at its first attribute access.
    """
    name = "importlib.metadata"
    if name in sys.modules:
        return
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    # As a real import would; and ``from importlib import metadata`` then
    # finds it without the import machinery reading ``__spec__`` (which
    # would run the module).
    importlib.metadata = module


def _import_mako() -> Any:
    """``mako.template``, without the syntax highlighter of Mako's HTML error pages.

    ``mako.exceptions`` imports pygments (when installed) as it is imported,
    only to colour the HTML tracebacks of ``html_error_template()``, which
    schemac never renders: a quarter of Mako's import time in every run.
    Hiding the plugin while Mako is first imported makes Mako take its
    documented fallback (plain escaping); the entry is removed again, so a
    later import of the plugin in the same process works as usual.
    """
    plugin = "mako.ext.pygmentplugin"
    if "mako.exceptions" in sys.modules or plugin in sys.modules:
        import mako.template

        return mako.template
    _lazy_importlib_metadata()
    sys.modules[plugin] = None  # type: ignore[assignment]
    try:
        import mako.template
    finally:
        if sys.modules.get(plugin, 0) is None:
            del sys.modules[plugin]
    return mako.template


_mako_template = _import_mako()
import mako  # noqa: E402  (after _import_mako, which decides how Mako is first imported)
from mako.exceptions import TopLevelLookupException  # noqa: E402
from mako.runtime import Context  # noqa: E402


class _Parts(list[str]):
    """The buffer a template renders into: its writes, joined once at the end.

    Not ``io.StringIO``: its ``getvalue`` finishes the text and then copies it
    into a fresh buffer, so a render briefly held its text twice over (plus
    the copy's over-allocation) -- 2-4 MiB more at the peak of a target
    whose largest file is 3-4 MB (``TraceTypeEverything.cpp``,
    ``OperatorsEverything.cpp``).  Mako's own ``FastEncodingBuffer`` is the
    same idea.
    """

    write = list.append


class _RenderContext(Context):  # type: ignore[misc]  # Mako is untyped
    """A render's ``Context`` that remembers the copies Mako makes of it.

    An ``<%include>`` renders the included template with a copy of the
    context (``Context._copy``) whose ``self`` namespace points back at the
    copy: a reference cycle holding the copy's data, the view among it, that
    nothing else reaches once the render returns.  With the collector paused
    while backends emit, each included render kept its file's view (the
    binding files' texts: ~2 MiB of ``-t python``) alive until the end.
    Those copies are made by ``_clean_inheritance_tokens`` (an include, or
    inheritance), and are of this class too, so that an include inside an
    included template is remembered as well.  (The copies a ``<%def>`` call
    makes, ``_locals``, are not in a cycle: they are freed as the call returns.)
    """

    _copies: list[Context]

    def _clean_inheritance_tokens(self) -> Context:
        copy = Context._clean_inheritance_tokens(self)
        copy.__class__ = _RenderContext
        copy._copies = self._copies
        self._copies.append(copy)
        return copy


def _break_cycles(context: _RenderContext) -> None:
    """Drop what a finished render's context points back at itself through.

    Mako's ``Context`` holds a ``capture`` partial bound to itself and, once
    rendered, its template namespaces (``self``, ``local``, included files),
    each of which holds the context; so do the copies it made (see
    :class:`_RenderContext`).  Nothing reads a context after
    ``render_context`` returns.
    """
    context._data.clear()
    context.namespaces.clear()
    for copy in context._copies:
        copy._data.clear()
    context._copies.clear()


def module_sources(module: Module, *, derivatives: bool = False) -> Provenance:
    """The input files an output of ``module`` depends on, and its release, for its banner.

    Native functions and tags always; derivatives and deprecated signatures
    only for outputs that read them (``derivatives=True``).
    """
    src = module.sources
    files = [src.native_functions, src.tags]
    if derivatives:
        files += [src.derivatives, src.deprecated]
    return Provenance(tuple(f for f in files if f), module.release)


def native_sources(module: Module) -> Provenance:
    """Only native_functions.yaml (and the release): registration files read nothing else."""
    return Provenance((module.sources.native_functions,), module.release)


def template_dir(package: str) -> Path:
    """The ``templates/`` folder of ``package`` (a backend's package name)."""
    # The package's folder from its ``__path__``, as ``importlib.resources``
    # would find it for a package on disk (the only kind Mako's file names and
    # the cache support), without importing its readers (zipfile among them):
    # 3-5 ms of every compile.
    return Path(next(iter(importlib.import_module(package).__path__)), TEMPLATE_DIR_NAME)


def _template_options() -> dict[str, Any]:
    return {"strict_undefined": True, "input_encoding": "utf-8"}


#: An include on a line of its own.
_INCLUDE_LINE = re.compile(r'^<%include file="([A-Za-z0-9_.-]+)"/>$', re.MULTILINE)


def inline_static_includes(text: str, sources: dict[str, str]) -> str:
    """``text`` with each ``<%include>`` of a plain sibling replaced by its text.

    An include is rendered at run time, through a lookup and a fresh
    namespace: half the time of a small per-operator header.  A sibling with
    no ``<%`` tag (text, ``${...}``, ``%`` lines and ``##`` comments only)
    renders the same when pasted in place of a line that only includes it:
    its lines stay at the start of lines and see the same ``view``.
    Anything else is left to Mako.
    """

    def paste(match: re.Match[str]) -> str:
        included = sources.get(match.group(1))
        if included is None or "<%" in included:
            return match.group(0)
        return included

    return _INCLUDE_LINE.sub(paste, text)


def _compile_bundle(sources: dict[str, str], directory: Path) -> dict[str, types.CodeType]:
    """Every template's Mako module, compiled to a code object."""
    codes: dict[str, types.CodeType] = {}
    for name, text in sources.items():
        inlined = inline_static_includes(text, sources)
        generated = _mako_template.Template(text=inlined, uri=name, **_template_options()).code
        codes[name] = compile(generated, str(directory / name), "exec")
    return codes


def _load_bundle(sources: dict[str, str], directory: Path) -> dict[str, types.CodeType]:
    """The compiled templates of ``directory``, from the cache when it has them.

    See Note [Compiled template bundles].  A missing, unreadable or corrupt
    bundle is rebuilt; a cache that cannot be written is done without.
    """
    base = cache_subdir("templates")
    if base is None:
        return _compile_bundle(sources, directory)
    pieces: list[str | bytes] = [_BUNDLE_FORMAT, mako.__version__, sys.version]
    for name in sorted(sources):
        pieces += [name, sources[name]]
    path = base / f"{content_key(pieces)}.marshal"
    try:
        loaded = marshal.loads(path.read_bytes())
        if isinstance(loaded, dict) and loaded.keys() == sources.keys():
            return loaded
    except (OSError, ValueError, EOFError, TypeError):
        pass
    codes = _compile_bundle(sources, directory)
    try:
        handle, temporary = tempfile.mkstemp(prefix=".bundle-", dir=base)
        with os.fdopen(handle, "wb") as stream:
            stream.write(marshal.dumps(codes))
        os.replace(temporary, path)
    except OSError:
        pass
    return codes


#: What a template body reads only through the ``self`` namespace or inheritance
#: (Note [Rendering a template's body directly]).
_NAMESPACE_NAMES = frozenset({"self", "local", "next", "parent"})


def _code_constants(code: types.CodeType) -> Iterable[object]:
    """Every constant of ``code`` and of the functions defined in it."""
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_constants(constant)
        else:
            yield constant


def _renders_directly(template: Any, code: types.CodeType) -> bool:
    """Whether ``template``'s body may be called without ``render_context``'s
    set-up (Note [Rendering a template's body directly]); ``code``: its module's code."""
    module = template.module
    return (
        not hasattr(module, "_mako_inherit")
        and not hasattr(module, "_mako_generate_namespaces")
        and not template.format_exceptions
        and template.error_handler is None
        and not any(isinstance(c, str) and c in _NAMESPACE_NAMES for c in _code_constants(code))
    )


class Templates:
    """The templates of one backend package, compiled once per instance.

    Also the lookup Mako's runtime asks for ``<%include file="..."/>``
    (:meth:`adjust_uri`, :meth:`get_template`): templates include siblings
    in the same folder by name.
    """

    def __init__(self, package: str) -> None:
        directory = template_dir(package)
        if not directory.is_dir():
            raise FileNotFoundError(f"{package} has no {TEMPLATE_DIR_NAME}/ folder at {directory}")
        self.package = package
        self.directory = directory
        self._sources = {
            path.name: path.read_text(encoding="utf-8") for path in directory.glob("*.mako")
        }
        self._codes: dict[str, types.CodeType] | None = None
        self._templates: dict[str, Any] = {}
        #: Name -> whether its body is called directly (Note [Rendering a
        #: template's body directly]); set with the template.
        self._direct: dict[str, bool] = {}
        self._banners: dict[tuple[str, Provenance], str] = {}

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._sources))

    def adjust_uri(self, uri: str, relativeto: str | None) -> str:
        """Mako's lookup protocol: an include names a sibling template."""
        return uri.lstrip("/")

    def get_template(self, uri: str) -> Any:
        """The compiled template ``uri`` (a file name in the templates folder)."""
        template = self._templates.get(uri)
        if template is not None:
            return template
        if uri not in self._sources:
            raise TopLevelLookupException(f"no template {uri!r} in {self.directory}")
        if self._codes is None:
            self._codes = _load_bundle(self._sources, self.directory)
        module = types.ModuleType(f"schemac_template_{uri}")
        exec(self._codes[uri], module.__dict__)
        template = _mako_template.ModuleTemplate(
            module, template_filename=str(self.directory / uri), lookup=self
        )
        self._direct[uri] = _renders_directly(template, self._codes[uri])
        self._templates[uri] = template
        return template

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
        template = self.get_template(name)
        if isinstance(sources, Provenance):
            # Thousands of renders share a few (template, provenance) pairs.
            banner = self._banners.get((name, sources))
            if banner is None:
                banner = generated_banner(name.removesuffix(".mako"), sources)
                self._banners[(name, sources)] = banner
        else:
            banner = generated_banner(name.removesuffix(".mako"), sources)
        # Mako's documented context API instead of ``render_unicode``, which
        # inspects the template function's signature on every call to pass
        # it the keywords (~5 us of ~25 us a render; 7,600 renders in -t headers).
        buffer = _Parts()
        context = _RenderContext(buffer, view=view, banner=banner)
        context._copies = []
        if self._direct[name]:
            # What render_context does first; an <%include> finds the lookup here.
            context._set_with_template(template)
            template.callable_(context)
        else:
            template.render_context(context)
        # A rendered context is a reference cycle (its namespace and caller
        # stack point back at it): left alone, each render would be freed only
        # by a full collection.  Emptying it frees the render at once, so the
        # compile leaves no cyclic garbage behind (see schemac.ir.collector).
        _break_cycles(context)
        text = "".join(buffer)
        # The buffer too: a template whose <%def>s close over the context keeps
        # the context (and so this buffer, every piece of the text) in a cycle
        # that the collector, paused while backends emit, would free only at
        # exit; autograd's Functions.cpp left 93,000 pieces alive that way.
        buffer.clear()
        return text
