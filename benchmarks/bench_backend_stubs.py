"""Backend-stubs speed: ``schemac compile --backend`` against ``torchgen.gen_backend_stubs``.

The input is the XLA-style backend YAML of the conformance test (416
supported operators, 827 registrations) against the installed torch's
native_functions.yaml.  Two stages, each side in a fresh interpreter:

* *generate*: the operation the target is about, producing the three files
  with native_functions.yaml already loaded: torchgen's ``run()`` after a
  first call has filled its parse cache, schemac's bind + emit + write after
  the module is loaded and through the passes.  Target: schemac >= 5x faster.
* *command*: the whole command a user types, from interpreter start to the
  files on disk (CPU time of the child process), reported for information.

    PYTHONPATH=src python benchmarks/bench_backend_stubs.py [--reps N]
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import Skip, Stage  # noqa: E402

if TYPE_CHECKING:
    from benchmarks import Inputs

BACKEND_YAML = ROOT / "tests" / "backends" / "data" / "backend_stubs" / "xla_style.yaml"


def _torchgen_side(out: Path, reps: int) -> list[float]:
    import copy

    import torchgen.gen
    from torchgen.gen_backend_stubs import run

    run(str(BACKEND_YAML), str(out / "warm"), False)
    # run() adds the backend's index to the cached parse of native_functions.yaml
    # (a second run then finds a "duplicate backend key"): give each run the
    # cached parse with the indices as they were before the first run.
    cache = torchgen.gen._GLOBAL_PARSE_NATIVE_YAML_CACHE
    pristine = {}
    for path, parsed in cache.items():
        indices = copy.copy(parsed.backend_indices)
        for key in [k for k in indices if str(k) in ("XLA", "AutogradXLA")]:
            del indices[key]
        pristine[path] = parsed._replace(backend_indices=indices)
    times = []
    for rep in range(reps):
        for path, parsed in pristine.items():
            cache[path] = parsed._replace(backend_indices=copy.copy(parsed.backend_indices))
        start = time.process_time()
        run(str(BACKEND_YAML), str(out / f"run{rep}"), False)
        times.append(time.process_time() - start)
    return times


def _schemac_side(out: Path, reps: int) -> list[float]:
    from schemac.backends.driver import compile_to_directory
    from schemac.frontend.backend_loader import read_backend_yaml
    from schemac.frontend.loader import load_torch_module
    from schemac.passes.manager import run_pipeline

    module = run_pipeline(load_torch_module(derivatives=False, deprecated=False)).module
    times = []
    for rep in range(reps + 1):  # the first run compiles and caches the templates
        start = time.process_time()
        spec, problems = read_backend_yaml(BACKEND_YAML)
        assert spec is not None and not problems
        compile_to_directory(module.evolve(external_backend=spec), ("backend",), out / f"r{rep}")
        times.append(time.process_time() - start)
    return times[1:]


def _side_in_child(side: str, reps: int) -> list[float]:
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, str(Path(__file__)), "--side", side, out, str(reps)]
        result = subprocess.run(command, capture_output=True, text=True, check=True)
    times: list[float] = json.loads(result.stdout.splitlines()[-1])
    return times


def _command_cpu(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench(inputs: Inputs, reps: int) -> list[Stage]:
    """The runner's entry point (benchmarks/__main__.py)."""
    if not inputs.is_torch:
        raise Skip("needs the installed torch's native_functions.yaml")
    torchgen = statistics.median(_side_in_child("torchgen", reps))
    schemac = statistics.median(_side_in_child("schemac", reps))
    commands_t, commands_s = [], []
    with tempfile.TemporaryDirectory() as out:
        for rep in range(reps):
            commands_t.append(
                _command_cpu(
                    [
                        sys.executable,
                        "-m",
                        "torchgen.gen_backend_stubs",
                        "-s",
                        str(BACKEND_YAML),
                        "-o",
                        f"{out}/t{rep}",
                    ]
                )
            )
            commands_s.append(
                _command_cpu(
                    [
                        sys.executable,
                        "-m",
                        "schemac",
                        "compile",
                        "--torch",
                        "--backend",
                        str(BACKEND_YAML),
                        "-o",
                        f"{out}/s{rep}",
                        "-j",
                        "1",
                    ]
                )
            )
    note = f"{BACKEND_YAML.name}: 416 operators"
    return [
        Stage("backend stubs generate", schemac, torchgen, 0.2, "cpu s", (note,)),
        Stage(
            "backend stubs command",
            statistics.median(commands_s),
            statistics.median(commands_t),
            1.0,
            "cpu s",
            ("whole command, interpreter start included",),
        ),
    ]


def _main() -> int:
    if sys.argv[1:2] == ["--side"]:
        side, out, reps = sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
        times = (_torchgen_side if side == "torchgen" else _schemac_side)(out, reps)
        print(json.dumps(times))
        return 0
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 3
    from benchmarks import Inputs

    for stage in bench(Inputs.torch(), reps):
        print(
            f"{stage.name}: schemac {stage.schemac:.3f} {stage.unit}, torchgen "
            f"{stage.torchgen:.3f} {stage.unit}: {1 / stage.ratio:.1f}x faster"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
