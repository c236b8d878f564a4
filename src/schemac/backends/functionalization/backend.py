"""The functionalization backend: the files of ``-t functionalization``.

* ``ATen/RegisterFunctionalization_<n>.cpp`` (4 shards, by root name) and
  ``ATen/RegisterFunctionalizationEverything.cpp``: the Functionalize key's
  kernels and registrations (:mod:`.plan`);
* ``ATen/FunctionalInverses.h``: the declarations of the view inverses;
* ``ATen/ViewMetaClasses.h`` / ``.cpp``: the ViewMeta classes;
* ``functionalization/ViewMetaClassesPythonBinding.cpp``: their Python
  bindings (PyTorch builds it into ``torch/csrc/functionalization/generated``).

Under selective build (``--select``) the kernels are left out, as torchgen
does for mobile builds: the files are written, with nothing registered.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import attrs

from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.functionalization.plan import Item, Plan, ViewEntry, functionalization_plan
from schemac.backends.functionalization.view_meta import hand_declared_inverse
from schemac.backends.output import GeneratedFile, ShardedFile, sharded
from schemac.backends.output.files import Provenance
from schemac.backends.registry import EmitOptions
from schemac.backends.release_policy import ReleasePolicy
from schemac.backends.templating import Templates, native_sources
from schemac.ir.module import Module

PACKAGE = "schemac.backends.functionalization"
REGISTRATIONS = ShardedFile("ATen/RegisterFunctionalization.cpp", 4)
PYTHON_BINDING = "functionalization/ViewMetaClassesPythonBinding.cpp"


@attrs.frozen
class RegistrationFileView:
    headers: tuple[str, ...]
    kernels: tuple[str, ...]
    #: ``(operator namespace, its m.impl(...) lines)``, one TORCH_LIBRARY_IMPL each.
    registrations: tuple[tuple[str, tuple[str, ...]], ...]


@attrs.frozen
class DeclarationsView:
    declarations: tuple[str, ...]


@attrs.frozen
class ViewMetaDefinitionsView:
    headers: tuple[str, ...]
    definitions: tuple[str, ...]


@attrs.frozen
class BindingsView:
    bindings: tuple[str, ...]


def _registration_view(items: Iterable[Item]) -> RegistrationFileView:
    items = tuple(items)
    headers = dict.fromkeys(h for item in items for h in item.headers)
    by_namespace: dict[str, list[str]] = {}
    for item in items:
        for namespace, line in item.registrations:
            by_namespace.setdefault(namespace, []).append(line)
    return RegistrationFileView(
        headers=tuple(headers),
        kernels=tuple(k for item in items for k in item.kernels),
        registrations=tuple((ns, tuple(lines)) for ns, lines in by_namespace.items()),
    )


def _files(
    plan: Plan, policy: ReleasePolicy, templates: Templates, sources: Provenance
) -> Iterator[GeneratedFile]:
    def render(name: str, view: object) -> str:
        return templates.render(name, view, sources=sources)

    shards = sharded(plan.items, lambda item: item.root, REGISTRATIONS.num_shards)
    for number, shard in enumerate(shards):
        text = render("RegisterFunctionalization.cpp.mako", _registration_view(shard))
        yield GeneratedFile(REGISTRATIONS.shard_path(number), text)
    everything = render("RegisterFunctionalization.cpp.mako", _registration_view(plan.items))
    yield GeneratedFile(REGISTRATIONS.everything_path, everything)

    views: tuple[ViewEntry, ...] = plan.views
    classes = [c for entry in views for c in entry.classes]
    inverses = [entry.inverse for entry in views]
    inverses += [hand_declared_inverse(d) for d in policy.hand_declared_inverses]
    yield GeneratedFile(
        "ATen/FunctionalInverses.h",
        render("FunctionalInverses.h.mako", DeclarationsView(tuple(inverses))),
    )
    yield GeneratedFile(
        "ATen/ViewMetaClasses.h",
        render("ViewMetaClasses.h.mako", DeclarationsView(tuple(c.declaration() for c in classes))),
    )
    headers = dict.fromkeys(h for entry in views for h in entry.headers)
    yield GeneratedFile(
        "ATen/ViewMetaClasses.cpp",
        render(
            "ViewMetaClasses.cpp.mako",
            ViewMetaDefinitionsView(tuple(headers), tuple(c.definitions() for c in classes)),
        ),
    )
    yield GeneratedFile(
        PYTHON_BINDING,
        render(
            "ViewMetaClassesPythonBinding.cpp.mako",
            BindingsView(tuple(c.binding() for c in classes)),
        ),
    )


@attrs.frozen
class FunctionalizationBackend:
    name: str = "functionalization"
    description: str = (
        "RegisterFunctionalization_<n>.cpp, FunctionalInverses.h, ViewMetaClasses.{h,cpp}"
    )
    targets: tuple[str, ...] = ("functionalization",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        policy = ReleasePolicy.of(options.profile)
        state = aten_run_state(module, options)
        plan = functionalization_plan(module, policy, state.views, options.fragments)
        if module.selection is not None:
            plan = Plan((), plan.views)
        sources = native_sources(module)
        return tuple(_files(plan, policy, state.templates(PACKAGE), sources))


BACKEND = FunctionalizationBackend()
