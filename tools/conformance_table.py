"""Print the per-release conformance table of docs/releases.md (a maintainer's tool).

    python tools/conformance_table.py 2.13.0 2.14.1 2.15.0

For each release, torchgen's outputs are compared with schemac's for the same
YAML and profile, family by family. torchgen runs once per release into
``$SCHEMAC_TEST_CACHE`` (default ~/.cache/schemac-tests/refs-R). The counts
come from the conformance tests' own extractors, so the table counts exactly
what the tests assert.  Releases are found where the tests find them
(tests/torch_releases.py; ``SCHEMAC_TEST_TORCH_RELEASES`` for unpacked copies).
"""

from __future__ import annotations

import fnmatch
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

Row = tuple[str, int, int, int]


def _row(name: str, theirs: Iterable[Any], ours: Iterable[Any]) -> Row:
    t, o = Counter(theirs), Counter(ours)
    return name, sum((t & o).values()), sum((t - o).values()), sum((o - t).values())


def release_rows(version: str) -> list[Row]:
    # The tests' modules are the extractors; they live beside the tests.
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "backends")]
    import test_aten_headers_conformance as headers
    import test_aten_registrations_conformance as regs
    import test_autograd_conformance as autograd
    import test_python_conformance as python

    import torch_releases as releases
    from schemac.backends.aten.registrations.targets import TARGET_KEYS
    from schemac.backends.driver import emit_targets
    from schemac.frontend.loader import load_module
    from schemac.passes.base import PassContext
    from schemac.passes.manager import PassManager
    from schemac.profiles import load_profile

    release = releases.reference_release(version)
    refs = releases.cache_root() / f"refs-{version}"
    refs.mkdir(parents=True, exist_ok=True)
    runs = {
        "aten": releases.run_torchgen_aten,
        "autograd": releases.run_gen_autograd,
        "python": releases.run_gen_autograd_python,
    }
    for part, run in runs.items():
        releases.built_once(refs / part, lambda d, run=run: run(release, d))

    profile = load_profile(release.short)
    paths = releases.release_yaml_paths(release)
    module = load_module(
        paths.native_functions, paths.tags, paths.derivatives, paths.deprecated, profile=profile
    )
    module = PassManager.default().run(PassContext(profile=profile), module).module
    targets = ["headers", "autograd", "python", *TARGET_KEYS]
    files = {f.path: f.text for f in emit_targets(module, targets, profile=profile)}

    rows: list[Row] = []
    ops = {p.removeprefix("ATen/ops/"): t for p, t in files.items() if p.startswith("ATen/ops/")}
    for family, (_suffix, extract) in headers.FAMILIES.items():
        theirs: list[Any] = []
        ours: list[Any] = []
        for path in sorted((refs / "aten" / "ops").iterdir()):
            if headers._family_of(path.name) != family:
                continue
            theirs += list(extract(path.read_text()))
            ours += list(extract(ops.get(path.name, "")))
        rows.append(_row(f"{family} declarations", theirs, ours))
    body = (refs / "aten" / "core" / "TensorBody.h").read_text()
    rows.append(
        _row(
            "TensorBody.h methods",
            headers._method_decls(body),
            headers._method_decls(files["ATen/core/TensorBody.h"]),
        )
    )

    ref_keys = regs._by_key(
        (p.name, p.read_text()) for p in sorted((refs / "aten").glob("Register*_*.cpp"))
    )
    our_keys = regs._by_key(files.items())

    def per_key(texts: dict[str, list[str]], bodies: bool) -> list[Any]:
        facts: list[Any] = []
        for key in regs.REFERENCE_KEYS:
            shards = texts.get(key, [])
            found = (
                regs.parse_definitions(shards)[0] if bodies else regs.parse_registrations(shards)
            )
            facts += [(key, *item) for item in found.items()]
        return facts

    rows.append(
        _row(
            "Register<Key>.cpp registrations and signatures",
            per_key(ref_keys, False),
            per_key(our_keys, False),
        )
    )
    rows.append(
        _row("Register<Key>.cpp wrapper bodies", per_key(ref_keys, True), per_key(our_keys, True))
    )

    theirs_ag = autograd._reference_files(refs / "autograd")
    ours_ag = {
        p.removeprefix("autograd/"): t for p, t in files.items() if p.startswith("autograd/")
    }

    def both(name: str, extract: Any, file: str | None = None, stem: str | None = None) -> Row:
        if file is not None:
            a, b = extract(theirs_ag[file]), extract(ours_ag[file])
        else:
            a = extract(autograd._shards(theirs_ag, stem))
            b = extract(autograd._shards(ours_ag, stem))
        if isinstance(a, dict):
            return _row(name, a.items(), b.items())
        return _row(name, a, b)

    rows.append(both("Functions.h node structs", autograd.node_structs, file="Functions.h"))
    rows.append(
        both("Functions.cpp gradient functions", autograd.apply_facts, file="Functions.cpp")
    )
    for stem in ("VariableType", "ADInplaceOrViewType", "TraceType"):
        rows.append(both(f"{stem} registrations", autograd.registrations, stem=stem))
    rows.append(both("VariableType kernels", autograd.autograd_kernel_facts, stem="VariableType"))
    rows.append(
        both("ADInplaceOrView kernels", autograd.inplace_or_view_facts, stem="ADInplaceOrViewType")
    )
    rows.append(both("TraceType kernels", autograd.trace_records, stem="TraceType"))
    rows.append(both("ViewFuncs.h classes", autograd.view_funcs, file="ViewFuncs.h"))

    ours_py = refs / "schemac-python"
    ours_py.mkdir(exist_ok=True)
    for path, text in files.items():
        if path.startswith("python/"):
            (ours_py / path.removeprefix("python/")).write_text(text)
    theirs_fns: list[Any] = []
    ours_fns: list[Any] = []
    for pattern in python.MODULE_FILES:
        manual = (release.autograd_dir / "templates" / pattern.replace("_*", "")).read_text()
        reference = [p for p in (refs / "python").glob(pattern) if "Everything" not in p.name]
        theirs_fns += list(python._read(reference, manual).functions.items())
        mine = [p for p in ours_py.iterdir() if fnmatch.fnmatch(p.name, pattern)]
        ours_fns += list(python._read(mine, manual).functions.items())
    rows.append(_row("Python bindings (byte-identical functions)", theirs_fns, ours_fns))
    return rows


def main(versions: list[str]) -> int:
    for version in versions:
        print(f"\n### torch {version}\n")
        print("| family | matches | missing | extra |\n|---|---:|---:|---:|")
        for name, matched, missing, extra in release_rows(version):
            print(f"| {name} | {matched} | {missing} | {extra} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["2.13.0"]))
