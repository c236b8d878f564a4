"""Derive a release profile from a torch wheel (or an unpacked one); write or check it.

    python tools/extract_profile.py SOURCE [--write | --check] [--previous X.Y]

SOURCE is a ``torch-*.whl`` or a directory holding ``torchgen/``,
``torch/include/`` and the ``torch-*.dist-info`` (what a wheel unpacks to, or
an installed ``site-packages``).  The release's policy is read from its
torchgen *as text*: the Python files are parsed with ``ast`` and only literal
data (sets and lists of strings, class bodies, comparisons against string
constants) is taken, so nothing of torchgen is imported or executed.  The
helper names of derivative formulas come from the C++ headers.

``--write`` writes ``src/schemac/profiles/data/X.Y.json``; ``--check`` exits 1
if the committed file differs; both print what changed since the previous
release's profile.  See docs/profiles.md for adding a release.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "schemac" / "profiles" / "data"

# The same reading of headers as a compile's (schemac is installed wherever
# this script runs: it is a maintainer's tool of this repository).
sys.path.insert(0, str(ROOT / "src"))
from schemac.backends.host_release import DIGESTS, SPLICED_FILES, host_text_digest  # noqa: E402
from schemac.frontend.helper_headers import HELPER_HEADERS, header_functions  # noqa: E402

AUTOGRAD = "torchgen/packaged/autograd"

#: Profile list -> (torchgen file, top-level variable holding it).
LIST_SOURCES: dict[str, tuple[str, str]] = {
    "gradient_implemented_for_complex": (
        f"{AUTOGRAD}/gen_variable_type.py",
        "GRADIENT_IMPLEMENTED_FOR_COMPLEX",
    ),
    "gradient_implemented_for_sparse_complex": (
        f"{AUTOGRAD}/gen_variable_type.py",
        "GRADIENT_IMPLEMENTED_FOR_SPARSE_COMPLEX",
    ),
    "dont_require_derivative": (f"{AUTOGRAD}/gen_variable_type.py", "DONT_REQUIRE_DERIVATIVE"),
    "reset_grad_accumulator": (f"{AUTOGRAD}/gen_variable_type.py", "RESET_GRAD_ACCUMULATOR"),
    "dont_enforce_same_tensor_impl_or_storage": (
        f"{AUTOGRAD}/gen_variable_type.py",
        "DONT_ENFORCE_SAME_TENSOR_IMPL_OR_STORAGE",
    ),
    "dont_enforce_tensor_impl_use_count": (
        f"{AUTOGRAD}/gen_variable_type.py",
        "DONT_ENFORCE_TENSOR_IMPL_USE_COUNT",
    ),
    "dont_enforce_storage_impl_use_count": (
        f"{AUTOGRAD}/gen_variable_type.py",
        "DONT_ENFORCE_STORAGE_IMPL_USE_COUNT",
    ),
    "manual_backend": (f"{AUTOGRAD}/gen_trace_type.py", "MANUAL_BACKEND"),
    "manual_autograd_and_tracer": (f"{AUTOGRAD}/gen_trace_type.py", "MANUAL_AUTOGRAD_AND_TRACER"),
    "dont_record_trace": (f"{AUTOGRAD}/gen_trace_type.py", "DONT_RECORD_TRACE"),
    "view_functions_with_metadata_change": (
        f"{AUTOGRAD}/gen_inplace_or_view_type.py",
        "VIEW_FUNCTIONS_WITH_METADATA_CHANGE",
    ),
    "returns_views_of_input": (
        f"{AUTOGRAD}/gen_inplace_or_view_type.py",
        "RETURNS_VIEWS_OF_INPUT",
    ),
    "python_skipped_name_patterns": (
        f"{AUTOGRAD}/gen_python_functions.py",
        "_SKIP_PYTHON_BINDINGS",
    ),
    "python_skipped_schemas": (
        f"{AUTOGRAD}/gen_python_functions.py",
        "SKIP_PYTHON_BINDINGS_SIGNATURES",
    ),
    "cpu_dll_cuda_kernels": ("torchgen/dest/native_functions.py", "_CPU_DLL_CUDA_KERNELS"),
    "out_ops_that_dont_get_grouped_properly": (
        "torchgen/native_function_generation.py",
        "OUT_OPS_THAT_DONT_GET_GROUPED_PROPERLY",
    ),
    "inplace_ops_that_dont_get_grouped_properly": (
        "torchgen/native_function_generation.py",
        "INPLACE_OPS_THAT_DONT_GET_GROUPED_PROPERLY",
    ),
    "mutable_ops_that_cannot_get_an_out_variant": (
        "torchgen/native_function_generation.py",
        "MUTABLE_OPS_THAT_CANNOT_GET_AN_OUT_VARIANT",
    ),
    "functional_ops_that_cannot_get_an_out_variant": (
        "torchgen/native_function_generation.py",
        "FUNCTIONAL_OPS_THAT_CANNOT_GET_AN_OUT_VARIANT",
    ),
    "mutable_ops_not_using_functionalization": (
        "torchgen/gen_functionalization_type.py",
        "MUTABLE_OPS_NOT_USING_FUNCTIONALIZATION",
    ),
    "functionalization_out_dtype_preserving": (
        "torchgen/gen_functionalization_type.py",
        "CUMULATIVE_OUT_OPS_PRESERVING_OUT_DTYPE",
    ),
}

#: Profile table -> (torchgen file, top-level dict of strings).
TABLE_SOURCES: dict[str, tuple[str, str]] = {
    "view_functions": (f"{AUTOGRAD}/gen_inplace_or_view_type.py", "VIEW_FUNCTIONS"),
    "rename_trace": (f"{AUTOGRAD}/gen_trace_type.py", "RENAME_TRACE"),
}

#: Shard-count table entry -> the torchgen file whose one ``num_shards=<int>`` call says it.
SHARD_SOURCES: dict[str, str] = {
    "variable_type": f"{AUTOGRAD}/gen_variable_type.py",
    "trace_type": f"{AUTOGRAD}/gen_trace_type.py",
    "inplace_or_view": f"{AUTOGRAD}/gen_inplace_or_view_type.py",
    "python_functions": f"{AUTOGRAD}/gen_python_functions.py",
}

#: Feature -> (file, test of its text).  Each is the release's own code or
#: template saying that it does the thing.
FEATURE_SOURCES: dict[str, tuple[str, Callable[[str], bool]]] = {
    "node_creation_hooks": (
        f"{AUTOGRAD}/gen_variable_type.py",
        lambda text: "fire_node_creation_hooks" in text,
    ),
    "tensor_is_variable": (
        "torchgen/packaged/ATen/templates/TensorBody.h",
        lambda text: re.search(r"\bis_variable\s*\(", text) is not None,
    ),
    "register_hook_sfinae": (
        "torchgen/packaged/ATen/templates/TensorBody.h",
        lambda text: re.search(r"hook_return_\w+_t<", text) is not None,
    ),
    "autograd_node_intrusive_ptr": (
        f"{AUTOGRAD}/templates/Functions.h",
        lambda text: "intrusive_ptr<Node>" in text,
    ),
    "structured_output_names": (
        "torchgen/dest/register_dispatch_key.py",
        lambda text: "DimnameList names" in text,
    ),
    "python_method_has_torch_function": (
        f"{AUTOGRAD}/gen_python_functions.py",
        lambda text: "if (has_torch_function(self_))" in text,
    ),
    "python_factory_method_checks_dispatch": (
        "torchgen/api/python.py",
        lambda text: "tensor_has_dispatch(self)" in text,
    ),
    "per_key_export_macros": (
        "torchgen/dest/native_functions.py",
        lambda text: "TORCH_CUDA_CPP_API" in text,
    ),
    # The owning C++ types (ViewMeta members) turn `const at::Tensor &` into a value.
    "view_meta_owns_tensors": (
        "torchgen/api/cpp.py",
        lambda text: (
            re.search(
                r"elif remove_non_owning_ref_types:\s*"
                r"return NamedCType\(binds, BaseCType\(tensorT\)\)",
                text,
            )
            is not None
        ),
    ),
}


class ExtractionError(Exception):
    """The source lacks something a profile needs (a file, a variable, a rule)."""


# -- reading a wheel or a directory ---------------------------------------------------
class ReleaseFiles:
    """The files of one release, from a wheel (read in place) or a directory."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self._zip = zipfile.ZipFile(source) if source.is_file() else None

    def names(self) -> Iterator[str]:
        if self._zip is not None:
            yield from self._zip.namelist()
        else:
            for path in self.source.iterdir():
                yield path.name + ("/" if path.is_dir() else "")

    def read(self, relative: str) -> str | None:
        if self._zip is not None:
            try:
                return self._zip.read(relative).decode("utf-8")
            except KeyError:
                return None
        path = self.source / relative
        return path.read_text(encoding="utf-8") if path.is_file() else None

    def need(self, relative: str) -> str:
        text = self.read(relative)
        if text is None:
            raise ExtractionError(f"{self.source}: no {relative}")
        return text

    def version(self) -> str:
        for name in self.names():
            top = name.split("/")[0]
            if top.startswith("torch-") and top.endswith(".dist-info"):
                metadata = self.need(f"{top}/METADATA")
                match = re.search(r"^Version:\s*(\S+)", metadata, re.MULTILINE)
                if match:
                    return match.group(1).split("+")[0]
        raise ExtractionError(f"{self.source}: no torch-*.dist-info/METADATA with a Version")


# -- literal data from Python source ---------------------------------------------------------
def _strings(node: ast.expr, names: dict[str, Any]) -> Any:
    """The value of a literal-ish expression: strings, tuples, lists, sets, dicts.

    Understands ``set(...)``/``frozenset(...)``/``list(...)``/``sorted(...)``
    around a literal, ``a | b`` and ``a + b``, ``x.keys()``, ``x.union(...)``
    and names bound earlier in the same module.
    """
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_strings(e, names) for e in node.elts]
    if isinstance(node, ast.Set):
        return {_freeze(_strings(e, names)) for e in node.elts}
    if isinstance(node, ast.Dict):
        table: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # {**other, ...}
                table.update(_strings(value, names))
            else:
                table[_strings(key, names)] = _strings(value, names)
        return table
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.Add)):
        left, right = _strings(node.left, names), _strings(node.right, names)
        if isinstance(left, set) or isinstance(right, set):
            return set(left) | set(right)
        return left + right
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in {"set", "frozenset", "list", "sorted"}:
            inner = _strings(node.args[0], names) if node.args else []
            return set(inner) if func.id.endswith("set") else list(inner)
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "parse"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Constant)
        ):
            return node.args[0].value  # OperatorName.parse("cumsum.out") -> "cumsum.out"
        if isinstance(func, ast.Attribute):
            owner = _strings(func.value, names)
            if func.attr == "keys" and isinstance(owner, dict):
                return list(owner)
            if func.attr == "union":
                result = set(owner)
                for arg in node.args:
                    result |= set(_strings(arg, names))
                return result
    raise ExtractionError(f"not literal data: {ast.unparse(node)[:80]}")


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def module_literals(text: str) -> dict[str, Any]:
    """Every top-level ``NAME = <literal data>`` of a module (others are skipped)."""
    names: dict[str, Any] = {}
    for statement in ast.parse(text).body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                try:
                    names[target.id] = _strings(value, names)
                except ExtractionError:
                    continue
    return names


def enum_members(text: str, class_name: str) -> list[str]:
    """The member names of ``class class_name(Enum)``, in order."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return [
                target.id
                for statement in node.body
                if isinstance(statement, ast.Assign)
                for target in statement.targets
                if isinstance(target, ast.Name)
            ]
    raise ExtractionError(f"no class {class_name}")


def _is_name_text(node: ast.expr) -> bool:
    """``str(self.func.name)``-like: the operator's name turned into a string."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


def randomness_rule(model_text: str) -> tuple[list[str], list[str]]:
    """The exemptions of the "looks random" heuristic.

    Returns the substrings that keep a name containing ``"rand"`` from looking
    random (``"_philox_"`` in 2.15) and the base names of dropout operators
    that are not random: the constants compared against the name next to the
    ``"rand" in ...`` and ``"dropout" in ...`` tests.
    """
    exemptions: list[str] = []
    not_random: list[str] = []
    found = False
    for node in ast.walk(ast.parse(model_text)):
        if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)):
            continue
        constants = [_membership_constant(v) for v in node.values]
        if ("rand", "in") in constants:
            found = True
            exemptions += [c for c, op in filter(None, constants) if op == "not in"]
        if any(_mentions(v, "dropout") for v in node.values):
            for value in node.values:
                if (
                    isinstance(value, ast.Compare)
                    and isinstance(value.ops[0], ast.NotEq)
                    and _is_name_text(value.left)
                    and isinstance(value.comparators[0], ast.Constant)
                ):
                    not_random.append(value.comparators[0].value)
    if not found:
        # An unconditional "rand" test: no exemption, but the rule must exist.
        found = any(
            _membership_constant(n) == ("rand", "in")
            for n in ast.walk(ast.parse(model_text))
            if isinstance(n, ast.Compare)
        )
    if not found:
        raise ExtractionError("model.py: no '\"rand\" in str(...name)' test")
    return sorted(set(exemptions)), sorted(set(not_random))


def _membership_constant(node: ast.expr) -> tuple[str, str] | None:
    if (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and len(node.ops) == 1
        and _is_name_text(node.comparators[0])
    ):
        op = node.ops[0]
        if isinstance(op, ast.In):
            return node.left.value, "in"
        if isinstance(op, ast.NotIn):
            return node.left.value, "not in"
    return None


def _mentions(node: ast.AST, word: str) -> bool:
    return any(isinstance(n, ast.Constant) and n.value == word for n in ast.walk(node))


def shard_count(text: str) -> int | None:
    """The one integer passed as ``num_shards=`` in ``text``, if there is exactly one."""
    counts = {
        keyword.value.value
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "num_shards"
        and isinstance(keyword.value, ast.Constant)
        and isinstance(keyword.value.value, int)
    }
    return counts.pop() if len(counts) == 1 else None


def keyword_exceptions(gen_text: str) -> list[str]:
    """``op:arg`` pairs of the set gen.py exempts from the Python-keyword rule."""
    for node in ast.walk(ast.parse(gen_text)):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EXCLUSION_LIST" for t in node.targets
        ):
            pairs = _strings(node.value, {})
            return sorted(f"{op}:{arg}" for op, arg in pairs)
    return []


AOTI_FALLBACK_OPS = "torchgen/aoti/fallback_ops.py"
AOTI_SHIM_GENERATOR = "torchgen/gen_aoti_c_shim.py"
#: Profile table -> the top-level dict of ``fallback_ops.py`` it records.
AOTI_TABLE_SOURCES: dict[str, str] = {
    "aoti_fallback_ops": "inductor_fallback_ops",
    "aoti_aten_shimified_ops": "aten_shimified_ops",
}


def aoti_versions(metadata: Any) -> str:
    """One shimmed operator's version record as canonical JSON text.

    Releases spell a version two ways (``{"v2": ["arg"]}`` up to 2.12,
    ``{"v2": {"new_args": [...], "since": "TORCH_VERSION_..."}}`` since);
    the profile keeps one: ``{"since"?: ..., "v<N>": {"new_args": [...], "since"?: ...}}``.
    """
    if not isinstance(metadata, dict):
        raise ExtractionError(f"fallback op metadata is not a dict: {metadata!r}")
    record: dict[str, Any] = {}
    for key, value in metadata.items():
        if key == "since":
            record[key] = str(value)
        elif isinstance(value, list):
            record[key] = {"new_args": [str(v) for v in value]}
        elif isinstance(value, dict):
            entry: dict[str, Any] = {"new_args": [str(v) for v in value.get("new_args", [])]}
            if "since" in value:
                entry["since"] = str(value["since"])
            record[key] = entry
        else:
            raise ExtractionError(f"fallback op version {key}: not a list or dict: {value!r}")
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def aoti_nullable_returns(generator_text: str) -> list[str]:
    """The name fragments whose shims accept null return pointers: the string
    constants ``gen_returns`` loops over (``for name in ("...", ...)``)."""
    for node in ast.walk(ast.parse(generator_text)):
        if isinstance(node, ast.FunctionDef) and node.name == "gen_returns":
            for loop in ast.walk(node):
                if isinstance(loop, ast.For) and isinstance(loop.iter, (ast.Tuple, ast.List)):
                    return sorted(_strings(loop.iter, {}))
    raise ExtractionError(f"{AOTI_SHIM_GENERATOR}: no name loop in gen_returns")


def _aoti_policy(files: ReleaseFiles, lists: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """The AOTInductor shim tables (none when the release has no fallback_ops.py)."""
    text = files.read(AOTI_FALLBACK_OPS)
    if text is None:
        return {}
    literals = module_literals(text)
    tables = {
        table: {op: aoti_versions(meta) for op, meta in literals[variable].items()}
        for table, variable in AOTI_TABLE_SOURCES.items()
        if isinstance(literals.get(variable), dict)
    }
    lists["aoti_nullable_returns"] = aoti_nullable_returns(files.need(AOTI_SHIM_GENERATOR))
    return tables


def export_macro_table(native_text: str, model_text: str) -> dict[str, str]:
    """Dispatch key -> the DLL export macro torchgen gives its kernels (besides TORCH_API).

    Read from ``torch_api_key_word_prefix`` in dest/native_functions.py: a
    literal ``{"XPU": "TORCH_XPU_API"}`` (up to 2.13), nothing (2.14), or
    ``if is_cuda_dispatch_key(dk): return "TORCH_CUDA_CPP_API"`` tests whose
    key sets are model.py's ``is_<family>_dispatch_key`` functions (2.15).
    """
    function = next(
        (
            node
            for node in ast.walk(ast.parse(native_text))
            if isinstance(node, ast.FunctionDef) and node.name == "torch_api_key_word_prefix"
        ),
        None,
    )
    if function is None:
        return {}
    table: dict[str, str] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Constant):
                    table[str(key.value)] = str(value.value)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Call):
            predicate = node.test.func
            returned = node.body[0] if node.body else None
            if (
                isinstance(predicate, ast.Name)
                and isinstance(returned, ast.Return)
                and isinstance(returned.value, ast.Constant)
            ):
                for key in _dispatch_key_set(model_text, predicate.id):
                    table[key] = str(returned.value.value)
    return table


def _dispatch_key_set(model_text: str, function_name: str) -> list[str]:
    """The ``DispatchKey.X`` members a model.py predicate ``function_name`` lists."""
    for node in ast.walk(ast.parse(model_text)):
        if isinstance(node, ast.FunctionDef) and node.name == function_name:
            return [
                n.attr
                for n in ast.walk(node)
                if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name)
                and n.value.id == "DispatchKey"
            ]
    raise ExtractionError(f"model.py: no function {function_name}")


# -- the profile -----------------------------------------------------------------------
FUNCTIONALIZATION = "torchgen/gen_functionalization_type.py"
VMAP = "torchgen/gen_vmap_plumbing.py"
INVERSES_TEMPLATE = "torchgen/packaged/ATen/templates/FunctionalInverses.h"


def _function(tree: ast.AST, name: str) -> ast.FunctionDef | None:
    found = (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return next(found, None)


def _name_equalities(function: ast.FunctionDef | None) -> list[str]:
    """Constants compared for equality with ``str(<x>.func.name)`` in ``function``."""
    found: list[str] = []
    for node in ast.walk(function) if function is not None else ():
        if not (isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.Eq)):
            continue
        left, right = node.left, node.comparators[0]
        if (
            isinstance(left, ast.Call)
            and isinstance(left.func, ast.Name)
            and left.func.id == "str"
            and left.args
            and ast.unparse(left.args[0]).endswith(".func.name")
            and isinstance(right, ast.Constant)
            and isinstance(right.value, str)
        ):
            found.append(right.value)
    return found


def functionalization_lists(files: ReleaseFiles) -> dict[str, list[str]]:
    """The operator names the functionalization and vmap generators single out.

    The hand-written kernels and the as_strided flag are string comparisons in
    torchgen's code, the vmap exceptions a list local to its generator, the
    hand-declared inverses lines of the FunctionalInverses.h template.
    """
    lists: dict[str, list[str]] = {}
    text = files.read(FUNCTIONALIZATION)
    if text is not None:
        tree = ast.parse(text)
        hand_written = _name_equalities(_function(tree, "gen_functionalization_registration"))
        lists["functionalization_hand_written"] = sorted(set(hand_written))
        lists["functionalization_as_strided_views"] = _name_equalities(
            _function(tree, "is_as_strided")
        )
    text = files.read(VMAP)
    if text is not None:
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "return_symint_overrides"
            ):
                lists["vmap_non_tensor_return_ops"] = _as_list(_strings(node.value, {}))
    text = files.read(INVERSES_TEMPLATE)
    if text is not None:
        declared = re.findall(r"^static at::Tensor (\w+)\((.*)\);$", text, re.M)
        lists["functionalization_hand_declared_inverses"] = [
            f"{name}({', '.join(params.split(', ')[3:])})" for name, params in declared
        ]
    return lists


#: The dict of 2.15's functionalization generator: multi-output view -> the C++
#: body that rebuilds one output, with ``{slice}`` / ``{select}`` for the op called.
SINGLE_OUTPUT_REPLAY = "SINGLE_OUTPUT_VIEW_REPLAY"


def single_output_replay(files: ReleaseFiles) -> dict[str, str]:
    """Multi-output view -> ``slice`` or ``select``: which operator its ViewMeta's
    forward calls to rebuild its one output (none before 2.15).

    Only the kind is taken from the release's body text; schemac writes the
    body itself from the view's arguments.
    """
    text = files.read(FUNCTIONALIZATION)
    bodies = None if text is None else module_literals(text).get(SINGLE_OUTPUT_REPLAY)
    if bodies is None:
        return {}
    kinds: dict[str, str] = {}
    for name, body in bodies.items():
        found = [kind for kind in ("slice", "select") if f"{{{kind}}}" in str(body)]
        if len(found) != 1:
            raise ExtractionError(
                f"{FUNCTIONALIZATION}: {SINGLE_OUTPUT_REPLAY}[{name!r}] calls neither or both "
                "of {slice} and {select}"
            )
        kinds[str(name)] = found[0]
    return kinds


#: Host template folder (as schemac names host files) -> where the wheel keeps it.
HOST_TEMPLATE_FOLDERS = {
    "aten": "torchgen/packaged/ATen/templates",
    "autograd": f"{AUTOGRAD}/templates",
}


def host_template_digests(files: ReleaseFiles) -> dict[str, str]:
    """The digest of each host file schemac splices, as the release ships it."""
    digests: dict[str, str] = {}
    for name in SPLICED_FILES:
        folder, _, file_name = name.partition("/")
        text = files.read(f"{HOST_TEMPLATE_FOLDERS[folder]}/{file_name}")
        if text is not None:
            digests[name] = host_text_digest(text)
    return digests


#: What a PrivateUse1 device must implement itself for tensors to exist, move and
#: be viewed on it.  Not torchgen's data: PyTorch's PrivateUse1 documentation
#: lists these; the profile keeps those the release's native_functions.yaml defines.
DEVICE_REQUIRED_OPERATORS = (
    "empty.memory_format",
    "empty_strided",
    "as_strided",
    "view",
    "_reshape_alias",
    "resize_",
    "_copy_from",
    "_copy_from_and_resize",
    "_local_scalar_dense",
    "set_.source_Storage",
    "set_.source_Storage_storage_offset",
    "set_.source_Tensor",
    "set_",
)
#: The tags that mark what decompositions lower to, if the release's tags.yaml has them.
DECOMPOSITION_TARGET_TAGS = ("core",)
NATIVE_YAML = "torchgen/packaged/ATen/native/native_functions.yaml"
TAGS_YAML = "torchgen/packaged/ATen/native/tags.yaml"


def backend_stub_lists(files: ReleaseFiles) -> dict[str, list[str]]:
    """The coverage report's lists: the device operators and the decomposition tags
    of the curated lists above that the release's YAML defines."""
    native = files.need(NATIVE_YAML)
    defined = set(re.findall(r"^- func: ([\w.]+)\(", native, re.M))
    tags = set(re.findall(r"^- tag: (\w+)", files.need(TAGS_YAML), re.M))
    return {
        "device_required_operators": [op for op in DEVICE_REQUIRED_OPERATORS if op in defined],
        "decomposition_target_tags": [t for t in DECOMPOSITION_TARGET_TAGS if t in tags],
    }


def extract(source: Path) -> dict[str, Any]:
    """The profile data of the release in ``source`` (a wheel or a directory)."""
    files = ReleaseFiles(source)
    version = files.version()
    major, minor = version.split(".")[:2]
    model = files.need("torchgen/model.py")
    lists: dict[str, list[str]] = {
        "base_types": enum_members(model, "BaseTy"),
        "dispatch_keys": enum_members(model, "DispatchKey"),
    }
    exemptions, not_random = randomness_rule(model)
    lists["random_name_exemptions"] = exemptions
    lists["dropout_not_random"] = not_random
    lists["keyword_argument_exceptions"] = keyword_exceptions(files.need("torchgen/gen.py"))
    helpers: set[str] = set()
    for header in HELPER_HEADERS:
        helpers |= header_functions(files.need(f"torch/include/{header}"))
    lists["autograd_helpers"] = sorted(helpers)

    literals: dict[str, dict[str, Any]] = {}

    def literal(path: str, name: str) -> Any:
        if path not in literals:
            text = files.read(path)
            literals[path] = module_literals(text) if text is not None else {}
        return literals[path].get(name)

    lists.update(functionalization_lists(files))
    lists.update(backend_stub_lists(files))
    for list_name, (path, variable) in LIST_SOURCES.items():
        value = literal(path, variable)
        if value is None:
            continue  # this release has no such list
        lists[list_name] = _as_list(value)
    tables: dict[str, dict[str, str]] = {}
    for table_name, (path, variable) in TABLE_SOURCES.items():
        value = literal(path, variable)
        if isinstance(value, dict):
            tables[table_name] = {str(k): str(v) for k, v in value.items()}
    tables["kernel_export_macros"] = export_macro_table(
        files.need("torchgen/dest/native_functions.py"), model
    )
    shards = {}
    for family, path in SHARD_SOURCES.items():
        text = files.read(path)
        count = None if text is None else shard_count(text)
        if count is not None:
            shards[family] = str(count)
    if shards:
        tables["shard_counts"] = shards
    tables.update(_aoti_policy(files, lists))
    tables[DIGESTS] = host_template_digests(files)
    replay = single_output_replay(files)
    if replay:
        tables["view_meta_single_output_replay"] = replay
    features = sorted(
        name
        for name, (path, test) in FEATURE_SOURCES.items()
        if (text := files.read(path)) is not None and test(text)
    )
    return {
        "release": f"{major}.{minor}",
        "torch_version": version,
        "features": features,
        "lists": {name: lists[name] for name in sorted(lists)},
        "tables": {name: dict(sorted(tables[name].items())) for name in sorted(tables)},
    }


def _as_list(value: Any) -> list[str]:
    """Sets sorted (their order means nothing), lists kept in torchgen's order."""
    items: Iterable[Any] = sorted(value) if isinstance(value, (set, frozenset)) else value
    return [":".join(item) if isinstance(item, tuple) else str(item) for item in items]


def profile_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def changes(previous: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """What ``current`` adds to or drops from ``previous``, one line per change."""
    lines = []
    old_features, new_features = set(previous["features"]), set(current["features"])
    lines += [f"+ feature {f}" for f in sorted(new_features - old_features)]
    lines += [f"- feature {f}" for f in sorted(old_features - new_features)]
    for kind in ("lists", "tables"):
        old_all, new_all = previous.get(kind, {}), current.get(kind, {})
        for name in sorted(set(old_all) | set(new_all)):
            old = old_all.get(name, {} if kind == "tables" else [])
            new = new_all.get(name, {} if kind == "tables" else [])
            old_items = set(old.items()) if kind == "tables" else set(old)
            new_items = set(new.items()) if kind == "tables" else set(new)
            added, dropped = new_items - old_items, old_items - new_items
            if name not in old_all:
                lines.append(f"+ {kind[:-1]} {name} ({len(new_items)} entries)")
            elif name not in new_all:
                lines.append(f"- {kind[:-1]} {name}")
            elif added or dropped:
                shown = ", ".join(
                    [f"+{_show(a)}" for a in sorted(added)]
                    + [f"-{_show(d)}" for d in sorted(dropped)]
                )
                lines.append(f"~ {name}: {shown}")
    return lines


def _show(item: Any) -> str:
    return f"{item[0]}={item[1]}" if isinstance(item, tuple) else str(item)


def _previous_release(release: str) -> str | None:
    def key(name: str) -> tuple[int, int]:
        major, minor = name.split(".")
        return int(major), int(minor)

    older = [p.stem for p in DATA.glob("*.json") if key(p.stem) < key(release)]
    return max(older, key=key) if older else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a torch wheel or an unpacked one")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the committed profile")
    mode.add_argument(
        "--check", action="store_true", help="fail if it differs from the committed one"
    )
    parser.add_argument("--previous", help="compare with this release (default: the one before)")
    parser.add_argument("--data", type=Path, default=DATA, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        data = extract(args.source)
    except (ExtractionError, OSError, SyntaxError, zipfile.BadZipFile) as error:
        sys.stderr.write(f"extract_profile: error: {error}\n")
        return 1
    release = data["release"]
    target = args.data / f"{release}.json"
    text = profile_text(data)
    previous = args.previous or _previous_release(release)
    if previous is not None and (args.data / f"{previous}.json").is_file():
        old = json.loads((args.data / f"{previous}.json").read_text(encoding="utf-8"))
        print(f"changes since {previous}:")
        for line in changes(old, data) or ["(none)"]:
            print(f"  {line}")
    if args.check:
        committed = target.read_text(encoding="utf-8") if target.is_file() else None
        if committed != text:
            sys.stderr.write(f"extract_profile: {target} is out of date (run with --write)\n")
            return 1
        print(f"{target}: up to date")
    elif args.write:
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
