"""Input the front end accepts never crashes a pass or a backend of ``compile -t all``.

The front end's own fuzz test (tests/frontend/test_fuzz_loader.py) damages
bytes and checks ``load_module``; this one makes *meaningful* edits to the
toyops YAML (a type swapped, a default in another literal form, an entry
dropped or duplicated, a delegate removed, a kernel named ``template``, a
string default full of quotes and backslashes, ...) that keep it loadable, so
the edit reaches the passes and every backend.  Each mutant is compiled
in-process with ``schemac.cli.main`` into a directory that already holds a
good compile, and:

* the exit code is 0 or 1, nothing escapes ``main``, no traceback on stderr;
* exit 1 prints at least one ``file:line:col: error:`` line and leaves the
  directory byte-identical;
* exit 0 leaves every file the manifest lists on disk.

Every fifth mutant also goes through ``dump-ir``.  Mutants are seeded (seed
``i`` of the run), so a failure names its seed and reproduces.
SCHEMAC_ROBUSTNESS_EXAMPLES sets how many (default 40: 5 CPU-seconds, 12 s on
a loaded two-core machine; 300 take 20 CPU-seconds, about a minute).  The slow
tests compile, with ``g++ -fsyntax-only`` against torch's headers, the
RegisterSchema.cpp and a registration file of accepted odd input and of
SCHEMAC_ROBUSTNESS_CPP_SAMPLES (default 2) exit-0 mutants: about 2.5 minutes.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemac import parse_schema
from schemac.cli import main
from schemac.ir.defaults import default_problem

ROOT = Path(__file__).resolve().parents[1]
TOYOPS = ROOT / "examples" / "toyops"
EXAMPLES = int(os.environ.get("SCHEMAC_ROBUSTNESS_EXAMPLES", "40"))
#: An error at a real position of a real file (not ``<generated>:0:0``).
_POSITIONED = re.compile(r"^[^\s:<][^:]*:[1-9]\d*:[1-9]\d*: error: ", re.MULTILINE)

Entries = list[dict[str, Any]]

# -- the vocabulary of odd but plausible text ------------------------------------------------------
_TYPES = [
    "Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "int", "int?", "int[]", "int[2]", "int[1]?",
    "SymInt", "SymInt[]", "SymInt[2]", "float", "float?", "float[]", "bool", "bool?", "bool[3]",
    "Scalar", "Scalar?", "Scalar[]", "str", "str?", "str[]", "ScalarType", "ScalarType?",
    "Layout?", "Device?", "MemoryFormat?", "Generator?", "Dimname", "Dimname[]", "Storage",
    "Stream", "Tensor(a)", "Tensor(a!)", "Tensor(b!)?", "Tensor(a -> *)", "Tensor(a!)[]",
    "int[3]?", "SymInt[1]",
]  # fmt: skip
_DEFAULTS = [
    "None", "0", "-1", "3", "1.5", "-0.25", "1e-3", "True", "False", "[]", "[0, 1]", "[1,2,3]",
    "1", '"sum"', "'single'", '"a\\"b"', '"back\\\\slash"', '"tab\\tnew\\nline"', '"\\u00e9"',
    '"é✓"', '""', "contiguous_format", "long", "float", "Mean", "inf", "-inf", "nan",
    "at::kLong", "0x10", "[None]", "[True, False]",
]  # fmt: skip
_NAMES = [
    "template", "class", "default", "int", "namespace", "delete", "new", "operator", "not",
    "and", "self", "out", "result", "grad", "x" * 300, "a" + "_b" * 120, "_", "__x__",
    "Camel", "ALLCAPS", "scale", "blend", "total", "name2", "é", "a.b", "a-b", "A1_", "std",
    "at", "c10", "native", "TORCH_API", "main", "NULL", "nullptr", "true", "auto", "Tensor",
]  # fmt: skip
_KERNELS = [
    "template", "class", "x" * 300, "ker_\u00e9", 'ker"nel', "ker\\nel", "a::b", "::lead",
    "trail::", "at::native::k", "k k", "k;", "k()", "1abc", "_k", "__k", "std::abs", "Tensor",
    "operator+", "k<int>", "k\n", "scale_out", "blend_cpu", "",
]  # fmt: skip
_KEYS = [
    "CPU", "CUDA", "Meta", "MPS", "SparseCPU", "QuantizedCPU", "CompositeImplicitAutograd",
    "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional", "Autograd",
    "AutogradCPU", "Foo", "cpu", "XLA", "NestedTensorCPU", "MkldnnCPU", "ZeroTensor", "Undefined",
    "CPU, CUDA", "CPU,CPU", "SparseCsrCPU", "Lazy", "PrivateUse1", "FuncTorchBatched",
]  # fmt: skip
_FORMULA_WORDS = [
    "grad", "gard", "self", "other", "result", "weight", "factor", "dim", "grads[0]", "grads[7]",
    "self_t", "other_t", "result_p", "nope", "out", "template", "retain_variables", "self.sizes()",
    "grad.conj()", "at::zeros_like(self)", '"str\\"ing"', "wrapped_scalar_tensor(factor)",
]  # fmt: skip
_FORMULA_KEYS = [
    "self", "other", "result", "factor", "grad", "out", "self, other", "output_differentiability",
    "dispatch",
]  # fmt: skip
_FLAG_VALUES: list[Any] = [True, False, "True", None, 1, "maybe", [], ["x"], {"a": 1}, "scale.out"]
_FLAG_KEYS = [
    "structured", "structured_delegate", "structured_inherits", "device_guard", "device_check",
    "manual_cpp_binding", "python_module", "variants", "tags", "cpp_no_default_args",
    "category_override", "manual_kernel_registration", "use_const_ref_for_mutable_tensors",
    "autogen", "precomputed", "ufunc_inner_loop", "has_composite_implicit_autograd_kernel",
]  # fmt: skip

#: A type in a schema: after '(' or ', ', before ' name'.
_TYPE_RE = r"(?:(?<=\()|(?<=, ))[A-Za-z]\w*(?:\([^)]*\))?(?:\[\d*\])?\??(?= \w)"
_FUNC = re.compile(r"^(?:(?P<ns>\w+)::)?(?P<name>[^(]+)\((?P<args>.*)\) -> (?P<rets>.*)$")


def _split_func(func: str) -> tuple[str, str, str, str] | None:
    match = _FUNC.match(func)
    if match is None:
        return None
    return match["ns"] or "", match["name"], match["args"], match["rets"]


def _join_func(ns: str, name: str, args: str, rets: str) -> str:
    return f"{ns + '::' if ns else ''}{name}({args}) -> {rets}"


def _sub_random(
    pattern: str, text: str, rng: random.Random, repl: Callable[[re.Match[str]], str]
) -> str:
    """``text`` with one randomly chosen match of ``pattern`` replaced."""
    matches = list(re.finditer(pattern, text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[: m.start()] + repl(m) + text[m.end() :]


# -- mutations: each edits the parsed YAML (native entries, derivative entries) in place -----------
def _pick(entries: Entries, rng: random.Random, key: str = "func") -> dict[str, Any] | None:
    having = [e for e in entries if isinstance(e, dict) and key in e]
    return rng.choice(having) if having else None


def _pick_schema_entry(
    native: Entries, derivs: Entries, rng: random.Random
) -> tuple[dict[str, Any], str] | None:
    """A native entry (two times in three) or a derivative entry, and its schema's key."""
    entries = rng.choice([native, native, derivs])
    key = "func" if entries is native else "name"
    entry = _pick(entries, rng, key)
    return None if entry is None else (entry, key)


def _change_type(native: Entries, derivs: Entries, rng: random.Random) -> None:
    picked = _pick_schema_entry(native, derivs, rng)
    if picked is None:
        return
    entry, key = picked
    entry[key] = _sub_random(_TYPE_RE, str(entry[key]), rng, lambda m: rng.choice(_TYPES))


def _change_default(native: Entries, derivs: Entries, rng: random.Random) -> None:
    picked = _pick_schema_entry(native, derivs, rng)
    if picked is None:
        return
    entry, key = picked
    text = str(entry[key])
    if "=" in text and rng.random() < 0.8:
        entry[key] = _sub_random(r"=[^,)]+", text, rng, lambda m: "=" + rng.choice(_DEFAULTS))
    else:  # give a parameter without a default one
        entry[key] = _sub_random(
            r"(?<=[\w\]?)]) (\w+)(?=[,)])", text, rng,
            lambda m: f" {m[1]}={rng.choice(_DEFAULTS)}",
        )  # fmt: skip


def _drop_entry(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entries = rng.choice([native, native, derivs])
    if entries:
        del entries[rng.randrange(len(entries))]


def _duplicate_entry(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entries = rng.choice([native, native, derivs])
    if entries:
        at = rng.randrange(len(entries))
        entries.insert(rng.randrange(len(entries) + 1), dict(entries[at]))


def _rename(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entries = rng.choice([native, native, native, derivs])
    key = "func" if entries is native else "name"
    entry = _pick(entries, rng, key)
    if entry is None:
        return
    parts = _split_func(str(entry[key]))
    if parts is None:
        return
    ns, name, args, rets = parts
    base, _, overload = name.partition(".")
    new = rng.choice(_NAMES)
    choice = rng.randrange(4)
    if choice == 0:
        base = new
    elif choice == 1:
        overload = new
    elif choice == 2:
        base = base + "_" if not base.endswith("_") else base[:-1]  # in-place <-> functional
    else:
        overload = ""
    entry[key] = _join_func(ns, base + ("." + overload if overload else ""), args, rets)


def _rename_argument(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entries = rng.choice([native, derivs])
    key = "func" if entries is native else "name"
    entry = _pick(entries, rng, key)
    if entry is None:
        return
    new = rng.choice(_NAMES)
    entry[key] = _sub_random(
        r"(?<=[\w\]?)]) \w+(?=[=,)])", str(entry[key]), rng, lambda m: " " + new
    )


def _flip_flag(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entry = _pick(native, rng)
    if entry is None:
        return
    key = rng.choice(_FLAG_KEYS)
    if key in entry and rng.random() < 0.5:
        del entry[key]
        return
    if key in ("structured_delegate", "autogen"):
        names = [str(e["func"]).split("(")[0].split("::")[-1] for e in native if "func" in e]
        entry[key] = rng.choice([*names, "nonexistent.out", "scale.nonexistent", "scale", ""])
    elif key == "structured_inherits":
        entry[key] = rng.choice(["TensorIteratorBase", "at::Base", "template", "a b", "Q::"])
    else:
        entry[key] = rng.choice(_FLAG_VALUES)


def _autogen_missing(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entry = _pick(native, rng)
    if entry is None:
        return
    base = str(entry["func"]).split("(")[0].split("::")[-1].split(".")[0]
    entry["autogen"] = rng.choice(
        [f"{base}.out", f"{base}.nope", f"{base}_functional", "other.out",
         f"{base}.out, {base}.out", f"{base}.template", f"{base}_.out"]
    )  # fmt: skip


def _drop_delegate_target(native: Entries, derivs: Entries, rng: random.Random) -> None:
    delegates = {str(e["structured_delegate"]) for e in native if "structured_delegate" in e}
    if not delegates:
        return
    target = rng.choice(sorted(delegates))
    native[:] = [
        e for e in native if not str(e.get("func", "")).split("(")[0].endswith("::" + target)
    ]


def _change_dispatch(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entry = _pick(native, rng)
    if entry is None:
        return
    dispatch = entry.get("dispatch")
    if not isinstance(dispatch, dict) or not dispatch or rng.random() < 0.2:
        entry["dispatch"] = {rng.choice(_KEYS): rng.choice(_KERNELS)}
        return
    key = rng.choice(list(dispatch))
    if rng.random() < 0.5:
        dispatch[key] = rng.choice(_KERNELS)
    else:
        dispatch[rng.choice(_KEYS)] = dispatch.pop(key)


def _change_formula(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entry = _pick(derivs, rng, "name")
    if entry is None:
        return
    keys = [k for k in entry if k != "name"]
    if not keys or rng.random() < 0.2:
        entry[rng.choice(_FORMULA_KEYS)] = rng.choice(_FORMULA_WORDS)
        return
    key = rng.choice(keys)
    value = entry[key]
    if not isinstance(value, str) or rng.random() < 0.2:
        entry[key] = rng.choice([*_FORMULA_WORDS, [True], [False, False, False], "auto_linear"])
        return
    entry[key] = _sub_random(r"[A-Za-z_]\w*", value, rng, lambda m: rng.choice(_FORMULA_WORDS))


def _string_default(native: Entries, derivs: Entries, rng: random.Random) -> None:
    entry = _pick(native, rng)
    if entry is None:
        return
    literal = rng.choice(
        ['"a\\"b"', '"\\\\"', '"é✓"', '"\\n"', "'q\\'s'", '"*/ /*"', '"\\x41"', '"??="', '"%s"']
    )
    text = str(entry["func"])
    if "str mode=" in text and rng.random() < 0.7:
        entry["func"] = re.sub(r'str mode="[^"]*"', lambda m: f"str mode={literal}", text)
    else:
        entry["func"] = text.replace(") ->", f", str note={literal}) ->", 1)


_FRESH_RETURNS = [
    "Tensor", "(Tensor, Tensor)", "(Tensor a, Tensor b)", "Tensor[]", "int", "float", "bool",
    "Scalar", "ScalarType", "()", "SymInt", "SymInt[]", "int[]", "Tensor?", "str", "Device",
]  # fmt: skip
_FRESH_KEYS = ["CPU", "CUDA", "Meta", "CompositeExplicitAutograd", "SparseCPU", "QuantizedCPU"]


#: Plausible types and defaults that fit them, so most fresh operators pass the front end.
_FITTING = {
    "Tensor": [], "Tensor?": ["None"], "Tensor[]": ["[]"], "int": ["0", "-1", "Mean"],
    "int[]": ["[]", "[0, 1]"], "int[2]": ["1", "[1, 2]"], "SymInt": ["0"], "SymInt[]": ["[]"],
    "float": ["0.5", "1e-5", "-2"], "bool": ["True", "False"], "Scalar": ["1", "0.5"],
    "str": ['"mean"', "'x'", '"a\\"b"', '"é"'], "ScalarType?": ["None", "long"],
    "int?": ["None", "3"], "float?": ["None"], "bool?": ["None", "False"],
    "Scalar?": ["None"], "int[1]?": ["None", "[0]"], "Generator?": ["None"],
    "str?": ["None", '"x"'], "Layout?": ["None"], "Device?": ["None"],
    "MemoryFormat?": ["None", "contiguous_format"], "float[]?": ["None"],
}  # fmt: skip


def _add_operator(native: Entries, derivs: Entries, rng: random.Random) -> None:
    """A new, self-contained operator: it needs no family, so it often reaches the backends."""
    odd = rng.random() < 0.15
    args = ["Tensor self"] if rng.random() < 0.7 else []
    for i in range(rng.randint(0, 4)):
        ty = rng.choice(_TYPES if odd else list(_FITTING))
        arg = f"{ty} a{i}"
        defaults = _DEFAULTS if odd else _FITTING.get(ty, [])
        if defaults and rng.random() < 0.4:
            arg += "=" + rng.choice(defaults)
        args.append(arg)
    if rng.random() < 0.3 and len(args) > 1:
        args.insert(rng.randrange(1, len(args)), "*")
    name = rng.choice(_NAMES) if odd else f"fresh{rng.randrange(1000)}"
    overload = rng.choice(["", "", ".Tensor", ".Scalar", ".dim"])
    returns = (
        rng.choice(_FRESH_RETURNS) if odd else rng.choice(["Tensor", "Tensor", "(Tensor, Tensor)"])
    )
    entry: dict[str, Any] = {"func": f"toyops::{name}{overload}({', '.join(args)}) -> {returns}"}
    if rng.random() < 0.6:
        kernel = rng.choice(_KERNELS) if odd else f"{name}_kernel"
        entry["dispatch"] = {rng.choice(_FRESH_KEYS): kernel}
    if args and args[0] == "Tensor self" and rng.random() < 0.4:
        entry["variants"] = rng.choice(["function, method", "method"])
    native.append(entry)
    if args and args[0] == "Tensor self" and rng.random() < 0.3:
        derivs.append({"name": entry["func"].removeprefix("toyops::"), "self": "grad"})


def _unqualified(func: str) -> str:
    return func.split("::", 1)[1] if "::" in func.split("(")[0] else func


def _follow_renames(before: list[str], native: Entries, derivs: Entries) -> None:
    """Most of the time, edit derivatives.yaml the same way, so the edit reaches the backends."""
    for old, entry in zip(before, native, strict=True):
        new = str(entry.get("func", ""))
        if old != new:
            for derivative in derivs:
                if derivative.get("name") == _unqualified(old):
                    derivative["name"] = _unqualified(new)


MUTATIONS = (
    _change_type, _change_default, _drop_entry, _duplicate_entry, _rename, _rename_argument,
    _flip_flag, _autogen_missing, _drop_delegate_target, _change_dispatch, _change_formula,
    _string_default, _add_operator, _add_operator, _add_operator,
)  # fmt: skip


def _mutant(seed: int) -> tuple[dict[str, str], list[str]]:
    """The seed's mutated file texts and the names of the mutations applied."""
    rng = random.Random(seed)
    native = yaml.safe_load((TOYOPS / "native_functions.yaml").read_text(encoding="utf-8"))
    derivs = yaml.safe_load((TOYOPS / "derivatives.yaml").read_text(encoding="utf-8"))
    applied = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutation = rng.choice(MUTATIONS)
        before = [str(e.get("func", "")) for e in native]
        mutation(native, derivs, rng)
        applied.append(mutation.__name__)
        if len(before) == len(native) and rng.random() < 0.8:
            _follow_renames(before, native, derivs)

    def dump(data: Entries) -> str:
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1_000_000)

    texts = {
        "native_functions.yaml": dump(native),
        "derivatives.yaml": dump(derivs),
        "tags.yaml": (TOYOPS / "tags.yaml").read_text(encoding="utf-8"),
    }
    return texts, applied


# -- running one mutant ----------------------------------------------------------------------------
def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _compile_args(inputs: Path, out: Path) -> list[str]:
    return [
        "compile", str(inputs / "native_functions.yaml"),
        "--tags", str(inputs / "tags.yaml"), "--derivatives", str(inputs / "derivatives.yaml"),
        "-t", "all", "-o", str(out),
    ]  # fmt: skip


def _run(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)``'s exit code, stdout and stderr; an exception escaping it fails the test."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="module")
def good_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A successful compile of the unmodified toyops: the directory every mutant starts from."""
    out = tmp_path_factory.mktemp("good") / "out"
    code, _, err = _run(_compile_args(TOYOPS, out))
    assert code == 0, err
    return out


def _check_mutant(seed: int, tmp_path: Path, good_output: Path) -> tuple[int, Path]:
    texts, applied = _mutant(seed)
    inputs = tmp_path / f"in{seed}"
    inputs.mkdir()
    for name, text in texts.items():
        (inputs / name).write_text(text, encoding="utf-8")
    out = tmp_path / f"out{seed}"
    shutil.copytree(good_output, out)
    before = _snapshot(out)
    where = f"seed {seed} ({', '.join(applied)}); inputs in {inputs}"
    try:
        code, _, err = _run(_compile_args(inputs, out))
    except BaseException as error:
        raise AssertionError(f"{where}: {type(error).__name__} escaped main: {error}") from error
    assert code in (0, 1), f"{where}: exit {code}\n{err}"
    assert "Traceback" not in err, f"{where}:\n{err}"
    if code == 1:
        assert _POSITIONED.search(err), f"{where}: no file:line:col: error: line in\n{err}"
        assert _snapshot(out) == before, f"{where}: a failed compile changed the output directory"
    else:
        manifest = (out / ".schemac-manifest").read_text(encoding="utf-8").splitlines()
        listed = [line.split("\t", 1)[1] for line in manifest if line and not line.startswith("#")]
        assert len(listed) > 100, f"{where}: only {len(listed)} outputs"
        missing = [path for path in listed if not (out / path).is_file()]
        assert not missing, f"{where}: manifest lists missing files {missing[:5]}"
    if seed % 5 == 0:  # dump-ir runs the whole pipeline too, and prints the IR
        dump = ["dump-ir", *_compile_args(inputs, out)[1:6], "--format", "json"]
        dump_code, _, dump_err = _run(dump)
        assert dump_code in (0, 1) and "Traceback" not in dump_err, f"{where}: dump-ir {dump_err}"
        if dump_code == 1:
            assert _POSITIONED.search(dump_err), f"{where}: dump-ir\n{dump_err}"
    shutil.rmtree(inputs)
    return code, out


@pytest.mark.parametrize("seed", range(EXAMPLES))
def test_mutant_compiles_or_fails_cleanly(seed: int, tmp_path: Path, good_output: Path) -> None:
    _check_mutant(seed, tmp_path, good_output)


# -- edits found (or worth pinning) one by one: (native entry replaced, derivative edit) ---------
#: Each replaces one line of toyops' native_functions.yaml; the compile must fail with a
#: positioned error or succeed, never crash.
TARGETED = {
    # the functional 'scale' leaves its family: the autogen pass must not add a second 'scale'
    "functional_leaves_family": (
        "toyops::scale(Tensor self, Scalar factor, *, Scalar offset=0) -> Tensor",
        "toyops::scale(Tensor self, Scalar factor, *, Tensor(a -> *) offset=0) -> Tensor",
    ),
    # an unsized list with a scalar default (found by H11 in the ATen backends)
    "unsized_list_scalar_default": (
        "toyops::scale_twice(Tensor self, Scalar factor)",
        "toyops::scale_twice(Tensor self, Scalar factor, int[] x=3)",
    ),
    # a mutable optional Tensor: no C++ API type for it (was a TranslationError)
    "mutable_optional_tensor": (
        "toyops::blend.Scalar(Tensor self, Scalar other,",
        "toyops::blend.Scalar(Tensor self, Tensor(b!)? other,",
    ),
    # a factory's single out argument not named 'out' (the Python binding looked up 'out')
    "factory_out_named_otherwise": (
        "float start=0.0, Tensor(a!) out) -> Tensor(a!)",
        "float start=0.0, Tensor(a!) dest) -> Tensor(a!)",
    ),
    # an input named 'out': the autogen'd out= variant would have two (was a TranslationError)
    "input_named_out": ("float low=0.0, float high=1.0", "float out=0.0, float high=1.0"),
    # two arguments of one name (was a TranslationError in the ATen headers)
    "argument_twice": (
        "toyops::scale_twice(Tensor self, Scalar factor)",
        "toyops::scale_twice(Tensor self, Scalar factor, SymInt self)",
    ),
    "string_default_escapes": ('str mode="sum"', 'str mode="q\\"uo\\\\te\\n é"'),
    "keyword_argument": ("Tensor self, float sigma=1.0", "Tensor self, float template=1.0"),
    "keyword_overload": ("toyops::blend.Scalar(", "toyops::blend.template("),
    "macro_argument": ("Tensor self, float sigma=1.0", "Tensor self, float TORCH_API=1.0"),
    "long_name": ("toyops::scale_twice(", f"toyops::{'s' * 400}("),
}


#: Cases that must fail, with a piece of the expected message.
TARGETED_ERRORS = {
    "functional_leaves_family": "is not in the family of its namesakes",
    "unsized_list_scalar_default": "default '3' for the unsized list type 'int[]'",
    "mutable_optional_tensor": "mutable optional argument 'other'",
    "keyword_argument": "C++ keyword",
    "long_name": "is 400 characters long",
    "argument_twice": "argument name 'self' is used twice",
    "input_named_out": "two arguments named 'out'",
    "macro_argument": "'TORCH_API' is a macro",
}


@pytest.mark.parametrize("case", sorted(TARGETED))
def test_targeted_edit_compiles_or_fails_cleanly(
    case: str, tmp_path: Path, good_output: Path
) -> None:
    old, new = TARGETED[case]
    native = (TOYOPS / "native_functions.yaml").read_text(encoding="utf-8")
    assert old in native, old
    inputs = tmp_path / "in"
    shutil.copytree(TOYOPS, inputs)
    (inputs / "native_functions.yaml").write_text(native.replace(old, new, 1), encoding="utf-8")
    # derivatives.yaml names the operator without its namespace: keep it attached
    derivatives = (TOYOPS / "derivatives.yaml").read_text(encoding="utf-8")
    derivatives = derivatives.replace(old.removeprefix("toyops::"), new.removeprefix("toyops::"))
    (inputs / "derivatives.yaml").write_text(derivatives, encoding="utf-8")
    out = tmp_path / "out"
    shutil.copytree(good_output, out)
    before = _snapshot(out)
    code, _, err = _run(_compile_args(inputs, out))
    assert code in (0, 1) and "Traceback" not in err, err
    if case in TARGETED_ERRORS:
        assert code == 1 and TARGETED_ERRORS[case] in err, err
    if code == 1:
        assert _POSITIONED.search(err), err
        assert _snapshot(out) == before


@pytest.mark.parametrize(
    ("default", "type_text", "fits"),
    [
        ("3", "int[]", False),  # H11: crashed the ATen backends
        ("[3]", "int[]", True),
        ("3", "int[2]", True),
        ("[0, 1]", "SymInt[2]", True),
        ("[0.5]", "int[]", False),
        ("None", "Tensor", False),
        ("None", "int[1]?", True),
        ("nan", "Tensor[]", False),
        ("1.5", "bool", False),
        ("False", "bool?", True),
        ("-1e-5", "float", True),
        ("3", "float", True),
        ("3", "Scalar", True),
        ("inf", "float", False),
        ("Mean", "int", True),
        ("long", "ScalarType?", True),
        ("float", "ScalarType?", False),
        ("contiguous_format", "MemoryFormat?", True),
        ("'sum'", "str", True),
        ('"sum"', "str?", True),
        ("sum", "str", False),
        ("[1]", "int", True),  # C++ reads {1}
        ("[1, 2]", "int", False),
        ("cpu", "Device", False),
        ("[]", "Tensor[]", True),
        ("[True]", "bool[]", True),
    ],
)
def test_default_fits_type(default: str, type_text: str, fits: bool) -> None:
    schema = parse_schema(f"f({type_text} x) -> ()")
    ty = schema.arguments.flat_all[0].type
    assert (default_problem(default, ty) is None) == fits, default_problem(default, ty)


# -- the C++ of accepted odd input compiles ----------------------------------------------------
#: Exit-0 edits whose names and literals reach the generated C++; compiled together.
CPP_CASES = ("string_default_escapes", "keyword_overload", "factory_out_named_otherwise")
#: How many exit-0 fuzz mutants also get their RegisterSchema.cpp compiled.
CPP_FUZZ_SAMPLES = int(os.environ.get("SCHEMAC_ROBUSTNESS_CPP_SAMPLES", "2"))


def _torch_include() -> Path:
    torch = pytest.importorskip("torch")
    return Path(torch.__file__).parent / "include"


def _syntax_errors(out: Path, names: list[str]) -> dict[str, str]:
    """g++ -fsyntax-only over ``ATen/<name>``: file -> errors, for the files that fail.

    torch's include directory comes first: the toy library's ATen/Operators.h
    must not replace torch's, which torch's own headers need; the toy's
    per-operator headers (ATen/ops/<toy op>.h) exist only in ``out``.
    """
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.fail("g++ is required for the C++ checks")
    include = _torch_include()
    failures = {}
    for name in names:
        command = [
            cxx, "-std=c++20", "-fsyntax-only", "-w", f"-I{include}",
            f"-I{include / 'torch' / 'csrc' / 'api' / 'include'}", f"-I{out}",
            str(out / "ATen" / name),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            failures[name] = done.stderr[-3000:]
    return failures


@pytest.mark.slow
@pytest.mark.torch
def test_accepted_odd_names_and_literals_are_valid_cpp(tmp_path: Path) -> None:
    native = (TOYOPS / "native_functions.yaml").read_text(encoding="utf-8")
    derivatives = (TOYOPS / "derivatives.yaml").read_text(encoding="utf-8")
    for case in CPP_CASES:
        old, new = TARGETED[case]
        native = native.replace(old, new, 1)
        derivatives = derivatives.replace(
            old.removeprefix("toyops::"), new.removeprefix("toyops::")
        )
    inputs = tmp_path / "in"
    shutil.copytree(TOYOPS, inputs)
    (inputs / "native_functions.yaml").write_text(native, encoding="utf-8")
    (inputs / "derivatives.yaml").write_text(derivatives, encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = _run(_compile_args(inputs, out))
    assert code == 0, err
    schema = (out / "ATen" / "RegisterSchema.cpp").read_text(encoding="utf-8")
    assert 'mode=\\"q\\\\\\"uo' in schema  # the string default, escaped once more
    failures = _syntax_errors(
        out, ["RegisterSchema.cpp", "RegisterCompositeExplicitAutograd_0.cpp"]
    )
    assert not failures, "\n\n".join(f"{name}:\n{text}" for name, text in failures.items())


@pytest.mark.slow
@pytest.mark.torch
def test_fuzz_mutants_that_compile_are_valid_cpp(tmp_path: Path, good_output: Path) -> None:
    checked = 0
    for seed in range(EXAMPLES, EXAMPLES + 200):
        if checked == CPP_FUZZ_SAMPLES:
            break
        code, out = _check_mutant(seed, tmp_path, good_output)
        if code == 0:
            failures = _syntax_errors(out, ["RegisterSchema.cpp", "RegisterCPU_0.cpp"])
            assert not failures, f"seed {seed}: {failures}"
            checked += 1
        shutil.rmtree(out)
    assert checked == CPP_FUZZ_SAMPLES


def test_macro_named_namespace_and_tag_are_positioned_errors(
    tmp_path: Path, good_output: Path
) -> None:
    inputs = tmp_path / "in"
    shutil.copytree(TOYOPS, inputs)
    native = (inputs / "native_functions.yaml").read_text(encoding="utf-8")
    (inputs / "native_functions.yaml").write_text(
        native.replace("toyops::", "TORCH_API::"), encoding="utf-8"
    )
    with (inputs / "tags.yaml").open("a", encoding="utf-8") as tags:
        tags.write("- tag: TORCH_CHECK\n  desc: a macro\n")
    out = tmp_path / "out"
    shutil.copytree(good_output, out)
    before = _snapshot(out)
    code, _, err = _run(_compile_args(inputs, out))
    assert code == 1, err
    assert "native_functions.yaml:10:9: error: 'TORCH_API' is a macro" in err, err
    assert "tags.yaml:17:8: error: 'TORCH_CHECK' is a macro" in err, err
    assert _snapshot(out) == before
