"""The ``extension`` target's backend: every file under ``OUT/<ns>/``.

```
<ns>/library.cpp            TORCH_LIBRARY(<ns>, m) {}
<ns>/register/<root>.cpp    schemas, per-key wrappers, autograd of one family
<ns>/kernels.h              every kernel declaration (includes kernels/*.h)
<ns>/kernels/<root>.h       one family's kernel declarations and structured classes
<ns>/ops.h                  the typed C++ API (includes ops/*.h)
<ns>/ops/<root>.h           one family's typed handles and functions
<ns>/ops.py, <ns>/ops.pyi   the typed Python API and its stub
```

All C++ sources are ``.cpp`` files under OUT; nothing is named like a file
of torch's include tree, so ``-I OUT`` shadows nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.signatures.naming import cpp_name
from schemac.backends.extension.autograd import FamilyAutograd, family_autograd, formula_words
from schemac.backends.extension.checks import library_namespace
from schemac.backends.extension.declarations import FamilyDeclarations, family_declarations
from schemac.backends.extension.library import ExtensionLibrary, library_of
from schemac.backends.extension.python_api import python_module
from schemac.backends.extension.registrations import (
    FamilyRegistrations,
    family_registrations,
    library_keys,
    planned_by_root,
)
from schemac.backends.extension.typed_api import FamilyApi, family_api
from schemac.backends.extension.views import ExtensionViews
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates, module_sources
from schemac.ir.module import Module


@attrs.frozen
class FamilyFileView:
    namespace: str
    root: str
    headers: tuple[str, ...]
    registrations: FamilyRegistrations
    autograd: FamilyAutograd


@attrs.frozen
class KernelsHeaderView:
    namespace: str
    root: str
    declarations: FamilyDeclarations


@attrs.frozen
class ApiHeaderView:
    api: FamilyApi


@attrs.frozen
class UmbrellaView:
    what: str
    headers: tuple[str, ...]


@attrs.frozen
class LibraryView:
    namespace: str


@attrs.frozen
class ExtensionBackend:
    name: str = "extension"
    description: str = "a torch C++ extension under OUT/<ns>/: registrations, autograd, typed APIs"
    targets: tuple[str, ...] = ("extension",)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile]:
        library = library_of(module, library_namespace(module, options))
        templates = Templates(__package__ or "")
        views = ExtensionViews(library.meta_namespace)
        sources = module_sources(module, derivatives=True)
        ns = library.namespace
        planned = planned_by_root(library, library_keys(library))
        callers = _cpp_names_by_family(library)
        for family in library.families:
            yield GeneratedFile(
                f"{ns}/kernels/{family.root}.h",
                templates.render(
                    "kernels.h.mako",
                    KernelsHeaderView(ns, family.root, family_declarations(library, family, views)),
                    sources=sources,
                ),
            )
            yield GeneratedFile(
                f"{ns}/ops/{family.root}.h",
                templates.render(
                    "ops.h.mako",
                    ApiHeaderView(family_api(library, family, views)),
                    sources=sources,
                ),
            )
            called = sorted(
                root for root, names in callers.items() if names & formula_words(library, family)
            )
            headers = (
                f"{ns}/kernels/{family.root}.h",
                *dict.fromkeys(f"{ns}/ops/{root}.h" for root in [family.root, *called]),
            )
            view = FamilyFileView(
                ns,
                family.root,
                headers,
                family_registrations(library, family, planned.get(family.root, {}), views),
                family_autograd(library, family, views),
            )
            yield GeneratedFile(
                f"{ns}/register/{family.root}.cpp",
                templates.render("family.cpp.mako", view, sources=sources),
            )
        yield from _library_files(library, templates, sources)


def _cpp_names_by_family(library: ExtensionLibrary) -> dict[str, frozenset[str]]:
    """The typed-API names each family defines (``scale``, ``scale_out``, ``scale_``)."""
    return {
        family.root: frozenset(
            cpp_name(f.func, faithful=faithful, symint=symint)
            for f in family.functions
            for faithful in (False, True)
            for symint in (False, True)
        )
        for family in library.families
    }


def _library_files(
    library: ExtensionLibrary, templates: Templates, sources: Provenance
) -> Iterator[GeneratedFile]:
    ns = library.namespace
    roots = [family.root for family in library.families]
    yield GeneratedFile(
        f"{ns}/library.cpp",
        templates.render("library.cpp.mako", LibraryView(ns), sources=sources),
    )
    for name, folder, what in (
        ("kernels.h", "kernels", f"Every kernel of the {ns} library, declared."),
        ("ops.h", "ops", f"The typed C++ API of every {ns} operator."),
    ):
        view = UmbrellaView(what, tuple(f"{ns}/{folder}/{root}.h" for root in roots))
        yield GeneratedFile(
            f"{ns}/{name}", templates.render("umbrella.h.mako", view, sources=sources)
        )
    python = python_module(library)
    yield GeneratedFile(f"{ns}/ops.py", templates.render("ops.py.mako", python))
    yield GeneratedFile(f"{ns}/ops.pyi", templates.render("ops.pyi.mako", python))


BACKEND = ExtensionBackend()
