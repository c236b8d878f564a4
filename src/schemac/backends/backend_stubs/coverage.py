"""``schemac coverage``: what an out-of-tree backend implements, and what it lacks.

Device vendors track this by hand today.  Every operator of the native YAML
falls in exactly one class, decided from the bound backend YAML and the
resolved dispatch tables:

* ``implemented``: the backend registers a kernel for it (listed under
  ``supported``/``autograd``, a generated out=/in-place wrapper, or a member
  of a ``structured`` family);
* ``composite``: no kernel of the backend, but a CompositeImplicitAutograd
  decomposition or a CompositeExplicitAutograd kernel runs it on any device
  whose operators it calls exist;
* ``cpu_fallback``: neither, but a CPU kernel exists: the operator runs on
  the device only through a boxed CPU fallback (``at::native::cpu_fallback``
  registered for the key), and raises NotImplementedError otherwise;
* ``unavailable``: none of these (CUDA-only operators, for instance).

Two lists cut across them: the ``core``-tagged operators the backend lacks
(neither implemented nor composite: what decompositions lower to; the tags
are the release profile's ``decomposition_target_tags``), and the operators
every PrivateUse1 device must provide itself that it lacks (the profile's
``device_required_operators``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import attrs

from schemac.backends.backend_stubs.bind import BoundBackend
from schemac.backends.backend_stubs.plan import plan_stubs
from schemac.ir.dispatch import COMPOSITE_EXPLICIT, COMPOSITE_EXPLICIT_NON_FUNCTIONAL
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile, reference_profile

_CLASSES = ("implemented", "composite", "cpu_fallback", "unavailable")


@attrs.frozen
class CoverageReport:
    backend: str
    backend_yaml: str
    native_yaml: str
    total: int
    #: class name -> operator names, in module order.
    classes: dict[str, tuple[str, ...]]
    missing_core: tuple[str, ...]
    missing_device_required: tuple[str, ...]
    #: The tags ``missing_core`` is about (``core``).
    core_tags: tuple[str, ...] = ("core",)

    def to_json(self) -> str:
        return json.dumps(attrs.asdict(self), indent=2) + "\n"

    def to_text(self) -> str:
        lines = [
            f"{self.backend} ({self.backend_yaml}) against {self.native_yaml}: "
            f"{self.total} operators",
        ]
        for name in _CLASSES:
            lines.append(f"  {name:<13} {len(self.classes[name]):>5}")
        lines.append("")
        lines += _listing(
            "device operators it must provide but lacks", self.missing_device_required
        )
        tags = " or ".join(f"'{tag}'" for tag in self.core_tags)
        lines += _listing(f"{tags} operators it lacks", self.missing_core)
        lines += _listing(
            "operators that only a CPU fallback would run", self.classes["cpu_fallback"]
        )
        return "\n".join(lines) + "\n"


def _listing(title: str, names: Iterable[str]) -> list[str]:
    names = list(names)
    lines = [f"{title} ({len(names)}):"]
    lines += [f"  {name}" for name in names] if names else ["  (none)"]
    return [*lines, ""]


def coverage_report(
    module: Module, bound: BoundBackend, profile: ReleaseProfile | None = None
) -> CoverageReport:
    """The report of ``bound`` over ``module``, with the lists of ``profile``'s release."""
    profile = reference_profile() if profile is None else profile
    core_tags = profile.ordered("decomposition_target_tags")
    implemented = {
        stub.function.func.name
        for key in bound.dispatch_keys()
        for stub in plan_stubs(module, bound, key)
    }
    classes: dict[str, list[str]] = {name: [] for name in _CLASSES}
    missing_core = []
    for f in module.functions:
        name = f.func.name
        resolution = module.resolutions.get(name)
        dispatch = {} if resolution is None else resolution.dispatch
        composite = resolution is not None and (
            resolution.has_composite_implicit_autograd_kernel
            or COMPOSITE_EXPLICIT in dispatch
            or COMPOSITE_EXPLICIT_NON_FUNCTIONAL in dispatch
        )
        if name in implemented:
            kind = "implemented"
        elif composite:
            kind = "composite"
        elif "CPU" in dispatch:
            kind = "cpu_fallback"
        else:
            kind = "unavailable"
        classes[kind].append(str(name))
        if any(tag in f.tags for tag in core_tags) and kind not in ("implemented", "composite"):
            missing_core.append(str(name))
    known = {str(f.func.name) for f in module.functions}
    have = set(classes["implemented"])
    required = tuple(
        op for op in profile.ordered("device_required_operators") if op in known and op not in have
    )
    return CoverageReport(
        backend=bound.spec.backend,
        backend_yaml=bound.spec.file,
        native_yaml=module.sources.native_functions,
        total=len(module.functions),
        classes={name: tuple(names) for name, names in classes.items()},
        missing_core=tuple(missing_core),
        missing_device_required=required,
        core_tags=core_tags,
    )
